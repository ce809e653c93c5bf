"""Values in tables: label cell then value cell, a grid cell holding its caption and value, and
header-over-value columns."""

import re
from collections.abc import Iterator
from dataclasses import replace

from extraction.fields.model.candidate import Candidate
from extraction.fields.reading.date_text import DateOrder
from extraction.fields.reading.normalize import SYNONYM_SCORE, is_label_like, match_label
from extraction.fields.reading.text_lines import cell_unit
from extraction.fields.reading.value_kinds import Kind, read_value
from extraction.fields.reading.vocabulary import field_spec
from extraction.fields.strategies.label_pairs import (
    COLON_RE,
    FARTHER_SHARE,
    LABEL_THRESHOLD,
    follows,
    prefix_label_candidates,
    same_line_candidates,
    scored_candidate,
)
from extraction.fields.strategies.structure.combined import combined_caption
from extraction.fields.strategies.structure.whose import (
    LATER_COVERAGE_SHARE,
    later_coverage,
)
from extraction.formats.document import Document, Element


def table_candidates(doc: Document, name: str, kind: Kind, order: DateOrder) -> Iterator[Candidate]:
    for element in doc.elements:
        if element.type != "table" or not element.rows:
            continue
        rows = [[c.strip() for c in row] for row in element.rows]
        for r, row in enumerate(rows):
            # A label cell's value is the next cell of its row ("First Name | Wei | MI | ").
            for c, cell in enumerate(row):
                # A cell may hold its caption and its value ("Member ID C5825255603").
                captioned = list(_cell_caption_candidates(doc, element, r, c, name, kind, order))
                yield from captioned
                if captioned or c == len(row) - 1:
                    continue
                score = match_label(name, COLON_RE.sub(" ", cell)) if cell else 0.0
                if score < LABEL_THRESHOLD:
                    continue
                # A shaped value (an amount, a date, an id) may sit columns away ("Total | | |
                # 9.00"); free text is next door, and an empty cell there means no value.
                reach = row[c + 1 : c + 2] if kind == "text" else row[c + 1 :]
                found = next(
                    (
                        (k, reading)
                        for k, text in enumerate(reach, c + 1)
                        if text
                        and not _NUMBERED_CAPTION_RE.match(text)
                        and (reading := read_value(kind, text, order=order))
                    ),
                    None,
                )
                if found is not None:
                    unit = cell_unit(doc, element, r, found[0])
                    yield scored_candidate(found[1], score, "table_row", [unit], cell)
        yield from _column_candidates(doc, element, rows, name, kind, order)


def _cell_caption_candidates(
    doc: Document, element: Element, r: int, c: int, name: str, kind: Kind, order: DateOrder
) -> Iterator[Candidate]:
    """The value of a grid cell printed with its caption at the top and the value under it,
    which a table gives as one cell's text ("PATIENT'S NAME (Last, First) DOE, JANE")."""
    text = _NUMBERING_RE.sub("", (element.rows or [])[r][c].strip())
    if len(text.split()) < 2:
        return
    unit = replace(cell_unit(doc, element, r, c), text=text)
    for candidate in same_line_candidates(unit, name, kind, order):
        yield candidate
        return
    found = list(prefix_label_candidates(unit, name, kind, order))
    yield from found
    if found:
        return
    # A caption that ends in a parenthesis ("PATIENT'S NAME (Last Name, First Name)") is the
    # cell's caption whatever its length; the value follows it (the first such parenthesis: a
    # value may hold one of its own, "(912) 401-4658").
    for end in (m.end() for m in re.finditer(r"\)", text)):
        caption, rest = text[:end], text[end:].strip()
        score = match_label(name, caption)
        if combined_caption(caption, field_spec(name).concept):
            # "PATIENT'S NAME (Last Name, First Name)" holds the first name as much as the last.
            score = max(score, SYNONYM_SCORE)
        if not rest or score < LABEL_THRESHOLD:
            continue
        reading = read_value(kind, rest, leading=True, order=order)
        if reading is not None and follows(rest, reading.raw):
            yield scored_candidate(reading, score, "label_inline", [unit], caption)
        return


#: A cell opening with its item number and caption ("11c. INSURANCE PLAN NAME"): another field's
#: cell, whose number is no value of the cell before it.
_NUMBERED_CAPTION_RE = re.compile(r"^\s*\d{1,2}[a-z]?\.\s+[A-Za-z]")
#: A form's item number before a caption ("2. ", "11c. ").
_NUMBERING_RE = re.compile(r"^\s*\d{1,2}[a-z]?\.\s*")


def _column_candidates(
    doc: Document, element: Element, rows: list[list[str]], name: str, kind: Kind, order: DateOrder
) -> Iterator[Candidate]:
    """Values under a header cell that names the field: every row up to the next header row, the
    first one likeliest; a row headed as a later coverage ("Secondary") less likely still."""
    # A header row is labels only, but for its first cell, which may head a column of row
    # headings ("Coverage" over "Primary", "Secondary").
    headers = [
        r for r, row in enumerate(rows) if any(row[1:]) and all(is_label_like(c) for c in row[1:] if c)
    ]
    for r in headers:
        top = rows[r]
        for k in range(r + 1, len(rows)):
            if k in headers:
                break
            body = rows[k]
            share = FARTHER_SHARE ** (k - r - 1)
            if body and later_coverage(body[0]):
                share *= LATER_COVERAGE_SHARE
            for column, header in enumerate(top):
                if column >= len(body) or not body[column]:
                    continue
                score = match_label(name, header)
                reading = read_value(kind, body[column], order=order) if score >= LABEL_THRESHOLD else None
                if reading is not None:
                    unit = cell_unit(doc, element, k, column)
                    yield scored_candidate(reading, score * share, "table_column", [unit], header)
