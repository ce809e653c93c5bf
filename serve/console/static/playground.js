// The extraction playground: upload a file, name fields (or pick a saved extract config), see each
// value with its confidence (the ones under the review threshold marked to check) and, on a click,
// the page with the value's box. A reviewer corrects the values and saves the document as an
// example of a config (teach.js); a value read from an example says which one.

import { getJson, postJson, request } from "./api.js";
import { boxFractions, describe } from "./citations.js";
import { configFields, configLabel, extractConfigs } from "./configs.js";
import { clear, errorBox, h, markSelected } from "./dom.js";
import { confidenceNote, needsCheck, reviewSummary, reviewThreshold } from "./review.js";
import { ExamplesList, shortId, teachPanel } from "./teach.js";
import { PageViewer } from "./viewer.js";

const POLL_MS = 500;

// A sync call whose job outlives the server's wait answers `processing`; the job is then polled.
async function settled(reply, signal) {
  let body = reply;
  while (body.status === "processing" && !signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    body = await getJson(`/api/v2/jobs/${encodeURIComponent(reply.record_id)}`, { signal });
  }
  return body;
}

export function playgroundView(signal) {
  const viewer = new PageViewer();
  const examples = new ExamplesList(signal);
  let configs = [];
  const configSelect = h("select", { id: "pg-config", name: "config_id" });
  const fileInput = h("input", { id: "pg-file", name: "file", type: "file", required: true, accept: ".pdf,image/*" });
  const fieldsInput = h("input", {
    id: "pg-fields",
    name: "fields",
    type: "text",
    required: true,
    placeholder: "first_name, last_name, date_of_birth",
    spellcheck: "false",
  });
  const modeSelect = h(
    "select",
    { id: "pg-mode", name: "prompt_mode" },
    h("option", { value: "rules" }, "rules (no model)"),
    h("option", { value: "auto" }, "auto (rules, then a model if configured)"),
    h("option", { value: "model" }, "model"),
  );
  const submit = h("button", { type: "submit", id: "pg-extract" }, "Extract");
  const results = h("div", { id: "pg-results" });
  const form = h(
    "form",
    { class: "playground-form" },
    h("label", { for: "pg-file" }, "Document (PDF or image)"),
    fileInput,
    h("label", { for: "pg-config" }, "Saved config"),
    configSelect,
    h("label", { for: "pg-fields" }, "Fields (comma-separated)"),
    fieldsInput,
    h("label", { for: "pg-mode" }, "Mode"),
    modeSelect,
    submit,
  );

  // A saved config brings its fields, mode and examples: the form shows its fields and takes no others.
  const chosenConfig = () => configs.find((config) => config.config_id === configSelect.value) ?? null;
  const fillConfigs = () => {
    const chosen = configSelect.value;
    clear(
      configSelect,
      h("option", { value: "" }, "none: name the fields below"),
      configs.map((config) => h("option", { value: config.config_id, selected: config.config_id === chosen }, configLabel(config))),
    );
  };
  configSelect.addEventListener("change", () => {
    const config = chosenConfig();
    if (config) {
      fieldsInput.value = configFields(config).join(", ");
      modeSelect.value = config.params?.prompt_mode ?? "auto";
    }
    fieldsInput.readOnly = Boolean(config);
    modeSelect.disabled = Boolean(config);
  });
  fillConfigs();
  extractConfigs(signal).then(
    (found) => {
      configs = found;
      fillConfigs();
    },
    (error) => {
      if (!signal.aborted) form.append(errorBox(error));
    },
  );

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = fileInput.files[0];
    const config = chosenConfig();
    const fields = config ? configFields(config) : fieldsInput.value.split(",").map((f) => f.trim()).filter(Boolean);
    if (!file || fields.length === 0) return;
    submit.disabled = true;
    viewer.empty();
    clear(results, h("p", { class: "hint" }, "Uploading…"));
    try {
      const upload = new FormData();
      upload.append("file", file, file.name);
      const uploaded = await (await request("/api/v2/files", { method: "POST", form: upload, signal })).json();
      clear(results, h("p", { class: "hint" }, "Extracting…"));
      const how = config
        ? { config_id: config.config_id }
        : { extraction_config: { json_options: fields, prompt_mode: modeSelect.value } };
      const reply = await postJson("/api/v2/extract/sync", { input: uploaded.file_id, ...how }, { signal });
      const body = await settled(reply, signal);
      if (body.status !== "completed") throw new Error(body.error || body.message || `extraction ${body.status}`);
      const missing = Object.entries(body.result.fields)
        .filter(([, field]) => field.value === null || field.value === undefined)
        .map(([name]) => name);
      const threshold = await reviewThreshold(signal);
      const found = Object.values(body.result.fields).filter((field) => field.value !== null && field.value !== undefined);
      const table = resultTable(body.result.fields, uploaded.file_id, viewer, threshold);
      clear(results, reviewSummary(found.map((field) => field.confidence), threshold, "pg-review"), table.root);
      if (missing.length) results.append(await notFound(missing, body.result, uploaded.file_id, signal));
      results.append(
        teachPanel({
          fileId: uploaded.file_id,
          fields: Object.keys(body.result.fields),
          mode: config?.params?.prompt_mode ?? modeSelect.value,
          values: table.values,
          marked: table.marked,
          configs,
          chosen: config?.config_id ?? null,
          examples,
          onCreated: (created) => {
            configs = [created, ...configs];
            fillConfigs();
          },
          signal,
        }),
        examples.root,
      );
    } catch (error) {
      if (!signal.aborted) clear(results, errorBox(error));
    } finally {
      submit.disabled = false;
    }
  });

  signal.addEventListener("abort", () => viewer.release());
  return h(
    "section",
    { class: "playground" },
    h("h1", {}, "Extraction playground"),
    h("div", { class: "task-columns" }, h("div", { class: "panel" }, form, results), h("div", { class: "panel" }, viewer.root)),
  );
}

