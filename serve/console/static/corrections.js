// A reviewer's corrections of extracted values (docs/contract.md: `PUT /api/v2/jobs/{id}/corrections`
// for the playground's fields, `PUT /api/v1/tasks/{id}/corrections` for a task output's leaves): each
// value gets an input holding the right value and a "checked" box; the service keeps them with who
// made them and when, and the views show that beside the value as read.

import { request } from "./api.js";
import { h, when } from "./dom.js";

export const present = (value) => value !== null && value !== undefined;

// The value a reviewer starts from, as the text in its input.
export const asText = (value) => (present(value) ? String(value) : "");

// A missing value in words, never "null": the API's `state` says whether its label was printed
// with nothing written (`blank`) or nothing of it is on the page (`not_found`).
export function missingWords(state) {
  if (state === "blank") return "left blank";
  if (state === "not_found") return "not found on the page";
  return "no value";
}

// What was kept of a value (corrected, checked or both), by whom and when, in a few words.
function keptNote(saved, original) {
  const who = saved.by?.name || saved.by?.key_id || "someone";
  const corrected = asText(saved.value).trim() !== asText(original).trim();
  const what = corrected ? (saved.checked ? "corrected and checked" : "corrected") : "checked";
  return `${what} by ${who}, ${when(saved.at)}`;
}

// One value's controls. `original` is the value as read; `saved` the correction the service keeps
// (or undefined). `onChange(control)` runs when the reviewer types or ticks, `onKeep(saved)` when a
// save changed what the service keeps.
export class CorrectionControl {
  constructor({ name, original, saved, label, inputClass, placeholder, onChange, onKeep }) {
    this.name = name;
    this.onKeep = onKeep;
    this.original = original;
    this.saved = saved;
    this.input = h("input", {
      type: "text",
      class: inputClass,
      value: asText(saved ? saved.value : original),
      placeholder,
      "aria-label": `Right value of ${label}`,
      spellcheck: "false",
      dataset: { field: name },
    });
    this.checkbox = h("input", { type: "checkbox", class: "value-checked", checked: Boolean(saved?.checked), dataset: { field: name } });
    this.badge = h("span", { class: "corrected-badge", hidden: true }, "corrected");
    this.kept = h("span", { class: "kept-note hint", hidden: true });
    this.root = h(
      "div",
      { class: "correction" },
      this.input,
      h("label", { class: "checked-box", title: "I checked this value against the document" }, this.checkbox, " checked"),
      this.badge,
      this.kept,
    );
    const changed = () => {
      this.refresh();
      onChange?.(this);
    };
    this.input.addEventListener("input", changed);
    this.checkbox.addEventListener("change", changed);
    this.refresh();
  }

  // Whether the input holds another value than the one read.
  get corrected() {
    return this.input.value.trim() !== asText(this.original).trim();
  }

  get checked() {
    return this.checkbox.checked;
  }

  // The value to send: unchanged, as read (a number stays a number); emptied, null.
  value() {
    const text = this.input.value.trim();
    if (text === asText(this.original).trim()) return present(this.original) ? this.original : null;
    return text || null;
  }

  // What a PUT sends for this value: `{value, checked}`, null to withdraw a kept correction that is
  // neither a correction nor checked any more, undefined when there is nothing to say.
  entry() {
    if (this.corrected || this.checked) return { value: this.value(), checked: this.checked };
    return this.saved ? null : undefined;
  }

  // Whether the reviewer changed anything since the last save.
  get dirty() {
    const now = this.entry();
    if (now === undefined) return false;
    if (now === null || !this.saved) return true;
    return now.checked !== Boolean(this.saved.checked) || asText(now.value) !== asText(this.saved.value);
  }

  refresh() {
    this.badge.hidden = !this.corrected;
    this.badge.title = this.corrected ? `Read as ${present(this.original) ? `"${this.original}"` : "nothing"}` : "";
    this.kept.hidden = !this.saved || this.dirty;
    this.kept.textContent = this.saved ? keptNote(this.saved, this.original) : "";
  }

  // After a save: what the service now keeps for this value.
  keep(saved) {
    this.saved = saved;
    this.refresh();
    this.onKeep?.(saved);
  }
}

// Sends the entries of `controls` that say something and gives each control what is now kept.
// Returns how many entries were sent (0: nothing to save).
export async function saveCorrections(path, key, controls, signal) {
  const entries = {};
  for (const control of controls) {
    const entry = control.entry();
    if (entry !== undefined && control.dirty) entries[control.name] = entry;
  }
  const count = Object.keys(entries).length;
  if (!count) return 0;
  const reply = await (await request(path, { method: "PUT", json: { [key]: entries }, signal })).json();
  for (const control of controls) control.keep(reply.corrections[control.name]);
  return count;
}
