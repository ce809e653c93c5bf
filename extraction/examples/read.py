"""Reading a document with examples: where it follows a taught design, each field is read where
the example's value sat; everything else is left to the general rules.

Each page of the document is matched against every example (`match.match_page`); per page the
example whose anchors land best wins. A field is read from the winning example of its taught
page: the document's words inside the example's slot (mapped through the page's transform and
widened by half a word's height, the design's printed words left out), checked as the value's kind
(a date field must read as a date, a phone as seven digits or more, a choice as one ticked box of
the taught group). A field the example cannot settle, and every field of a document that matches
no example, is read by `extract_fields` exactly as without examples; only a value of the first
kind made of nothing but words the matched design prints (the next label) is dropped.

Confidence of a value read from an example is calibrated on that read's own evidence (the page's
match score, how sure the engine is of the words, their source, the kind's strictness, a changed
word count, a value cut from a longer text, words running past the slot): `confidence.py`, fitted
by design held out on example reads only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rapidfuzz import fuzz

from extraction.examples.confidence import Evidence, confidence
from extraction.examples.kinds import ORDERS, amount, as_iso_date, bare_name, choice_word, digits
from extraction.examples.match import PageMatch, PageWords, match_page
from extraction.examples.parts import Part, cut
from extraction.examples.taught import Taught, TaughtField
from extraction.examples.words import Piece, mark_state, normal_word, page_pieces, rows, union
from extraction.fields.extract import extract_fields
from extraction.fields.model.citations import Citation, region_citation
from extraction.fields.model.result import FieldResult
from extraction.fields.reading.amounts import format_amount
from extraction.fields.reading.date_text import DateOrder
from extraction.fields.reading.names import split_name
from extraction.formats.document import Box, Document

#: How far the mapped slot is widened each side, in the slot's own heights: enough for a scan's
#: noise, little enough that the first letter of the next answer stays out.
WIDEN_HEIGHTS = 0.2
#: Least similarity (rapidfuzz ratio) of a word to a printed word of the design at its place for
#: the word to be that printed word misread (`CIFY` for `CITY`), not a value.
MISREAD_RATIO = 70
#: A word starting this close to the slot's end (in slot heights) starts the next answer.
NEXT_ANSWER_HEIGHTS = 0.3
_EMAIL = re.compile(r"^[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+$")
_ZIP = re.compile(r"\b\d{5}(?:-?\d{4})?\b")
#: OCR's letters for digits (`O` for 0, `l` for 1), mended in a word of digits or a lone letter.
_AS_DIGITS = str.maketrans("OoQDIl|", "0000111")
_DIGIT_SLIPS = re.compile(r"(?<![A-Za-z])(?:[OoQDIl|](?=\d)|(?<=\d)[OoQDIl|]|\b[OoQDIl|]\b)(?![A-Za-z])")
_GLUED_LABEL = re.compile(r"^[A-Za-z][A-Za-z.#/]*:(\S.*)$")
_EDGES = " \t,;:|_()[]"


def read_with_examples(
    doc: Document,
    field_names: list[str],
    *,
    file_name: str,
    examples: Sequence[tuple[str, Taught]],
    date_order: DateOrder | None = None,
    evidence: dict[str, Evidence] | None = None,
) -> dict[str, FieldResult]:
    """Values of `field_names` read from `doc`, following the example of its design when one
    matches (`examples` are `(example_id, taught)` pairs); see the module's docstring. `evidence`,
    when given, receives what each value read from an example rests on (for calibration)."""
    pages = page_pieces(doc) if examples else {}
    indexed = {number: PageWords.of(pieces) for number, pieces in pages.items()}
    empty = PageWords([], {})
    winners: dict[int, tuple[str, Taught, PageMatch]] = {}
    for example_id, taught in examples:
        for page in taught.pages:
            if page.page in winners and winners[page.page][2].score >= 1.0:
                continue
            found = match_page(page, indexed.get(page.page, empty))
            if found is not None and (page.page not in winners or found.score > winners[page.page][2].score):
                winners[page.page] = (example_id, taught, found)
    results: dict[str, FieldResult] = {}
    for name in field_names:
        settled = _settled(doc, pages, winners, name, file_name)
        if settled is not None:
            results[name], why = settled
            if why is not None and evidence is not None:
                evidence[name] = why
    rest = [name for name in field_names if name not in results]
    if rest:
        general = extract_fields(doc, rest, file_name=file_name, date_order=date_order)
        results.update(general)
        for name in rest:
            printed = _printed_words_only(general[name], pages, winners, name)
            if printed is not None:
                results[name] = FieldResult(value=None, confidence=0.0, example_id=printed)
    return {name: results[name] for name in field_names}


def _printed_words_only(
    result: FieldResult,
    pages: dict[int, list[Piece]],
    winners: dict[int, tuple[str, Taught, PageMatch]],
    name: str,
) -> str | None:
    """The example whose design printed every word of the value the general rules read for a
    field it taught but could not read (its place left empty, or unread): the words of the next
    label (`Sex` under a caption), not an answer. None when the value holds a word of its own."""
    if result.value is None:
        return None
    words = [normal_word(w) for w in str(result.raw or result.value).split()]
    words = [w for w in words if len(w) >= 2]
    if not words:
        return None
    for example_id, taught, found in winners.values():
        if name not in taught.fields:
            continue
        pieces = pages.get(found.page, [])
        printed = {normal_word(pieces[i].text) for i in found.static if i < len(pieces)}
        if all(w in printed for w in words):
            return example_id
    return None


def _settled(
    doc: Document,
    pages: dict[int, list[Piece]],
    winners: dict[int, tuple[str, Taught, PageMatch]],
    name: str,
    file_name: str,
) -> tuple[FieldResult, Evidence | None] | None:
    for example_id, taught, found in winners.values():
        if name not in taught.fields:
            continue
        taught_field = taught.fields[name]
        if taught_field is None:
            whole = _whole_name(taught, name, found.page)
            if whole is not None:
                # A middle name taught empty, where the example's first or last name was read
                # from a whole name: that name answers for the middle one of every later
                # document (the taught person had none; the next one may).
                read = _read_field(doc, pages.get(found.page, []), whole, found, example_id, file_name)
                if read is not None:
                    return read
            # The design has no such value: the example settles it as absent.
            return FieldResult(value=None, confidence=0.0, example_id=example_id), None
        if taught_field.page != found.page:
            continue
        return _read_field(doc, pages.get(found.page, []), taught_field, found, example_id, file_name)
    return None


def _whole_name(taught: Taught, name: str, page: int) -> TaughtField | None:
    """For a middle name field: the example's first or last name taught as a part of a whole name
    on `page`, as a field reading that name's middle part."""
    if "middle" not in name.casefold():
        return None
    for other in taught.fields.values():
        if (
            other is not None
            and other.page == page
            and other.kind == "name"
            and other.detail in ("first", "last")
        ):
            return replace(other, value="", detail="middle", part=None)
    return None


