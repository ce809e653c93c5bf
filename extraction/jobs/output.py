"""Extraction results as the text `result.content` carries: JSON, or CSV with one row per document."""

from __future__ import annotations

import csv
import io
import json
from typing import Any


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    # Lists (several parties) and objects keep their structure as JSON inside the cell.
    return json.dumps(value, ensure_ascii=False)


def fields_to_csv(rows: list[dict[str, Any]], field_names: list[str]) -> str:
    """CSV text: one header row of `field_names`, then one row per document (missing fields empty).

    Null is an empty cell, booleans are `true`/`false`, lists and objects are JSON text.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(field_names)
    for row in rows:
        writer.writerow([_cell(row.get(name)) for name in field_names])
    return buffer.getvalue()


def fields_to_json_content(data: Any) -> str:
    """JSON text of `data` (UTF-8 characters kept as they are, not escaped)."""
    return json.dumps(data, ensure_ascii=False)
