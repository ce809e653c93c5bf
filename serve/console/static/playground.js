// The extraction playground: upload a file, name fields (or pick a saved extract config), see each
// value with its confidence (the ones under the review threshold marked to check), the text the
// page prints beside its normalised form, and, on a click, the page with the value's box. A field
// left blank says so, apart from one not on the page. A reviewer corrects the values, marks them
// checked and saves them with the job (corrections.js; `#/playground/<record_id>` reopens it), and
// saves the document as an example of a config (teach.js); a value read from an example says which.

import { getJson, postJson, request } from "./api.js";
import { boxFractions, describe } from "./citations.js";
import { configFields, configLabel, extractConfigs } from "./configs.js";
import { CorrectionControl, missingWords, present, saveCorrections } from "./corrections.js";
import { clear, errorBox, h, markSelected } from "./dom.js";
import { confidenceNote, needsCheck, reviewSummary, reviewThreshold } from "./review.js";
import { ExamplesList, shortId, teachPanel } from "./teach.js";
import { CheckWalker, checkControls, marksInPageOrder } from "./queue.js";
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

export function playgroundView(signal, recordId = null) {
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
  const configsLoaded = extractConfigs(signal).then(
    (found) => {
      configs = found;
      fillConfigs();
    },
    (error) => {
      if (!signal.aborted) form.append(errorBox(error));
    },
  );

  // The values of a finished job, with the corrections kept for it, and the "save as example" form
  // one click below them (it sends the corrected values).
  async function showResult(body, fileId, config) {
    const missing = Object.entries(body.result.fields).filter(([, field]) => !present(field.value));
    const threshold = await reviewThreshold(signal);
    const found = Object.values(body.result.fields).filter((field) => present(field.value));
    const table = resultTable(body.result.fields, fileId, viewer, threshold, body.corrections || {});
    const saveRow = correctionsSaver(body.record_id, table.controls, signal);
    const walker = new CheckWalker(table.root, viewer, marksInPageOrder(body.result.fields, threshold));
    clear(results, reviewSummary(found.map((field) => field.confidence), threshold, "pg-review"), checkControls(walker, signal), table.root, saveRow);
    const blank = missing.filter(([, field]) => field.state === "blank").map(([name]) => name);
    const absent = missing.filter(([, field]) => field.state !== "blank").map(([name]) => name);
    if (blank.length) results.append(leftBlank(blank));
    if (absent.length) results.append(await notFound(absent, body.result, fileId, signal));
    results.append(
      teachPanel({
        fileId,
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
  }

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
      // The job's own address, so a reload (or a link) reopens its values and their corrections;
      // replaced, not pushed: the view stays as it is.
      history.replaceState(null, "", `#/playground/${encodeURIComponent(body.record_id)}`);
      await showResult(body, uploaded.file_id, config);
    } catch (error) {
      if (!signal.aborted) clear(results, errorBox(error));
    } finally {
      submit.disabled = false;
    }
  });

  // Reopened at a job's address: its values as the service keeps them.
  if (recordId) {
    clear(results, h("p", { class: "hint" }, "Loading the extraction…"));
    (async () => {
      const body = await settled(await getJson(`/api/v2/jobs/${encodeURIComponent(recordId)}`, { signal }), signal);
      if (body.status !== "completed" || !body.result?.fields) throw new Error(body.error || body.message || `extraction ${body.status}`);
      await configsLoaded;
      const config = configs.find((c) => c.config_id === body.config_id) ?? null;
      fieldsInput.value = Object.keys(body.result.fields).join(", ");
      await showResult(body, body.file_id, config);
    })().catch((error) => {
      if (!signal.aborted) clear(results, errorBox(error));
    });
  }

  signal.addEventListener("abort", () => viewer.release());
  return h(
    "section",
    { class: "playground" },
    h("h1", {}, "Extraction playground"),
    h("div", { class: "task-columns" }, h("div", { class: "panel" }, form, results), h("div", { class: "panel" }, viewer.root)),
  );
}

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

