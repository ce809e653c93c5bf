// Each extracted value's confidence, and the mark on the values a person should check: those under
// the service's review threshold (AGENTRY_REVIEW_CONFIDENCE, served in config.json).

import { h } from "./dom.js";

let config = null;

// The threshold, read once per page load; a failed read is tried again on the next call.
export async function reviewThreshold(signal) {
  if (!config) {
    config = fetch("config.json", { signal }).then(async (response) => {
      if (!response.ok) throw new Error(`The console's settings could not be read (${response.status}).`);
      return response.json();
    });
    config.catch(() => {
      config = null;
    });
  }
  return (await config).review_confidence;
}

// Rounded down, so a value just under the threshold never reads as the threshold itself (0.897 is 89%).
export function percent(confidence) {
  return `${Math.floor(confidence * 100 + 1e-9)}%`;
}

export function needsCheck(confidence, threshold) {
  return typeof confidence === "number" && confidence < threshold;
}

// The confidence as a percentage, with a "check" badge when it is under the threshold. Beside the
// badge its reason is written out for screen readers, which read that instead of the bare word, and
// what lowered the confidence (the field's `review_reasons`) in both the hover text and that text.
export function confidenceNote(confidence, threshold, reasons = []) {
  if (typeof confidence !== "number") return null;
  const low = needsCheck(confidence, threshold);
  const why = Array.isArray(reasons) && reasons.length ? `: ${reasons.join("; ")}` : "";
  return h(
    "span",
    { class: low ? "confidence low" : "confidence", dataset: { confidence: String(confidence), check: String(low) } },
    h("span", { class: "confidence-value", title: "How likely this value is right" }, percent(confidence)),
    low ? h("span", { class: "check-badge", title: `Confidence under ${percent(threshold)}${why}`, "aria-hidden": "true" }, "check") : null,
    low ? h("span", { class: "visually-hidden" }, `Check this value against the document: confidence under ${percent(threshold)}${why}`) : null,
  );
}

// "N values to check", or that none are, for the top of a set of values.
export function reviewSummary(confidences, threshold, id) {
  const count = confidences.filter((c) => needsCheck(c, threshold)).length;
  const text = count
    ? `${count} value${count === 1 ? "" : "s"} to check (confidence under ${percent(threshold)})`
    : `No values to check: every value's confidence is ${percent(threshold)} or more`;
  return h("p", { id, class: count ? "review-summary to-check" : "review-summary", role: "status", dataset: { count: String(count) } }, text);
}

// How a structured output's leaf is matched to an extracted value: the service does the same
// (actors/citations.py `value_key`) when it gives a leaf the extraction's citations.
export function valueKey(value) {
  if (typeof value === "number") return `number:${value}`;
  if (typeof value === "string" && value.trim()) return `text:${value.trim()}`;
  return null;
}

// The confidence of every value the task's extractions found, from their tool results in the feed
// (`{fields: {name: {value, confidence, citations, review_reasons}}}`); a value found twice keeps
// its lowest, and `reasons` what lowered that one.
export function extractedConfidences(items, reasons = new Map()) {
  const byValue = new Map();
  for (const item of items) {
    if (item.type !== "tool_result" || item.status === "error") continue;
    const fields = item.output?.fields;
    if (!fields || typeof fields !== "object") continue;
    for (const field of Object.values(fields)) {
      const key = valueKey(field?.value);
      if (key === null || typeof field.confidence !== "number") continue;
      if (byValue.has(key) && field.confidence >= byValue.get(key)) continue;
      byValue.set(key, field.confidence);
      reasons.set(key, field.review_reasons ?? []);
    }
  }
  return byValue;
}