def _read_field(
    doc: Document, pieces: list[Piece], taught: TaughtField, found: PageMatch, example_id: str, file_name: str
) -> tuple[FieldResult, Evidence] | None:
    if taught.kind == "choice" and taught.options:
        read = _read_choice(pieces, taught, found)
        overflow = 0.0
    else:
        read = _read_slot(pieces, taught, found)
        overflow = 0.0 if read is None else _overflow(read[1], found.box(taught.slot or taught.bounding_box))
    if read is None:
        return None
    value, used, raw = read
    widget = all(p.widget is not None for p in used)
    why = Evidence(
        kind=taught.kind,
        match=found.score,
        text=min(p.confidence for p in used),
        source="widget" if widget else ("ocr" if used[0].source == "ocr" else "text_layer"),
        words=len(str(value).split()),
        taught_words=len(str(taught.value).split()),
        part=bool(taught.part),
        overflow=overflow,
    )
    box = union([p.box for p in used])
    source = "form_fields" if all(p.widget is not None for p in used) else used[0].source
    lines = [p.line for p in used if p.line is not None]
    citation: Citation = (
        {"file": file_name, "line_start": min(lines), "line_end": max(lines)}
        if lines
        else region_citation(doc, file_name, found.page, box)
    )
    return FieldResult(
        value=value,
        confidence=confidence(why),
        citations=[citation],
        source=source,  # type: ignore[arg-type]
        raw=raw,
        example_id=example_id,
    ), why


