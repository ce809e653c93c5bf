// Batches of extraction jobs (/api/v2 batches): open one by id or extract one from files, see its
// documents with their counts of values to check, and work through them one document at a time in
// the playground's value and page view, "next to check" going on from one document to the next.

import { getJson, postJson, request, session } from "./api.js";
import { clear, errorBox, h, statusBadge } from "./dom.js";
import { bindKeys } from "./keys.js";
import { correctionsSaver, resultTable } from "./playground.js";
import { CheckWalker, checkControls, marksInPageOrder } from "./queue.js";
import { reviewSummary, reviewThreshold } from "./review.js";
import { PageViewer } from "./viewer.js";

const POLL_MS = 2000;
const FETCHES = 4; // job results read at once
const BATCHES_PAGE = 20;

// A completed job's result never changes: read once per key, it is kept while the tab lives, so
// going from one document to the next does not read the batch's results again.
const cache = { key: null, jobs: new Map() };

function cachedJob(recordId) {
  if (cache.key !== session.key) {
    cache.key = session.key;
    cache.jobs.clear();
  }
  return cache.jobs.get(recordId);
}

function keepJob(job) {
  if (job.status === "completed" || job.status === "failed") cache.jobs.set(job.record_id, job);
}

const shortId = (id) => String(id).slice(0, 8);
const batchHash = (batchId, recordId = "", check = "") =>
  `#/batches/${encodeURIComponent(batchId)}${recordId ? `/${encodeURIComponent(recordId)}` : ""}${check ? `?check=${check}` : ""}`;