// The value as the page prints it, beside its normalised form, where the two differ (a date
// `2002-02-13` printed `02/13/2002`).
function printedNote(field) {
  if (!present(field.printed) || field.printed === String(field.value)) return null;
  return h("span", { class: "printed", title: "As printed on the page" }, "printed ", h("q", {}, field.printed));
}

// The extracted values, each with an input a reviewer corrects it in and a "checked" box
// (corrections.js). A corrected value is marked (the value as read is struck through beside it);
// the low-confidence marks stay as they are. `values()` gives the reviewed values ({field: value |
// null}, an emptied input is null) and `marked(names)` flags the rows whose value the service could
// not find on the document. `saved` holds the corrections the service keeps for the job. The batch
// view (batch.js) shows a batch's documents with the same table.
export function resultTable(fields, fileId, viewer, threshold, saved = {}) {
  const controls = [];
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
    let row;
    const control = new CorrectionControl({
      name,
      original: field.value,
      saved: saved[name],
      label: name,
      inputClass: "pg-correct",
      placeholder: present(field.value) ? "empty on this document" : "the value, if the document has it",
      onChange: (changed) => mark(row, changed),
    });
    controls.push(control);
    if (!present(field.value)) {
      // A confidence of 0% would read as "found, but unsure": say plainly what the page shows.
      const blank = field.state === "blank";
      row = h(
        "tr",
        { dataset: { field: name, found: "false", state: field.state ?? "not_found" } },
        h("td", {}, name),
        h("td", {}, h("span", { class: blank ? "hint left-blank" : "hint not-found" }, missingWords(field.state ?? "not_found")), control.root),
        h("td", { class: "num" }, ""),
        h("td", { class: "hint" }, blank ? "its label is on the page, with nothing written" : "no label or value for it in the document"),
      );
    } else {
      const check = needsCheck(field.confidence, threshold);
      row = h(
        "tr",
        { class: check ? "to-check" : null, dataset: { field: name, found: "true", state: "found", check: String(check) } },
        h("td", {}, name),
        h("td", {}, h("button", { type: "button", class: "cited-value", onclick: show }, String(field.value)), printedNote(field), control.root),
        h("td", { class: "num" }, confidenceNote(field.confidence, threshold, field.review_reasons)),
        whereCell(field, onPage, citations),
      );
    }
    mark(row, control);
    return row;
  });
  const body = h("tbody", {}, rows);
  const values = () => Object.fromEntries(controls.map((control) => [control.name, control.value()]));
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
  return { root, values, marked, controls };
}

// A row says whether its value is corrected and whether a reviewer checked it.
function mark(row, control) {
  row.classList.toggle("corrected", control.corrected);
  row.dataset.corrected = String(control.corrected);
  row.classList.toggle("checked", control.checked);
  row.dataset.checked = String(control.checked);
}

// "Save corrections": the corrected and checked values go to the service, which keeps them for the
// job with who and when; the page shows them again when it is reopened.
export function correctionsSaver(recordId, controls, signal) {
  const save = h("button", { type: "button", id: "pg-save-corrections" }, "Save corrections");
  const message = h("span", { id: "pg-corrections-message", class: "hint", "aria-live": "polite" });
  save.addEventListener("click", async () => {
    save.disabled = true;
    try {
      const count = await saveCorrections(`/api/v2/jobs/${encodeURIComponent(recordId)}/corrections`, "fields", controls, signal);
      clear(message, count ? `Saved ${count} value${count === 1 ? "" : "s"}.` : "Nothing to save: correct a value or tick it checked.");
      message.dataset.saved = String(count);
    } catch (error) {
      if (!signal.aborted) clear(message, errorBox(error));
    } finally {
      save.disabled = false;
    }
  });
  return h("div", { class: "corrections-save" }, save, " ", message);
}

// The fields whose label the page prints with nothing written after or under it.
function leftBlank(names) {
  return h(
    "div",
    { id: "pg-blank", class: "blank-note", role: "status" },
    h("p", {}, h("strong", {}, `Left blank: ${names.join(", ")}.`), " The document prints the label and leaves its answer empty."),
  );
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