const present = (value) => value !== null && value !== undefined;

// The value a reviewer starts from, as the text in its input.
const asText = (value) => (present(value) ? String(value) : "");

// Where the value was read: its page (or citation), and the example whose place it was read at.
function whereCell(field, onPage, citations) {
  const where = onPage.length ? `page ${onPage[0].page}` : citations.map(describe).join("; ");
  const example = field.example_id
    ? h(
        "span",
        { class: "from-example", dataset: { exampleId: field.example_id }, title: `Read where example ${field.example_id} shows this field` },
        `as example ${shortId(field.example_id)}`,
      )
    : null;
  return h("td", {}, where, example ? h("div", {}, example) : null);
}

// The extracted values, each with an input a reviewer corrects it in. A corrected value is marked
// (the value as read is struck through beside it); the low-confidence marks stay as they are.
// `values()` gives the reviewed values ({field: value | null}, an emptied input is null) and
// `marked(names)` flags the rows whose value the service could not find on the document.
function resultTable(fields, fileId, viewer, threshold) {
  const inputs = new Map();
  const rows = Object.entries(fields).map(([name, field]) => {
    const citations = field.citations || [];
    const onPage = citations.filter((c) => c.page !== undefined);
    const show = (event) => {
      markSelected(event.currentTarget);
      if (!onPage.length) return viewer.empty(citations.length ? citations.map(describe).join("; ") : "No citation for this value.");
      const page = onPage[0].page;
      const boxes = onPage.filter((c) => c.page === page).map((c) => boxFractions(c)).filter(Boolean);
      return viewer.show({ fileId, page, boxes, caption: onPage[0].file });
    };
    const input = h("input", {
      type: "text",
      class: "pg-correct",
      value: asText(field.value),
      placeholder: present(field.value) ? "empty on this document" : "the value, if the document has it",
      "aria-label": `Right value of ${name}`,
      spellcheck: "false",
      dataset: { field: name },
    });
    const badge = h("span", { class: "corrected-badge", hidden: true }, "corrected");
    inputs.set(name, { input, original: field.value });
    let row;
    if (!present(field.value)) {
      // A confidence of 0% would read as "found, but unsure": say plainly that nothing was found.
      row = h(
        "tr",
        { dataset: { field: name, found: "false" } },
        h("td", {}, name),
        h("td", {}, h("span", { class: "hint not-found" }, "not found"), h("div", { class: "correction" }, input, badge)),
        h("td", { class: "num" }, ""),
        h("td", { class: "hint" }, "no label or value for it in the document"),
      );
    } else {
      const check = needsCheck(field.confidence, threshold);
      row = h(
        "tr",
        { class: check ? "to-check" : null, dataset: { field: name, found: "true", check: String(check) } },
        h("td", {}, name),
        h("td", {}, h("button", { type: "button", class: "cited-value", onclick: show }, String(field.value)), h("div", { class: "correction" }, input, badge)),
        h("td", { class: "num" }, confidenceNote(field.confidence, threshold, field.review_reasons)),
        whereCell(field, onPage, citations),
      );
    }
    input.addEventListener("input", () => {
      const corrected = input.value.trim() !== asText(field.value).trim();
      row.classList.toggle("corrected", corrected);
      row.dataset.corrected = String(corrected);
      badge.hidden = !corrected;
      badge.title = corrected ? `Read as ${present(field.value) ? `"${field.value}"` : "nothing"}` : "";
    });
    row.dataset.corrected = "false";
    return row;
  });
  const body = h("tbody", {}, rows);
  const values = () => {
    const out = {};
    for (const [name, { input, original }] of inputs) {
      const text = input.value.trim();
      // Unchanged, the value goes back as read (a number stays a number); emptied, it is null.
      out[name] = text === asText(original).trim() ? (present(original) ? original : null) : text || null;
    }
    return out;
  };
  const marked = (names) => {
    for (const row of body.rows) {
      const flagged = names.includes(row.dataset.field);
      row.classList.toggle("not-on-document", flagged);
      row.dataset.notOnDocument = String(flagged);
    }
  };
  const root = h(
    "table",
    { class: "list", id: "pg-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Field"), h("th", {}, "Value"), h("th", {}, "Confidence"), h("th", {}, "Where"))),
    body,
  );
  return { root, values, marked };
}

