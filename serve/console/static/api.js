// The API key and every request made with it. The key lives in sessionStorage only: it is
// forgotten with the tab and never written to a cookie, localStorage or a URL.

const KEY_NAME = "agentry.apiKey";

export const session = {
  get key() {
    return sessionStorage.getItem(KEY_NAME);
  },
  set(key) {
    sessionStorage.setItem(KEY_NAME, key);
  },
  clear() {
    sessionStorage.removeItem(KEY_NAME);
  },
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function authHeaders(extra = {}) {
  return { Authorization: `Bearer ${session.key}`, ...extra };
}

// A 401 means the key was revoked or mistyped: the app goes back to the sign-in form.
function signedOut() {
  session.clear();
  window.dispatchEvent(new CustomEvent("console:signed-out"));
}

async function errorOf(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    const detail = body.error ?? body.detail;
    if (typeof detail === "string") message = detail;
    else if (Array.isArray(detail)) message = detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
  } catch {
    // Not JSON (a proxy's page): the status line says enough.
  }
  return new ApiError(response.status, message);
}

export async function request(path, { method = "GET", json, form, signal, headers = {} } = {}) {
  const init = { method, signal, headers: authHeaders(headers) };
  if (json !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  } else if (form !== undefined) {
    init.body = form;
  }
  const response = await fetch(path, init);
  if (response.status === 401) signedOut();
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function getJson(path, options) {
  return (await request(path, options)).json();
}

export async function postJson(path, json, options = {}) {
  return (await request(path, { ...options, method: "POST", json })).json();
}

// A query string of the parameters that are set.
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
