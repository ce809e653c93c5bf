// Saved extract configs (/api/v2/configs), as the playground offers them: to extract with, and to
// save a corrected document to as an example.

import { getJson, postJson, query } from "./api.js";

const PAGE = 100;
// A workspace with more saved configs than this is offered the newest; the rest stay reachable by API.
const MAX_PAGES = 10;

export async function extractConfigs(signal) {
  const found = [];
  let cursor = "";
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = await getJson(`/api/v2/configs${query({ limit: PAGE, cursor })}`, { signal });
    found.push(...body.data.filter((config) => config.type === "extract"));
    if (!body.has_more || !body.next_cursor) break;
    cursor = body.next_cursor;
  }
  return found;
}

// A config that extracts as the playground just did: these fields, in this mode.
export function createExtractConfig(name, fields, mode, signal) {
  const params = { json_options: fields, prompt_mode: mode };
  return postJson("/api/v2/configs", { name, type: "extract", params }, { signal });
}

export function configFields(config) {
  return config.params?.json_options ?? [];
}

// The service compares field names without case (json_options are distinct that way).
export function sameFields(config, fields) {
  const have = new Set(configFields(config).map((f) => f.toLowerCase()));
  return have.size === fields.length && fields.every((f) => have.has(f.toLowerCase()));
}

export function examplesPath(configId, exampleId) {
  const base = `/api/v2/configs/${encodeURIComponent(configId)}/examples`;
  return exampleId ? `${base}/${encodeURIComponent(exampleId)}` : base;
}

export function configLabel(config) {
  return `${config.name} (${configFields(config).join(", ")})`;
}
