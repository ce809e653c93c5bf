// The console's shell: sign-in, navigation by URL hash, one view at a time.

import { ApiError, getJson, session } from "./api.js";
import { batchesView, batchView } from "./batch.js";
import { clear, errorBox, h } from "./dom.js";
import { agentsView, tasksView } from "./lists.js";
import { playgroundView } from "./playground.js";
import { taskView } from "./task.js";

const view = document.getElementById("view");
const login = document.getElementById("login");
const nav = document.getElementById("nav");
const signOutButton = document.getElementById("sign-out");
const loginError = document.getElementById("login-error");

// Each view gets an AbortSignal: leaving it cancels its requests, streams and timers.
let current = null;

function showLogin(message) {
  current?.abort();
  current = null;
  clear(view);
  nav.hidden = true;
  signOutButton.hidden = true;
  login.hidden = false;
  loginError.hidden = !message;
  loginError.textContent = message || "";
  document.getElementById("api-key").focus();
}

function route() {
  if (!session.key) return showLogin();
  login.hidden = true;
  nav.hidden = false;
  signOutButton.hidden = false;
  current?.abort();
  current = new AbortController();
  const { signal } = current;
  const [path, search = ""] = (location.hash.slice(1) || "/tasks").split("?");
  const params = new URLSearchParams(search);
  const parts = path.split("/").filter(Boolean);
  let node;
  if (parts[0] === "agents") node = agentsView(signal);
  else if (parts[0] === "tasks" && parts[1]) node = taskView(decodeURIComponent(parts[1]), signal);
  else if (parts[0] === "playground") node = playgroundView(signal, parts[1] ? decodeURIComponent(parts[1]) : null);
  else if (parts[0] === "batches" && parts[1]) {
    node = batchView(decodeURIComponent(parts[1]), parts[2] ? decodeURIComponent(parts[2]) : null, params, signal);
  } else if (parts[0] === "batches") node = batchesView(signal);
  else node = tasksView(params, signal);
  for (const link of nav.querySelectorAll("a")) {
    link.classList.toggle("active", link.dataset.view === (parts[0] || "tasks"));
  }
  clear(view, node);
}

document.getElementById("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("api-key");
  const key = input.value.trim();
  if (!key) return;
  session.set(key);
  try {
    // Any cheap authenticated read proves the key before the app opens.
    await getJson("/api/v1/agents?limit=1");
    input.value = "";
    route();
  } catch (error) {
    session.clear();
    showLogin(error instanceof ApiError && error.status === 401 ? "That key was not accepted." : error.message);
  }
});

signOutButton.addEventListener("click", () => {
  session.clear();
  showLogin();
});

window.addEventListener("console:signed-out", () => showLogin("Your key is no longer accepted; sign in again."));
window.addEventListener("hashchange", route);
window.addEventListener("unhandledrejection", (event) => {
  if (event.reason?.name === "AbortError") return;
  view.prepend(errorBox(event.reason));
});
route();