// The workspace's batches, newest first, a page at a time (GET /api/v2/batches).
function workspaceBatches(signal) {
  const body = h("tbody", {});
  const more = h("button", { type: "button", class: "quiet", id: "batch-more", hidden: true }, "More");
  const root = h(
    "div",
    { id: "batch-recent" },
    h("h2", {}, "Batches in this workspace"),
    h(
      "table",
      { class: "list", id: "batch-list" },
      h("thead", {}, h("tr", {}, h("th", {}, "Batch"), h("th", {}, "Created"), h("th", {}, "Documents"), h("th", {}, "Status"))),
      body,
    ),
    more,
  );
  let cursor = "";
  const load = async () => {
    more.disabled = true;
    try {
      const page = await getJson(`/api/v2/batches?limit=${BATCHES_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { signal });
      if (!cursor && page.data.length === 0) body.append(h("tr", {}, h("td", { colspan: 4, class: "hint" }, "No batches yet.")));
      for (const batch of page.data) {
        const counts = Object.entries(batch.counts).map(([status, n]) => `${n} ${status}`).join(", ");
        body.append(
          h(
            "tr",
            { dataset: { batchId: batch.batch_id } },
            h("td", {}, h("a", { href: batchHash(batch.batch_id) }, shortId(batch.batch_id))),
            h("td", {}, new Date(batch.created_at).toLocaleString()),
            h("td", { class: "num" }, String(batch.total)),
            h("td", {}, `${batch.kind}: ${counts}`),
          ),
        );
      }
      cursor = page.next_cursor;
      more.hidden = !page.has_more;
    } catch (error) {
      if (!signal.aborted) root.append(errorBox(error));
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener("click", load);
  load();
  return root;
}

// `#/batches`: open a batch by id, or extract one from files.
export function batchesView(signal) {
  const idInput = h("input", { id: "batch-open-id", name: "batch_id", type: "text", required: true, spellcheck: "false", placeholder: "batch id" });
  const open = h(
    "form",
    { class: "playground-form", id: "batch-open" },
    h("h2", {}, "Open a batch"),
    h("label", { for: "batch-open-id" }, "Batch id (from POST /api/v2/extract/async with a list input)"),
    idInput,
    h("button", { type: "submit" }, "Open"),
  );
  open.addEventListener("submit", (event) => {
    event.preventDefault();
    if (idInput.value.trim()) location.hash = batchHash(idInput.value.trim());
  });
  return h(
    "section",
    { class: "batches" },
    h("h1", {}, "Batches"),
    h(
      "div",
      { class: "task-columns" },
      h(
        "div",
        { class: "panel" },
        open,
        workspaceBatches(signal),
      ),
      h("div", { class: "panel" }, newBatchForm(signal)),
    ),
  );
}

// Files and field names in, a batch of extraction jobs out (one job per file), opened at once.
function newBatchForm(signal) {
  const files = h("input", { id: "batch-files", type: "file", multiple: true, required: true, accept: ".pdf,image/*" });
  const fields = h("input", { id: "batch-fields", type: "text", required: true, spellcheck: "false", placeholder: "first_name, last_name, date_of_birth" });
  const submit = h("button", { type: "submit", id: "batch-extract" }, "Extract the batch");
  const status = h("div", { role: "status" });
  const form = h(
    "form",
    { class: "playground-form", id: "batch-new" },
    h("h2", {}, "Extract a batch"),
    h("label", { for: "batch-files" }, "Documents (PDFs or images)"),
    files,
    h("label", { for: "batch-fields" }, "Fields (comma-separated)"),
    fields,
    submit,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const names = fields.value.split(",").map((f) => f.trim()).filter(Boolean);
    if (!files.files.length || !names.length) return;
    submit.disabled = true;
    try {
      const inputs = [];
      for (const file of files.files) {
        clear(status, h("p", { class: "hint" }, `Uploading ${file.name}…`));
        const upload = new FormData();
        upload.append("file", file, file.name);
        inputs.push((await (await request("/api/v2/files", { method: "POST", form: upload, signal })).json()).file_id);
      }
      const batch = await postJson("/api/v2/extract/async", { input: inputs, extraction_config: { json_options: names, prompt_mode: "rules" } }, { signal });
      location.hash = batchHash(batch.batch_id);
    } catch (error) {
      if (!signal.aborted) clear(status, errorBox(error));
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

// Reads the results of the batch's finished jobs that are not read yet, a few at a time.
async function readJobs(items, signal) {
  const wanted = items.filter((item) => item.record_id && item.status !== "processing" && !cachedJob(item.record_id));
  const worker = async () => {
    for (let item = wanted.shift(); item; item = wanted.shift()) {
      keepJob(await getJson(`/api/v2/jobs/${encodeURIComponent(item.record_id)}`, { signal }));
    }
  };
  await Promise.all(Array.from({ length: FETCHES }, worker));
}

// The batch's documents: each item with its job (once finished) and its marked values in page order.
function documentsOf(items, threshold) {
  return items.map((item, index) => {
    const job = item.record_id ? cachedJob(item.record_id) : undefined;
    const fields = job?.result?.fields;
    return {
      index,
      item,
      job,
      fields,
      name: job?.filename || item.input,
      marks: fields ? marksInPageOrder(fields, threshold) : [],
    };
  });
}

// `#/batches/<id>` lists the documents; `#/batches/<id>/<record_id>` shows one (`?check=first` or
// `last` starts the walk at its first or last value to check).
export function batchView(batchId, recordId, params, signal) {
  const body = h("div", {}, h("p", { class: "hint" }, "Loading the batch…"));
  const root = h("section", { class: "batch", id: "batch", dataset: { batchId } }, body);
  let shown = false; // a document view is drawn once its job is read; the list is redrawn as jobs finish
  let listKeys = null; // the keys of the list drawn last
  const load = async () => {
    try {
      const [batch, threshold] = await Promise.all([getJson(`/api/v2/batches/${encodeURIComponent(batchId)}`, { signal }), reviewThreshold(signal)]);
      await readJobs(batch.items, signal);
      const docs = documentsOf(batch.items, threshold);
      if (recordId) {
        // Drawn again until its job has finished, then left alone for the reviewer to work in.
        if (!shown) clear(body, documentView(batchId, docs, recordId, params.get("check"), threshold, signal));
        shown = Boolean(docs.find((doc) => doc.item.record_id === recordId)?.job) || !docs.some((doc) => doc.item.record_id === recordId);
      } else {
        listKeys?.abort();
        listKeys = new AbortController();
        signal.addEventListener("abort", () => listKeys.abort(), { once: true });
        clear(body, listView(batchId, docs, listKeys.signal));
      }
      if (batch.items.some((item) => item.status === "processing") && !signal.aborted) setTimeout(load, POLL_MS);
    } catch (error) {
      if (!signal.aborted) clear(body, h("h1", {}, `Batch ${shortId(batchId)}`), errorBox(error));
    }
  };
  load();
  return root;
}

const nextWithMarks = (docs, from, step) => {
  for (let i = from + step; i >= 0 && i < docs.length; i += step) if (docs[i].marks.length) return docs[i];
  return null;
};

function listView(batchId, docs, signal) {
  const toCheck = docs.reduce((sum, doc) => sum + doc.marks.length, 0);
  const first = nextWithMarks(docs, -1, 1);
  const start = () => {
    if (first) location.hash = batchHash(batchId, first.item.record_id, "first");
  };
  bindKeys({ n: start }, signal);
  const rows = docs.map((doc) =>
    h(
      "tr",
      { dataset: { recordId: doc.item.record_id ?? "", toCheck: String(doc.marks.length) } },
      h("td", { class: "num" }, String(doc.index + 1)),
      h("td", {}, doc.item.record_id ? h("a", { href: batchHash(batchId, doc.item.record_id) }, doc.name) : doc.name),
      h("td", {}, statusBadge(doc.item.status), doc.item.error ? h("div", { class: "error-text" }, doc.item.error) : null),
      h("td", { class: "num" }, doc.fields ? String(doc.marks.length) : ""),
    ),
  );
  return h(
    "div",
    {},
    h("h1", {}, `Batch ${shortId(batchId)}`),
    h(
      "p",
      { id: "batch-summary", class: toCheck ? "review-summary to-check" : "review-summary", dataset: { count: String(toCheck) } },
      `${docs.length} document${docs.length === 1 ? "" : "s"} · ${toCheck} value${toCheck === 1 ? "" : "s"} to check`,
      " ",
      first ? h("button", { type: "button", id: "batch-start", title: "Open the first value to check (n)", onclick: start }, "Start checking") : null,
    ),
    h(
      "table",
      { class: "list", id: "batch-docs" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Document"), h("th", {}, "Status"), h("th", {}, "To check"))),
      h("tbody", {}, rows),
    ),
  );
}

function documentView(batchId, docs, recordId, check, threshold, signal) {
  const doc = docs.find((d) => d.item.record_id === recordId);
  const heading = h("h1", {}, `Batch ${shortId(batchId)}`);
  if (!doc) return h("div", {}, heading, errorBox(new Error(`This batch has no job ${recordId}.`)));
  const link = (target, text, id) =>
    target?.item.record_id ? h("a", { href: batchHash(batchId, target.item.record_id), id }, text) : h("span", { class: "hint", id }, text);
  const nav = h(
    "p",
    { class: "batch-nav" },
    h("a", { href: batchHash(batchId), id: "batch-all" }, "All documents"),
    link(docs[doc.index - 1], "‹ Previous document", "batch-prev-doc"),
    h("span", { id: "batch-position", dataset: { index: String(doc.index) } }, `Document ${doc.index + 1} of ${docs.length}: ${doc.name}`),
    link(docs[doc.index + 1], "Next document ›", "batch-next-doc"),
  );
  const viewer = new PageViewer();
  signal.addEventListener("abort", () => viewer.release());
  const columns = (left) => h("div", { class: "task-columns" }, h("div", { class: "panel" }, left), h("div", { class: "panel" }, viewer.root));
  const root = h("div", { id: "batch-document", dataset: { recordId } }, heading, nav);
  if (!doc.fields) {
    const why = doc.job?.status === "completed" ? "This job extracted no values." : doc.item.error || doc.job?.message || "This document is still being read.";
    root.append(columns(h("p", { class: "hint" }, why)));
    return root;
  }
  const table = resultTable(doc.fields, doc.job.file_id, viewer, threshold, doc.job.corrections || {});
  const walker = new CheckWalker(table.root, viewer, doc.marks);
  // Past the document's last value (or before its first) the walk goes on in the next (previous)
  // document that has values to check.
  const beyond = async (step) => {
    const target = nextWithMarks(docs, doc.index, step);
    if (!target) return false;
    location.hash = batchHash(batchId, target.item.record_id, step > 0 ? "first" : "last");
    return true;
  };
  const controls = checkControls(walker, signal, { beyond, endText: "That was the last value to check in this batch." });
  const found = Object.values(doc.fields).filter((field) => field.value !== null && field.value !== undefined);
  // Corrections are saved with the job, as in the playground; teaching a config from this document
  // is the playground's (its address reopens this job with its corrections and "Save as example").
  const teach = h(
    "p",
    { class: "hint" },
    h("a", { href: `#/playground/${encodeURIComponent(recordId)}`, id: "batch-teach" }, "Save as example…"),
    " opens this document in the playground, with the corrections saved here.",
  );
  const saver = correctionsSaver(recordId, table.controls, signal);
  root.append(columns([reviewSummary(found.map((field) => field.confidence), threshold, "pg-review"), controls, table.root, saver, teach]));
  if (check === "first" || check === "last") {
    // Once the view is on the page, so its rows and the viewer have their sizes.
    requestAnimationFrame(() => controls.querySelector(check === "first" ? "#queue-next" : "#queue-prev").click());
  }
  return root;
}