def _overflow(used: list[Piece], slot: Box) -> float:
    """Share of the words' width outside `slot` across the row: a word running past the slot's
    end (or start) may be a longer answer cut short, or the next answer caught."""
    width = sum(p.box.x1 - p.box.x0 for p in used) or 1.0
    outside = sum(max(slot.x0 - p.box.x0, 0.0) + max(p.box.x1 - slot.x1, 0.0) for p in used)
    return min(outside / width, 1.0)


def _widened(box: Box) -> Box:
    margin = WIDEN_HEIGHTS * (box.y1 - box.y0)
    return Box(box.x0 - margin, box.y0 - margin, box.x1 + margin, box.y1 + margin)


def _within(pieces: list[Piece], box: Box, static: dict[int, str], keep_glued: bool = True) -> list[Piece]:
    """The document's words whose center is inside `box`; printed words of the design are left
    out, but what OCR glued onto one (`(MMDDYYYY)12` of a label and the first digit boxes) is
    kept as a word of its own (unless not `keep_glued`)."""
    inside = []
    for i, piece in enumerate(pieces):
        if i in static:
            overlaps = (
                keep_glued
                and piece.box.x1 > box.x0
                and piece.box.x0 < box.x1
                and piece.box.y0 < box.y1
                and piece.box.y1 > box.y0
            )
            glued = _glued_tail(piece, static[i]) if overlaps else None
            if glued is None:
                continue
            piece = glued
        x, y = piece.center
        if box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1:
            inside.append(piece)
    return inside


def _without_misread_labels(inside: list[Piece], taught: TaughtField, found: PageMatch) -> list[Piece]:
    """`inside` without the design's printed words OCR misread past matching (a caption `CITY`
    read `CIFY` inside a box): a word where the example printed a word much like it."""
    x0, y0, x1, y1 = taught.slot or taught.bounding_box
    margin = y1 - y0
    a, b, c, d, e, f = found.local((x0 + x1) / 2, (y0 + y1) / 2)
    near = [
        (key, a * z.real + b * z.imag + c, d * z.real + e * z.imag + f)
        for key, z in found.printed
        if x0 - margin <= z.real <= x1 + margin and y0 - margin <= z.imag <= y1 + margin
    ]
    if not near:
        return inside
    kept = []
    for piece in inside:
        key = normal_word(piece.text)
        x, y = piece.center
        misread = piece.widget is None and any(
            abs(at_x - x) <= piece.height * 2 + (piece.box.x1 - piece.box.x0) / 2
            and abs(at_y - y) <= piece.height
            and fuzz.ratio(key, printed) >= MISREAD_RATIO
            for printed, at_x, at_y in near
        )
        if not misread:
            kept.append(piece)
    return kept


def _glued_tail(piece: Piece, anchor: str) -> Piece | None:
    """What follows the printed word `anchor` in `piece`'s text, as a word with its share of the
    box; None when nothing does."""
    wanted = sum(c.isalnum() for c in anchor)
    seen = 0
    for at, c in enumerate(piece.text):
        if seen == wanted:
            tail = piece.text[at:].lstrip(")]:.,;")
            if not any(ch.isalnum() for ch in tail):
                return None
            box = piece.box
            left = box.x1 - (box.x1 - box.x0) * len(tail) / len(piece.text)
            return replace(piece, text=tail, box=Box(left, box.y0, box.x1, box.y1))
        seen += c.isalnum()
    return None


