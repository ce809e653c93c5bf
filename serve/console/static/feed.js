// One feed item (docs/contract.md section 3, `GET /tasks/{id}/result`) as a list entry.

import { dataView } from "./data.js";
import { h, json, statusWords, when } from "./dom.js";

// A call's arguments exactly as sent (JSON); a result as data (a table of keys and values).
function details(summary, value) {
  return h("details", {}, h("summary", {}, summary), h("pre", {}, json(value)));
}

function dataDetails(summary, value) {
  return h("details", { class: "tool-output" }, h("summary", {}, summary), dataView(value));
}

function body(item) {
  switch (item.type) {
    case "user_message": {
      const files = (item.files || []).map((f) => f.file || f.filename || f).join(", ");
      return [h("p", { class: "text" }, item.text ?? ""), files ? h("p", { class: "meta" }, `files: ${files}`) : null];
    }
    case "assistant_message":
      return h("p", { class: "text" }, item.text ?? "");
    case "tool_call":
      return details(`${item.tool_name}(…)`, item.arguments ?? {});
    case "tool_result":
      return item.status === "error"
        ? h("p", { class: "error-text" }, `${item.tool_name}: ${typeof item.error === "string" ? item.error : json(item.error)}`)
        : dataDetails(`${item.tool_name} → ok`, item.output ?? null);
    case "message_sent":
      return h("p", { class: "text" }, item.text ?? item.reason ?? "");
    case "status_changed":
      return h("p", { class: "text" }, `${statusWords(item.from)} → ${statusWords(item.to)}`);
    default:
      return details(item.type, item);
  }
}

const LABELS = {
  user_message: "user",
  assistant_message: "assistant",
  tool_call: "tool call",
  tool_result: "tool result",
  status_changed: "status",
};

// The system messages' kinds (`message_sent.kind`) in plain words.
const KINDS = {
  ask_user: "question",
  failure_pause: "paused after a failure",
  review_requested: "approval requested",
  review_decision: "review decision",
  delegation_summary: "delegated tasks",
  context_elided: "context shortened",
};

function plain(name) {
  return String(name).replaceAll("_", " ");
}

export function feedEntry(item) {
  const label =
    item.type === "message_sent" ? KINDS[item.kind] || plain(item.kind || "message") : LABELS[item.type] || plain(item.type);
  return h(
    "li",
    { class: `feed-item feed-${item.type}`, dataset: { seq: String(item.seq), type: item.type } },
    h("div", { class: "feed-head" }, h("span", { class: "feed-label" }, label), h("time", {}, when(item.created_at))),
    body(item),
  );
}
