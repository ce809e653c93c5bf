// Citations as the API gives them (docs/spec.md "Citation leaf"), turned into what the page viewer draws.

const FILE_LINK = /\/api\/v2\/files\/([0-9a-fA-F-]{36})\/content/;

// A structured output leaf with provenance is `{value, bounding_boxes: [...]}`.
export function isCitedLeaf(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    "value" in value &&
    Array.isArray(value.bounding_boxes)
  );
}

// The `documents` block names files by name, with a signed link whose path holds the file id:
// `{file name: "file://<uuid>"}` for the files that can still be read.
export function fileIdsByName(documents = []) {
  const ids = {};
  for (const doc of documents) {
    const match = FILE_LINK.exec(doc.url || "");
    if (match) ids[doc.file] = `file://${match[1]}`;
  }
  return ids;
}

// The citation's box as fractions of its page {left, top, width, height}, or null when it has
// none (a spreadsheet cell, a text line range, a page cited without a box). The normalised corners
// are preferred (origin top-left, 0 to 1); pixel boxes need the page size from `documents`.
export function boxFractions(citation, pageSize) {
  const corners = citation.normalized_bounding_box;
  if (Array.isArray(corners) && corners.length >= 2) {
    const xs = corners.map((p) => p.x);
    const ys = corners.map((p) => p.y);
    return clamp({ left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) });
  }
  const box = citation.bounding_box;
  if (Array.isArray(box) && box.length === 4 && pageSize?.width && pageSize?.height) {
    const [x0, y0, x1, y1] = box;
    return clamp({
      left: x0 / pageSize.width,
      top: y0 / pageSize.height,
      right: x1 / pageSize.width,
      bottom: y1 / pageSize.height,
    });
  }
  return null;
}

function clamp({ left, top, right, bottom }) {
  const c = (v) => Math.min(1, Math.max(0, v));
  return { left: c(left), top: c(top), width: c(right) - c(left), height: c(bottom) - c(top) };
}

export function pageSizeOf(documents = [], file, page) {
  const doc = documents.find((d) => d.file === file);
  return doc?.pages?.find((p) => p.page === page);
}

// Words for where a citation points, for the citation list.
export function describe(citation) {
  if (citation.sheet !== undefined || citation.cell !== undefined) {
    return `${citation.file} · sheet ${citation.sheet ?? "?"}, cell ${citation.cell ?? "?"}`;
  }
  if (citation.line_start !== undefined) {
    const lines = citation.line_end && citation.line_end !== citation.line_start
      ? `lines ${citation.line_start}-${citation.line_end}`
      : `line ${citation.line_start}`;
    return `${citation.file} · ${lines}`;
  }
  return `${citation.file} · page ${citation.page ?? "?"}`;
}