def _read_slot(
    pieces: list[Piece], taught: TaughtField, found: PageMatch
) -> tuple[Any, list[Piece], str] | None:
    read = _read_slot_words(pieces, taught, found, keep_glued=True)
    if read is None:
        # What OCR glued to a printed word may be that word's own last mark misread (`)` read
        # `2` in `(MMDDYYYY2`), not a value's first character: the slot read without it.
        read = _read_slot_words(pieces, taught, found, keep_glued=False)
    return read


def _read_slot_words(
    pieces: list[Piece], taught: TaughtField, found: PageMatch, *, keep_glued: bool
) -> tuple[Any, list[Piece], str] | None:
    mapped = found.box(taught.slot or taught.bounding_box)
    # A word that starts at the slot's end is the next answer's, however narrow (the slot ends a
    # point before it; OCR boxes start a little early).
    end = mapped.x1 - NEXT_ANSWER_HEIGHTS * (mapped.y1 - mapped.y0)
    inside = [p for p in _within(pieces, _widened(mapped), found.static, keep_glued) if p.box.x0 < end]
    inside = _without_misread_labels(inside, taught, found)
    widgets = [p for p in inside if p.widget is not None and p.checked is None and p.text.strip()]
    used = widgets or [p for p in inside if p.widget is None and mark_state(p) is None]
    if not used:
        return None
    lines = rows(used)
    if not widgets and len(lines) > 1 and _one_line(taught):
        # A one-line slot reached into the next row (a photo's rows do not stay parallel, and the
        # slot is widened for noise): the row nearest the slot's middle is the answer's.
        middle = (mapped.y0 + mapped.y1) / 2
        used = min(lines, key=lambda row: abs(sum(p.center[1] for p in row) / len(row) - middle))
    ordered = [p for row in rows(used) for p in row]
    text = " ".join(_unglued(p, mapped) for p in ordered).strip()
    if taught.part:
        # The value is one part of the slot's text (a city of `Portland, OR 97201`).
        text = cut(text, Part.from_json(taught.part)) or ""
        if not text:
            return None
    value = _as_kind(taught, text)
    return None if value is None else (value, ordered, text)


def _one_line(taught: TaughtField) -> bool:
    """Whether the taught slot holds one line of text (it is at most two values high)."""
    slot = taught.slot or taught.bounding_box
    box = taught.bounding_box
    return slot[3] - slot[1] <= 2 * (box[3] - box[1])


def _unglued(piece: Piece, slot: Box) -> str:
    """A word's text without the label OCR glued to it (`Address:10377`): a word starting left of
    the slot whose text opens with a label ending in a colon."""
    if piece.widget is None and piece.box.x0 < slot.x0:
        glued = _GLUED_LABEL.match(piece.text)
        if glued:
            return glued.group(1)
    return piece.text


def _as_kind(taught: TaughtField, text: str) -> Any:
    """`text` read as the taught field's kind, in the taught value's style; None when it is not
    one."""
    kind = taught.kind
    if kind in ("date", "phone", "zip"):
        text = _DIGIT_SLIPS.sub(lambda m: m.group(0).translate(_AS_DIGITS), text)
    if kind == "date":
        orders: tuple[DateOrder, ...] = (taught.detail,) if taught.detail in ORDERS else ORDERS  # type: ignore[assignment]
        for order in orders:
            iso = as_iso_date(text, order)
            if iso is not None:
                return iso
        return None
    if kind == "phone":
        # As many digits as the taught phone (a leading country 1 aside), or it is not one phone.
        number = digits(text)
        if len(number.lstrip("1")) != len(digits(str(taught.value)).lstrip("1")):
            return None
        return _styled_digits(str(taught.value), number)
    if kind == "zip":
        match = _ZIP.search(text)
        return match.group(0) if match else None
    if kind == "email":
        joined = "".join(text.split()).strip(_EDGES)
        return joined if _EMAIL.match(joined) else None
    if kind == "amount":
        read = amount(text)
        return None if read is None else format_amount(read)
    if kind == "choice":
        option = choice_word(text)
        return _styled_option(taught, text) if option else None
    cleaned = " ".join(text.split()).strip(_EDGES)
    if kind == "name":
        if any(c.isdigit() for c in cleaned) or not any(c.isalpha() for c in cleaned):
            return None
        if taught.detail in ("first", "middle", "last"):
            name = split_name(bare_name(cleaned))
            part = name.part(taught.detail) if name else None  # type: ignore[arg-type]
            if part and taught.detail == "middle" and not str(taught.value).endswith("."):
                part = part.rstrip(".")  # an initial, written as the example wrote it
            return part or None
    if kind == "code":
        return _code(str(taught.value), cleaned)
    return cleaned or None


