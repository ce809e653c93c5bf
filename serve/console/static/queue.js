// "Next to check": the values under the review threshold of a document, walked in page order (page,
// then top to bottom, then left to right), each shown on its page, zoomed to its box, its row in
// focus. Keys `n` and `p` walk, as the buttons do; past a document's last value a batch goes on
// with its next document (batch.js).

import { boxFractions } from "./citations.js";
import { h } from "./dom.js";
import { bindKeys } from "./keys.js";
import { needsCheck } from "./review.js";

// Words on one printed line differ in their tops by a little: a line is this share of the page.
const LINE = 1 / 200;

const present = (value) => value !== null && value !== undefined;

// The marked values of `fields` (an extraction's `result.fields`) as [{name, page, top, left}] in
// page order; a value with no place on a page comes after those with one.
export function marksInPageOrder(fields, threshold) {
  const marks = [];
  for (const [name, field] of Object.entries(fields ?? {})) {
    if (!present(field?.value) || !needsCheck(field.confidence, threshold)) continue;
    const onPage = (field.citations ?? []).filter((c) => c.page !== undefined);
    const box = onPage.length ? boxFractions(onPage[0]) : null;
    marks.push({
      name,
      page: onPage[0]?.page ?? Infinity,
      top: box ? Math.round(box.top / LINE) : Infinity,
      left: box?.left ?? Infinity,
    });
  }
  // Stable: two values at one place keep the order the fields were asked in.
  return marks.sort((a, b) => a.page - b.page || a.top - b.top || a.left - b.left || 0);
}

// Walks `marks` over a result table (rows `tr[data-field]`, each found value a `button.cited-value`
// that shows its page in `viewer`).
export class CheckWalker {
  constructor(table, viewer, marks) {
    this.table = table;
    this.viewer = viewer;
    this.marks = marks;
    this.index = -1;
  }

  get current() {
    return this.marks[this.index] ?? null;
  }

  // Moves by `step` (+1 or -1); false, and no move, past either end.
  move(step) {
    const index = this.index < 0 && step < 0 ? this.marks.length - 1 : this.index + step;
    if (index < 0 || index >= this.marks.length) return false;
    this.go(index);
    return true;
  }

  go(index) {
    this.index = index;
    const { name } = this.marks[index];
    for (const row of this.table.querySelectorAll("tr.current-check")) row.classList.remove("current-check");
    const row = [...this.table.querySelectorAll("tr[data-field]")].find((r) => r.dataset.field === name);
    if (!row) return;
    row.classList.add("current-check");
    row.scrollIntoView({ block: "nearest" });
    const button = row.querySelector("button.cited-value");
    if (!button) return;
    button.click(); // the table's own way of showing the value's page
    button.focus({ preventScroll: true });
    this.viewer.focusBox(0);
  }
}

// The queue's walk on the page: buttons, the keys `n`/`p`, and where the walk is. `beyond(step)`
// is asked when the walk would leave the document (true: it went on elsewhere). One queue listens to
// the keys at a time: a new one (a new extraction) replaces the last.
let listening = null;

export function checkControls(walker, signal, { beyond = async () => false, endText = "That was the last value to check." } = {}) {
  listening?.abort();
  const keys = new AbortController();
  listening = keys;
  signal.addEventListener("abort", () => keys.abort(), { once: true });

  const position = h("span", { id: "queue-position", class: "queue-position", role: "status" });
  const say = () => {
    const mark = walker.current;
    position.dataset.field = mark?.name ?? "";
    position.dataset.index = String(walker.index);
    position.textContent = mark
      ? `Value ${walker.index + 1} of ${walker.marks.length} to check: ${mark.name}`
      : walker.marks.length
        ? `${walker.marks.length} value${walker.marks.length === 1 ? "" : "s"} to check: press n`
        : "No values to check in this document.";
  };
  const step = async (direction) => {
    if (walker.move(direction)) return say();
    if (await beyond(direction)) return;
    position.textContent = direction > 0 ? endText : "This is the first value to check.";
  };
  bindKeys({ n: () => step(1), p: () => step(-1) }, keys.signal);
  say();
  return h(
    "div",
    { class: "check-queue", id: "check-queue" },
    h("button", { type: "button", class: "quiet", id: "queue-prev", title: "Previous value to check (p)", onclick: () => step(-1) }, "‹ Previous to check"),
    h("button", { type: "button", id: "queue-next", title: "Next value to check (n)", onclick: () => step(1) }, "Next to check ›"),
    position,
  );
}
