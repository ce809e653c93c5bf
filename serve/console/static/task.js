// One task: its status, what it waits for from you when paused (a reply or a review,
// task_actions.js), its feed kept live from the event stream, its structured output with
// citations and, where an extraction found a value, its confidence (marked when under the review
// threshold), and the cited page with the value's box drawn on it. A reviewer corrects the output's
// values and marks them checked (corrections.js); a missing value reads as such, never `null`.

import { ApiError, getJson } from "./api.js";
import { boxFractions, describe, fileIdsByName, isCitedLeaf, pageSizeOf } from "./citations.js";
import { asText, CorrectionControl, missingWords, present, saveCorrections } from "./corrections.js";
import { clear, errorBox, h, markSelected, statusBadge, when } from "./dom.js";
import { feedEntry } from "./feed.js";
import { confidenceNote, extractedConfidences, needsCheck, reviewSummary, reviewThreshold, valueKey } from "./review.js";
import { followEvents } from "./sse.js";
import { TaskActions, pausedOutputNote } from "./task_actions.js";
import { PageViewer } from "./viewer.js";

const TERMINAL = new Set(["completed", "failed", "stopped"]);
const PAUSED = new Set(["waiting_for_input", "awaiting_review"]);
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
  const actions = new TaskActions(base, { signal, reload: () => loadRecord() });

  const root = h(
    "section",
    { class: "task-view" },
    h("p", {}, h("a", { href: "#/tasks" }, "← Tasks")),
    header,
    meta,
    actions.root,
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
      task.error ? [h("dt", {}, "Error"), h("dd", { class: "error-text" }, task.error)] : null,
    );
    actions.show(task);
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
      const note = pausedOutputNote(body.status) || body.message || body.error || "No structured output.";
      clear(output, h("p", { class: "hint" }, note));
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
    const controls = [];
    const saved = body.corrections || {};
    const context = { documents, fileIds: fileIdsByName(documents), viewer, confidences, reasons, threshold, shown, saved, controls };
    const tree = outputTree(body.structured_response, context);
    clear(
      output,
      shown.length ? reviewSummary(shown, threshold, "output-review") : null,
      controls.length ? outputCorrections(`${base}/corrections`, controls, output, signal) : null,
      tree,
    );
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
            // Into or out of a pause: the record says what is asked now (the reply or review panel).
            if (PAUSED.has(data.to) || PAUSED.has(data.from)) loadRecord().catch(() => undefined);
            if (TERMINAL.has(data.to) || PAUSED.has(data.to)) loadOutput();
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
      const before = root.dataset.status;
      const state = await loadFeed();
      setStatus(state);
      if (state !== before && (PAUSED.has(state) || PAUSED.has(before))) await loadRecord();
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
  return correctable(h("span", { class: present(value) ? "plain-value" : "plain-value missing-value" }, present(value) ? String(value) : missingWords()), value, context, path);
}

// A leaf with its correction controls (shown while the reviewer corrects) and, when the service
// keeps a correction of it, the corrected value beside the one written.
function correctable(shownValue, value, { saved, controls }, path) {
  if (!path) return shownValue;
  const kept = h("span", { class: "kept-value", hidden: true, dataset: { path } });
  const showKept = (correction) => {
    kept.hidden = !correction;
    clear(kept, correction ? ["→ ", present(correction.value) ? String(correction.value) : missingWords(), correction.checked ? " ✓" : ""] : null);
    leaf.classList.toggle("corrected", Boolean(correction) && asText(correction.value) !== asText(value));
  };
  const control = new CorrectionControl({
    name: path,
    original: value,
    saved: saved[path],
    label: path,
    inputClass: "output-correct",
    placeholder: "the right value",
    onKeep: (correction) => showKept(correction),
  });
  controls.push(control);
  const leaf = h("span", { class: "output-leaf", dataset: { path } }, shownValue, kept, control.root);
  showKept(saved[path]);
  return leaf;
}

// "Correct values" opens every leaf's input and "checked" box; "Save corrections" sends them.
function outputCorrections(path, controls, output, signal) {
  const toggle = h("button", { type: "button", id: "output-correct", class: "quiet", "aria-pressed": "false" }, "Correct values");
  const save = h("button", { type: "button", id: "output-save-corrections", hidden: true }, "Save corrections");
  const message = h("span", { id: "output-corrections-message", class: "hint", "aria-live": "polite" });
  toggle.addEventListener("click", () => {
    const editing = !output.classList.contains("editing");
    output.classList.toggle("editing", editing);
    toggle.setAttribute("aria-pressed", String(editing));
    save.hidden = !editing;
  });
  save.addEventListener("click", async () => {
    save.disabled = true;
    try {
      const count = await saveCorrections(path, "paths", controls, signal);
      clear(message, count ? `Saved ${count} value${count === 1 ? "" : "s"}.` : "Nothing to save: correct a value or tick it checked.");
      message.dataset.saved = String(count);
    } catch (error) {
      if (!signal.aborted) clear(message, errorBox(error));
    } finally {
      save.disabled = false;
    }
  });
  return h("div", { class: "corrections-save" }, toggle, " ", save, " ", message);
}

function citedValue(leaf, context, path) {
  const { documents, fileIds, viewer, confidences, reasons, threshold, shown } = context;
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
    present(leaf.value) ? String(leaf.value) : missingWords(),
    h("span", { class: "cite-count" }, String(citations.length)),
  );
  // A value the search found in a document, not an extraction, has no confidence to show.
  const confidence = confidences.get(valueKey(leaf.value));
  if (confidence === undefined) return correctable(button, leaf.value, context, path);
  shown.push(confidence);
  const check = needsCheck(confidence, threshold);
  return correctable(
    h(
      "span",
      { class: check ? "cited-leaf to-check" : "cited-leaf", dataset: { path, check: String(check) } },
      button,
      confidenceNote(confidence, threshold, reasons.get(valueKey(leaf.value))),
    ),
    leaf.value,
    context,
    path,
  );
}
