"""The worked example a model is shown when a config's example matches the document (issue 37).

When the model is asked (`prompt_mode` `model`, or `auto` for the fields the rules left empty), a
document that follows a taught design comes with that example's values and where they sat on its
page: the model then reads the same places of this document. The example is the one whose design
the document matches best (`extraction.examples.match_design`); a document that matches none is
asked about exactly as without examples.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from extraction.formats.document import Document

#: Most characters of the worked example (values are short; a config may name 200 fields).
MAX_WORKED_EXAMPLE_CHARS = 8000


def matched_example(doc: Document, examples: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The taught example (`{example_id, taught}`) whose design `doc` follows best, or None."""
    from extraction.examples import Taught, match_design

    best: tuple[float, dict[str, Any]] | None = None
    for example in examples:
        match = match_design(doc, Taught.from_json(example["taught"]))
        if match is not None and (best is None or match.score > best[0]):
            best = (match.score, example)
    return best[1] if best else None


def worked_example(doc: Document, examples: Sequence[dict[str, Any]], names: list[str]) -> str | None:
    """The text shown to the model: the matched example's value and place of each asked field."""
    example = matched_example(doc, examples) if examples else None
    if example is None:
        return None
    from extraction.examples import Taught

    taught = Taught.from_json(example["taught"])
    lines = []
    for name in names:
        if name not in taught.fields:
            continue
        field = taught.fields[name]
        if field is None:
            lines.append(f"- {name}: null (left empty on the example)")
            continue
        box = ", ".join(f"{v:.0f}" for v in field.bounding_box)
        lines.append(
            f"- {name}: {json.dumps(field.value, ensure_ascii=False)} (page {field.page}, box [{box}])"
        )
    if not lines:
        return None
    text = (
        "A reviewer corrected another document of this same form design. Its values and where they "
        "were printed (page, box x0, y0, x1, y1 in page pixels from the top left) are below; this "
        "document's values sit at the same places. Read this document's own values there, never "
        "copy the example's.\n" + "\n".join(lines)
    )
    return text[:MAX_WORKED_EXAMPLE_CHARS]
