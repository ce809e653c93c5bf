// Data as people read it: an object as a table of its keys and values, a list as a numbered list,
// nested to any depth; text that holds JSON is shown as the data it holds. Never markup from the
// data itself (dom.js `h` makes text nodes), never an escaped JSON string, never a bare `null`.

import { h } from "./dom.js";

// Items of one list shown before "… N more" (a parse's elements can number in the thousands).
const MAX_ITEMS = 50;

// Text that is a JSON object or array (a tool that answered with JSON text) as that data.
function parsed(value) {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (!(text.startsWith("{") && text.endsWith("}")) && !(text.startsWith("[") && text.endsWith("]"))) return value;
  try {
    return JSON.parse(text);
  } catch {
    return value;
  }
}

function scalar(value) {
  if (value === null || value === undefined) return h("span", { class: "hint missing-value" }, "no value");
  if (typeof value === "boolean") return h("span", { class: "data-bool" }, value ? "yes" : "no");
  if (typeof value === "string" && !value.trim()) return h("span", { class: "hint" }, "(empty text)");
  return h("span", { class: typeof value === "number" ? "data-number" : "data-text" }, String(value));
}

export function dataView(input) {
  const value = parsed(input);
  if (Array.isArray(value)) {
    if (!value.length) return h("span", { class: "hint" }, "(empty list)");
    const rest = value.length - MAX_ITEMS;
    return h(
      "ol",
      { class: "tree data-list" },
      value.slice(0, MAX_ITEMS).map((item) => h("li", {}, dataView(item))),
      rest > 0 ? h("li", { class: "hint" }, `… ${rest} more`) : null,
    );
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (!entries.length) return h("span", { class: "hint" }, "(nothing)");
    return h(
      "table",
      { class: "data-table" },
      h("tbody", {}, entries.map(([key, child]) => h("tr", {}, h("th", { scope: "row" }, key), h("td", {}, dataView(child))))),
    );
  }
  return scalar(value);
}
