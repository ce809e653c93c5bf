"""Where given values occur in a parsed document: the grounding of an agent's structured output.

A task that keeps citations asks, when it completes, where each value of its output occurs in the
documents it processed (docs/contract.md section 5). That search runs in a worker task on the parsed
document; this module is its body.
"""

from __future__ import annotations

from typing import Any

from extraction.formats.document import Document

#: A value the search accepts: the string and number leaves of a structured output.
Value = str | int | float


def locate_values(doc: Document, values: list[Value], *, file_name: str) -> dict[str, Any]:
    """`{pages, citations}`: the document's `[{page, width, height}]`, and for each value (in order)
    every place it occurs as citation dicts (without `citation_id`), an empty list when nowhere."""
    from extraction.fields.documents.grounding import find_citations
    from extraction.formats.payload import pages_payload

    return {
        "pages": pages_payload(doc),
        "citations": [find_citations(doc, value, file_name=file_name) for value in values],
    }
