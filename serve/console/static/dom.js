// Building DOM nodes from data. Text always goes in as text nodes, never as HTML: values read
// from documents and model output are shown exactly as they are and can never become markup.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

// The API's task statuses (docs/contract.md) in plain words; the badge keeps the API's name in
// `data-status` and its tooltip.
const STATUS_WORDS = {
  pending: "Pending",
  queued: "Queued",
  running: "Running",
  waiting_for_input: "Waiting for your answer",
  awaiting_review: "Waiting for your approval",
  completed: "Completed",
  failed: "Failed",
  stopped: "Stopped",
};

export function statusWords(status) {
  return STATUS_WORDS[status] ?? String(status).replaceAll("_", " ");
}

export function statusBadge(status) {
  return h(
    "span",
    { class: `status status-${status}`, "data-status": status, title: `status: ${status}` },
    statusWords(status),
  );
}

export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error?.message ?? String(error));
}

export function json(value) {
  return JSON.stringify(value, null, 2);
}

// Marks `button` as the cited value being shown, and no other in its view.
export function markSelected(button) {
  const view = button.closest("section") ?? document;
  for (const other of view.querySelectorAll(".cited-value.selected")) other.classList.remove("selected");
  button.classList.add("selected");
}