def _code(style: str, text: str) -> str | None:
    """The one token of `text` holding digits (a policy number beside a stray word the slot
    caught), with the letters before it when the taught code starts with as many letters."""
    tokens = [t.strip(_EDGES) for t in text.split()]
    numbered = [i for i, t in enumerate(tokens) if any(c.isdigit() for c in t)]
    if len(numbered) != 1:
        return "".join(tokens) if len(tokens) > 1 and len(numbered) > 1 else None
    i = numbered[0]
    letters = len(style) - len(style.lstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if letters and i > 0 and not tokens[i][:1].isalpha() and len(tokens[i - 1]) == letters:
        return tokens[i - 1] + tokens[i]
    return tokens[i] or None


def _styled_digits(style: str, number: str) -> str:
    """`number` printed as the taught phone was (its separators), when it has as many digits."""
    if len(digits(style)) != len(number):
        return number
    it = iter(number)
    return "".join(next(it) if c.isdigit() else c for c in style)


def _styled_option(taught: TaughtField, label: str) -> str:
    """The option `label` names, written as the taught value was (`M`, `Male`, `male`)."""
    value = str(taught.value)
    if choice_word(label) == choice_word(value):
        return value
    word = re.sub(r"[^\w]", "", label)
    named = choice_word(label)
    if len(word) == 1 and named and len(named) > 1 and len(value) > 1:
        # A form printing initials, taught with a whole word: `F` is written `Female`.
        word = named
    if len(value) == 1:
        return word[:1].upper()
    if value.isupper():
        return word.upper()
    if value.islower():
        return word.lower()
    return word[:1].upper() + word[1:].lower()


def _baked_tick(piece: Piece, place: Box) -> bool:
    """A flattened check box's tick: one glyph of a text layer inside the box (a symbol font's
    check prints as a letter or digit, `4` or `3` in ZapfDingbats); OCR'd glyphs do not count, as
    a scanned empty box reads as a letter too."""
    if piece.widget is not None or piece.source == "ocr" or len(piece.text.strip()) != 1:
        return False
    x, y = piece.center
    return mark_state(piece) is None and place.x0 <= x <= place.x1 and place.y0 <= y <= place.y1


def _read_choice(
    pieces: list[Piece], taught: TaughtField, found: PageMatch
) -> tuple[Any, list[Piece], str] | None:
    """The one ticked box of the taught group, read at each option's mapped place."""
    ticked: list[tuple[str, Piece]] = []
    for option in taught.options:
        place = found.box(option.box)
        side = max(place.x1 - place.x0, place.y1 - place.y0)
        near = Box(place.x0 - side / 2, place.y0 - side / 2, place.x1 + side / 2, place.y1 + side / 2)
        states = [(p, mark_state(p)) for p in _within(pieces, near, {})]
        marks = [p for p, state in states if state is True or _baked_tick(p, place)]
        if marks:
            ticked.append((option.label, marks[0]))
    if len(ticked) != 1:
        return None
    label, mark = ticked[0]
    return _styled_option(taught, label), [mark], label
