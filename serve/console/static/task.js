// One task: its status, its feed kept live from the event stream, its structured output with
// citations and, where an extraction found a value, its confidence (marked when under the review
// threshold), and the cited page with the value's box drawn on it.

import { ApiError, getJson } from "./api.js";
import { boxFractions, describe, fileIdsByName, isCitedLeaf, pageSizeOf } from "./citations.js";
import { clear, errorBox, h, markSelected, statusBadge, when } from "./dom.js";
import { feedEntry } from "./feed.js";
import { confidenceNote, extractedConfidences, needsCheck, reviewSummary, reviewThreshold, valueKey } from "./review.js";
import { followEvents } from "./sse.js";
import { PageViewer } from "./viewer.js";

const TERMINAL = new Set(["completed", "failed", "stopped"]);
const POLL_MS = 1500;

export function taskView(taskId, signal) {
  const base = `/api/v1/tasks/${encodeURIComponent(taskId)}`;
  const seen = new Set();
  // The feed's tool results, where the extractions' confidences are (the output's leaves carry none).
  const toolResults = [];
  const viewer = new PageViewer();
  const status = h("span", { id: "task-status" });
  const live = h("span", { id: "feed-state", class: "feed-state" }, "connecting");
  const feedList = h("ol", { id: "feed", class: "feed" });
  const children = h("ul", { id: "children", class: "children" });
  const output = h("div", { id: "structured-output", class: "output" }, h("p", { class: "hint" }, "Loading…"));
  const header = h("div", { class: "task-header" }, h("h1", {}, "Task"), status);
  const meta = h("dl", { class: "task-meta" });

  const root = h(
    "section",
    { class: "task-view" },
    h("p", {}, h("a", { href: "#/tasks" }, "← Tasks")),
    header,
    meta,
    h(
      "div",
      { class: "task-columns" },
      h("div", { class: "panel" }, h("h2", {}, "Feed ", live), feedList, children),
      h("div", { class: "panel" }, h("h2", {}, "Structured output"), output, viewer.root),
    ),
  );

  function setStatus(value) {
    clear(status, statusBadge(value));
    root.dataset.status = value;
  }

  // `live` marks an item first seen on the event stream (not in the history loaded on open).
  function addItem(item, live = false) {
    if (item.seq === undefined || seen.has(item.seq)) return;
    seen.add(item.seq);
    if (item.type === "tool_result") toolResults.push(item);
    const entry = feedEntry(item);
    if (live) {
      entry.classList.add("fresh");
      entry.dataset.arrived = "live";
    }
    // Items arrive in order, except when the history and the stream overlap: keep seq order.
    const after = [...feedList.children].find((li) => Number(li.dataset.seq) > item.seq);
    feedList.insertBefore(entry, after ?? null);
  }

  function addChildEvent({ task_id: childId, event, data }) {
    const text = event === "status" ? `${data.from} → ${data.to}` : data.type;
    children.append(
      h("li", {}, h("a", { href: `#/tasks/${childId}` }, `child ${childId.slice(0, 8)}`), `: ${text}`),
    );
  }

  async function loadRecord() {
    const task = await getJson(base, { signal });
    clear(header.querySelector("h1"), task.title || task.query?.slice(0, 80) || "Task");
    setStatus(task.status);
    clear(
      meta,
      h("dt", {}, "Task"), h("dd", {}, h("code", {}, task.task_id)),
      h("dt", {}, "Agent"), h("dd", {}, `${task.agent_name ?? ""} (version ${task.version_number ?? "?"})`),
      h("dt", {}, "Created"), h("dd", {}, when(task.created_at)),
      task.pause?.question ? [h("dt", {}, "Question"), h("dd", {}, task.pause.question)] : null,
      task.error ? [h("dt", {}, "Error"), h("dd", { class: "error-text" }, task.error)] : null,
    );
    return task;
  }

  async function loadFeed() {
    const body = await getJson(`${base}/result`, { signal });
    for (const item of body.feed) addItem(item);
    return body.status;
  }

  let renderedOutput = null;

  async function loadOutput() {
    let body;
    let threshold;
    try {
      body = await getJson(`${base}/structured-response?include_citations=true`, { signal });
      threshold = await reviewThreshold(signal);
    } catch (error) {
      renderedOutput = null;
      clear(output, errorBox(error));
      return;
    }
    if (body.structured_response === undefined) {
      renderedOutput = null;
      clear(output, h("p", { class: "hint" }, body.message || body.error || "No structured output."));
      return;
    }
    // The status change and the stream's `end` both ask again: an unchanged answer keeps the
    // rendered tree, so a value the user is about to click is not replaced under the pointer.
    // (A document's link is signed afresh on each answer, so its query string is left out.)
    const links = (body.documents || []).map((d) => ({ ...d, url: (d.url || "").split("?")[0] }));
    const reasons = new Map();
    const confidences = extractedConfidences(toolResults, reasons);
    const key = JSON.stringify({ ...body, documents: links, confidences: [...confidences] });
    if (key === renderedOutput) return;
    renderedOutput = key;
    const documents = body.documents || [];
    const shown = [];
    const context = { documents, fileIds: fileIdsByName(documents), viewer, confidences, reasons, threshold, shown };
    const tree = outputTree(body.structured_response, context);
    clear(output, shown.length ? reviewSummary(shown, threshold, "output-review") : null, tree);
  }

  // Live from the event stream; polling only where the service has no stream to give.
  async function follow() {
    try {
      await followEvents(`${base}/events`, {
        signal,
        onState: (state) => clear(live, state),
        onEvent: ({ type, data }) => {
          if (type === "feed") addItem(data, true);
          else if (type === "status") {
            addItem({ type: "status_changed", ...data }, true);
            setStatus(data.to);
            if (TERMINAL.has(data.to) || data.to === "waiting_for_input") loadOutput();
          } else if (type === "child") addChildEvent(data);
          else if (type === "end") {
            setStatus(data.status);
            clear(live, "ended");
            loadRecord().then(loadOutput);
          }
        },
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return poll();
      clear(live, "stopped");
      root.append(errorBox(error));
    }
  }

  async function poll() {
    clear(live, "polling");
    while (!signal.aborted) {
      const state = await loadFeed();
      setStatus(state);
      if (TERMINAL.has(state)) {
        clear(live, "ended");
        await loadRecord();
        await loadOutput();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  (async () => {
    try {
      await loadRecord();
      await loadFeed();
      await loadOutput();
      await follow();
    } catch (error) {
      if (!signal.aborted) root.append(errorBox(error));
    }
  })();
  signal.addEventListener("abort", () => viewer.release());
  return root;
}

// The structured output as nested lists; a cited value is a button that shows its page.
function outputTree(value, context, path = "") {
  if (isCitedLeaf(value)) return citedValue(value, context, path);
  if (Array.isArray(value)) {
    return h("ol", { class: "tree" }, value.map((item, i) => h("li", {}, outputTree(item, context, `${path}[${i}]`))));
  }
  if (value !== null && typeof value === "object") {
    return h(
      "dl",
      { class: "tree" },
      Object.entries(value).map(([key, child]) => [
        h("dt", {}, key),
        h("dd", {}, outputTree(child, context, path ? `${path}.${key}` : key)),
      ]),
    );
  }
  return h("span", { class: "plain-value" }, value === null ? "null" : String(value));
}

function citedValue(leaf, { documents, fileIds, viewer, confidences, reasons, threshold, shown }, path) {
  const citations = leaf.bounding_boxes;
  const drawable = citations.filter((c) => c.page !== undefined && fileIds[c.file]);
  async function showCitation(citation) {
    // Every box of this value on the same page is drawn, so a value read twice shows twice.
    const onPage = drawable.filter((c) => c.file === citation.file && c.page === citation.page);
    const size = pageSizeOf(documents, citation.file, citation.page);
    const boxes = onPage.map((c) => boxFractions(c, size)).filter(Boolean);
    await viewer.show({ fileId: fileIds[citation.file], page: citation.page, boxes, caption: citation.file });
  }
  const button = h(
    "button",
    {
      type: "button",
      class: "cited-value",
      dataset: { path },
      title: citations.map(describe).join("\n"),
      onclick: (event) => {
        markSelected(event.currentTarget);
        return drawable.length ? showCitation(drawable[0]) : viewer.empty(citations.map(describe).join("; "));
      },
    },
    String(leaf.value),
    h("span", { class: "cite-count" }, String(citations.length)),
  );
  // A value the search found in a document, not an extraction, has no confidence to show.
  const confidence = confidences.get(valueKey(leaf.value));
  if (confidence === undefined) return button;
  shown.push(confidence);
  const check = needsCheck(confidence, threshold);
  return h(
    "span",
    { class: check ? "cited-leaf to-check" : "cited-leaf", dataset: { path, check: String(check) } },
    button,
    confidenceNote(confidence, threshold, reasons.get(valueKey(leaf.value))),
  );
}