// How the document was read, in words: where the found values came from.
const SOURCES = {
  form_fields: "its form fields",
  text_layer: "its text layer",
  ocr: "OCR of its page images",
  model: "a model",
};

// Which fields were not found, and the text the document was read as, so a person can see why
// (a label spelt differently, a scan read badly, a field the form does not have).
async function notFound(missing, result, fileId, signal) {
  const pages = Array.isArray(result.pages) ? result.pages.length : 0;
  const how = SOURCES[result.confidence_source] ?? result.confidence_source ?? "its content";
  const read = h("pre", { id: "pg-read-text" }, "Reading the document…");
  const box = h(
    "div",
    { id: "pg-missing", class: "not-found-note", role: "status" },
    h("p", {}, h("strong", {}, `Not found: ${missing.join(", ")}.`), ` The document (${pages} page${pages === 1 ? "" : "s"}) was read from ${how}; no label or value matched these names. This is what was read:`),
    h("details", { id: "pg-read", open: true }, h("summary", {}, "What was read"), read),
  );
  try {
    const parsed = await settled(await postJson("/api/v2/parse/sync", { input: fileId }, { signal }), signal);
    const text = parsed.status === "completed" ? (parsed.result?.content ?? "") : "";
    clear(read, text.trim() || "No text could be read from this document.");
  } catch (error) {
    if (!signal.aborted) clear(read, `The document's text could not be shown: ${error?.message ?? error}`);
  }
  return box;
}
