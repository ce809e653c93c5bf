// Teaching a saved extract config from a corrected document: "Save as example" posts the reviewer's
// values to a config with the same fields (chosen, or created here), and the config's examples are
// listed with a delete button each. Later documents of the same design extracted with that config
// are read where the example shows their values.

import { ApiError, getJson, postJson, query, request } from "./api.js";
import { configLabel, createExtractConfig, examplesPath, sameFields } from "./configs.js";
import { clear, errorBox, h, when } from "./dom.js";

const NEW_CONFIG = "";
const EXAMPLES_PAGE = 20;

// The fields a 422 names ("values not found on the document: a, b"), among the ones sent.
export function namedFields(detail, fields) {
  const listed = detail.slice(detail.lastIndexOf(":") + 1).split(",").map((name) => name.trim());
  return fields.filter((field) => listed.includes(field));
}

// The "Save as example" form under the extraction's values; a config made here extracts `fields` in
// `mode` (the playground's prompt_mode), as the document was just extracted. `values()` gives the
// reviewer's values ({field: value | null}); `marked(names)` marks the rows of the values the
// service could not find.
export function teachPanel({ fileId, fields, mode, values, marked, configs, chosen, examples, onCreated, signal }) {
  const matching = configs.filter((config) => sameFields(config, fields));
  const select = h(
    "select",
    { id: "teach-config", name: "config" },
    matching.map((config) => configOption(config, config.config_id === chosen)),
    h("option", { value: NEW_CONFIG }, "New config with these fields…"),
  );
  const name = h("input", { id: "teach-name", name: "name", type: "text", placeholder: "Intake form, front page", maxlength: 200 });
  const nameRow = h("div", { class: "teach-name" }, h("label", { for: "teach-name" }, "New config's name"), name);
  const save = h("button", { type: "submit", id: "teach-save" }, "Save as example");
  const message = h("div", { id: "teach-message", "aria-live": "polite" });
  const showChoice = () => {
    nameRow.hidden = select.value !== NEW_CONFIG;
    examples.show(select.value || null);
  };
  select.addEventListener("change", showChoice);

  const form = h(
    "form",
    { class: "teach-form", id: "teach-form" },
    h("h2", {}, "Teach a config"),
    h(
      "p",
      { class: "hint" },
      "Correct the values above, then save this document as an example: later documents of the same design, extracted with the config, are read where this one shows its values.",
    ),
    h("label", { for: "teach-config" }, "Config"),
    select,
    nameRow,
    save,
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    save.disabled = true;
    marked([]);
    clear(message, h("p", { class: "hint" }, "Finding the values on the document…"));
    try {
      let configId = select.value;
      if (configId === NEW_CONFIG) {
        const config = await createExtractConfig(name.value.trim() || "Untitled form", fields, mode, signal);
        configId = config.config_id;
        // Chosen from now on, so a second try after a 422 saves to this config instead of another new one.
        select.prepend(configOption(config, false));
        select.value = configId;
        name.value = "";
        onCreated(config);
        showChoice();
      }
      const example = await postJson(examplesPath(configId), { input: fileId, values: values() }, { signal });
      clear(
        message,
        h("p", { class: "saved", role: "status", dataset: { exampleId: example.example_id } }, `Saved as example ${shortId(example.example_id)} of config "${select.selectedOptions[0].dataset.name}".`),
      );
      await examples.show(configId);
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.status === 422) {
        const names = namedFields(error.message, fields);
        marked(names);
        clear(
          message,
          h(
            "div",
            { class: "error", role: "alert", id: "teach-error" },
            h("p", {}, h("strong", {}, "Not saved: "), error.message),
            names.length ? h("p", {}, `Check ${names.join(", ")} against the document: the value must be printed on it.`) : null,
          ),
        );
      } else {
        clear(message, errorBox(error));
      }
    } finally {
      save.disabled = false;
    }
  });
  showChoice();
  return form;
}

function configOption(config, selected) {
  return h("option", { value: config.config_id, selected, dataset: { name: config.name } }, configLabel(config));
}

export function shortId(id) {
  return String(id).slice(0, 8);
}

// The examples of one config: when each was saved, from which file, and its values.
export class ExamplesList {
  constructor(signal) {
    this.signal = signal;
    this.configId = null;
    this.root = h("section", { class: "examples", id: "examples" });
    this.shown = 0;
  }

  async show(configId) {
    this.configId = configId;
    const shown = ++this.shown;
    if (!configId) {
      clear(this.root);
      return;
    }
    const body = h("tbody", { id: "examples-rows" });
    const more = h("button", { type: "button", class: "quiet", id: "examples-more", hidden: true }, "More");
    clear(
      this.root,
      h("h2", {}, "Examples of this config"),
      h(
        "table",
        { class: "list", id: "examples-table" },
        h("thead", {}, h("tr", {}, h("th", {}, "Saved"), h("th", {}, "File"), h("th", {}, "Values"), h("th", {}, ""))),
        body,
      ),
      more,
    );
    let cursor = "";
    const load = async () => {
      more.hidden = true;
      const page = await getJson(`${examplesPath(configId)}${query({ limit: EXAMPLES_PAGE, cursor })}`, { signal: this.signal });
      if (shown !== this.shown) return;
      body.append(...page.data.map((example) => this.row(example)));
      if (!body.children.length) body.append(h("tr", { class: "empty" }, h("td", { colspan: 4, class: "hint" }, "No examples yet.")));
      cursor = page.next_cursor;
      more.hidden = !page.has_more;
    };
    more.addEventListener("click", () => load().catch((error) => this.root.append(errorBox(error))));
    try {
      await load();
    } catch (error) {
      if (!this.signal.aborted && shown === this.shown) this.root.append(errorBox(error));
    }
  }

  row(example) {
    const remove = h("button", { type: "button", class: "quiet danger", "aria-label": `Delete example ${shortId(example.example_id)}` }, "Delete");
    const tr = h(
      "tr",
      { dataset: { exampleId: example.example_id } },
      h("td", {}, when(example.created_at), h("div", { class: "hint" }, `example ${shortId(example.example_id)}`)),
      h("td", {}, h("code", { title: example.file_id }, shortId(example.file_id.replace("file://", "")))),
      h("td", {}, h("dl", { class: "tree example-values" }, Object.entries(example.fields).map(([name, field]) => taughtValue(name, field)))),
      h("td", {}, remove),
    );
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      try {
        await request(examplesPath(example.config_id, example.example_id), { method: "DELETE", signal: this.signal });
        await this.show(this.configId);
      } catch (error) {
        remove.disabled = false;
        if (!this.signal.aborted) tr.lastChild.append(errorBox(error));
      }
    });
    return tr;
  }
}

function taughtValue(name, field) {
  const shown = field === null
    ? h("span", { class: "hint" }, "empty on this document")
    : [String(field.value), h("span", { class: "hint" }, ` · page ${field.page}`)];
  return [h("dt", {}, name), h("dd", { dataset: { field: name } }, shown)];
}
