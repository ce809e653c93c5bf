"""Label -> value in a document's lines and cells: `Label: value`, `LABEL value`, a value right of,
under or above its label (by box geometry, following a slanted photo)."""

import re
from collections.abc import Iterator

from extraction.fields.model.candidate import Candidate
from extraction.fields.reading.captions import CaptionIndex
from extraction.fields.reading.choices import EMPTY_BOX
from extraction.fields.reading.date_text import DateOrder, find_dates
from extraction.fields.reading.normalize import (
    SYNONYM_SCORE,
    caption_core,
    concept_of,
    concept_words,
    is_label,
    is_label_like,
    label_tokens,
    match_label,
    related_concepts,
    vocabulary_words,
    without_item_number,
)
from extraction.fields.reading.other_wording import past_other_wording
from extraction.fields.reading.text_lines import TextUnit, below, right_of, same_row
from extraction.fields.reading.value_kinds import Kind, Reading, read_value
from extraction.fields.reading.vocabulary import code_like_label, field_spec, valid_state, valid_zip

#: A label must score at least this against the field name (normalize.match_label) to be used.
LABEL_THRESHOLD = 0.75

#: Prior of each strategy: how often a value found this way is the right one.
PRIORS: dict[str, float] = {
    "form_field": 0.98,
    "embedded": 0.98,
    "label_colon": 0.95,
    "label_inline": 0.85,
    "table_row": 0.92,
    "table_column": 0.85,
    "label_right": 0.9,
    "label_below": 0.8,
    "label_above": 0.85,
    "banner": 0.8,
    "phone_kind": 0.8,
}

#: Kinds whose values are formatted tightly enough to be read after a label with no colon.
_INLINE_KINDS: frozenset[Kind] = frozenset(
    {"date", "amount", "email", "url", "phone", "iban", "bic", "identifier", "currency"}
)

COLON_RE = re.compile("\\s*[:\uff1a]\\s*")


#: A line that opens with a tick mark, then words: an option marked on a scan ("X GROUP", "☒ Self").
_MARKED_OPTION_RE = re.compile(r"\s*[xX\u2612\u2713\u2714]\s+[^\W\d_]")
#: A check box, ticked or not, among a line's words.
_BOX_MARK_RE = re.compile("[\u2610\u2611\u2612\u2713\u2714]")


#: An empty box standing alone in a cell: a choice's option left unmarked follows it.
_EMPTY_BOX_RE = re.compile(f"^\\s*{EMPTY_BOX}\\s*$")


def after_empty_box(unit: TextUnit, units: list[TextUnit]) -> bool:
    """Whether an empty box stands just left of `unit` on its row, in a cell of its own (the
    unit is the box's option)."""
    if unit.box is None:
        return False
    height = unit.box.y1 - unit.box.y0
    return any(
        u.box is not None
        and u.page == unit.page
        and _EMPTY_BOX_RE.match(u.text)
        and same_row(u.box, unit.box)
        and 0 <= unit.box.x0 - u.box.x1 <= height
        for u in units
    )


def _state_under_its_label(unit: TextUnit, units: list[TextUnit]) -> bool:
    """Whether `unit` is a state's code that is also a label word ("ID", "OR"), standing under a
    label of the state: the value of that label."""
    if not code_like_label("state", unit.text):
        return False
    return any(
        concept_of(other.text) == "state" and unit in below(other, units)[:1]
        for other in units
        if other.page == unit.page and other is not unit
    )


def label_candidates(
    units: list[TextUnit],
    skews: dict[int, float],
    name: str,
    kind: Kind,
    order: DateOrder,
    captions: CaptionIndex | None = None,
) -> Iterator[Candidate]:
    """Every value a label of the field points at, in the lines and cells of the page."""
    for unit in units:
        same_line = list(same_line_candidates(unit, name, kind, order))
        yield from same_line
        if not same_line:
            yield from prefix_label_candidates(unit, name, kind, order)
        if same_line or _holds_value(without_item_number(unit.text), kind):
            # "Total: 9.00" is a label with its value, not a label for the line below.
            continue
        if captions is not None and captions.captioned(unit):
            # A value typed over its caption ("ID" over "State") labels nothing.
            continue
        if _state_under_its_label(unit, units):
            # "ID" under "State": the state's value, no label of the ZIP code beside it.
            continue
        if _MARKED_OPTION_RE.match(unit.text) or _BOX_MARK_RE.search(unit.text):
            # "X GROUP", "Home ☒ Cell Work": options of a choice, which the line answers itself; no
            # label of what is beside or under it.
            continue
        label_part = caption_core(COLON_RE.sub(" ", unit.text).strip())
        score = match_label(name, label_part) if label_part else 0.0
        if score < LABEL_THRESHOLD:
            continue
        if (
            kind == "text"
            and score < SYNONYM_SCORE
            and not unit.text.rstrip().endswith(":")
            and not is_label_like(label_part)
        ):
            # Free text has no shape to check, so only a clear label may point at it.
            continue
        # The whole line is the label: look beside it and under it; the nearer value is likelier.
        found: list[tuple[float, Candidate]] = []
        under = below(unit, units)
        right = right_of(unit, units, skews.get(unit.page, 0.0))
        if captions is not None:
            # A value with a caption of its own under it is that caption's, not this label's.
            under = [u for u in under if not captions.captioned(u)]
            if kind != "amount" and captions.above(unit):
                # Nor is the next caption along a row of captions ("Date of Birth (MM/DD/YYYY)"
                # beside "Name (Last, First)"): a caption under its value is no value. (A
                # receipt's rows of amounts, one over the next, read as captions: not for them.)
                right = [u for u in right if not captions.above(u)]
        for strategy, neighbours in (
            ("label_right", right),
            ("label_below", under),
            ("label_above", captions.above(unit) if captions is not None else []),
        ):
            if strategy == "label_above" and any(c.strategy == "label_right" for _, c in found):
                # A label with its value beside it captions nothing above it.
                continue
            for neighbour in neighbours:
                if (
                    strategy == "label_right"
                    and captions is not None
                    and captions.above(unit)
                    and captions.above(neighbour)
                ):
                    # Beside a caption under its value stands the next caption, not a value.
                    break
                if strategy == "label_right" and after_empty_box(neighbour, units):
                    # "☐ Male ☒ Female" in cells of their own: an option left unmarked is no
                    # value; the marked one is read from the whole row (`choice_rows`).
                    break
                reading = read_value(kind, neighbour.text, order=order)
                # A value of a distinctive shape standing alone is no label, even where its words
                # look like one ("gmail" is one letter away from "email").
                shaped = (
                    reading is not None and kind in _INLINE_KINDS and follows(neighbour.text, reading.raw)
                )
                # Nor is a line that starts with a number ("18339 Belmont Street" under "Street").
                shaped = shaped or (reading is not None and neighbour.text.lstrip()[:1].isdigit())
                # Nor is a state's code under a label of the state ("ID" under "State").
                shaped = shaped or (
                    strategy == "label_below" and code_like_label(concept_of(name), neighbour.text)
                )
                # A numbered caption ("11c. INSURANCE PLAN NAME") is the next label, its number
                # no value.
                if _item_number_only(neighbour.text, reading) or (
                    not shaped
                    and (
                        is_other_label(neighbour.text)
                        or is_label_like(neighbour.text)
                        or labelled_elsewhere(neighbour.text, name)
                        or (
                            match_label(name, neighbour.text) >= LABEL_THRESHOLD
                            and not _names_more(neighbour.text)
                        )
                    )
                ):
                    break
                if reading is not None:
                    found.append(
                        (
                            _gap(unit, neighbour),
                            scored_candidate(reading, score, strategy, [neighbour], label_part),
                        )
                    )
                    break
        nearest = min((gap for gap, _ in found), default=0.0)
        beside = any(c.strategy == "label_right" for _, c in found)
        for gap, candidate in found:
            if kind == "amount" and beside and candidate.strategy == "label_below":
                # Amounts are chosen by their label and size, not by score (`choosing.choose`): an amount
                # under the label ("CASH : 100.00" under "Total Sales : 80.90") would win by size
                # over the one on the label's own line, which is its value.
                continue
            if gap > nearest:
                candidate.score *= FARTHER_SHARE
            yield candidate


def _item_number_only(text: str, reading: Reading | None) -> bool:
    """Whether `reading` is only the item number that opens a numbered caption."""
    bare = without_item_number(text)
    return reading is not None and bare != text and reading.raw not in bare


#: Of a value right of a label and one under it, the farther one scores this share.
FARTHER_SHARE = 0.9
#: Longest label, in words, that starts a cell holding its value without a colon.
MAX_PREFIX_LABEL_WORDS = 4
#: A number closed by a comma, right after a word: "Shop 6, ..." or "Lot 12A, ...".
_NUMBERED_ITEM_RE = re.compile(r"\d+[A-Za-z]?,")


def _gap(label: TextUnit, value: TextUnit) -> float:
    """How far `value` stands from `label`, in label heights (0 without boxes)."""
    if label.box is None or value.box is None:
        return 0.0
    height = max(label.box.y1 - label.box.y0, 1e-6)
    horizontal = max(value.box.x0 - label.box.x1, 0.0)
    vertical = max(value.box.y0 - label.box.y1, 0.0)
    return max(horizontal, vertical) / height


def prefix_label_candidates(unit: TextUnit, name: str, kind: Kind, order: DateOrder) -> Iterator[Candidate]:
    """`LABEL value` without a colon, where the first words are nothing but a label of the field
    ("INSURANCE COMPANY Blue Cross", "Your Doctor S. Oyelaran, MD"): a form's cell whose label is
    set above or before its value."""
    words = unit.text.split()
    if unit.element.type == "title" or match_label(name, unit.text) >= SYNONYM_SCORE:
        # A title ("HEALTH INSURANCE CLAIM FORM") is no label with its value; nor is a cell that
        # is one of the field's labels ("INSURANCE PLAN"): its value is elsewhere.
        return
    if unit.text.lstrip().startswith(("(", "[")):
        # A note in brackets ("(Supplier Rpt.)" under "Final Report Due") names what a line
        # above asks for; its words are no label with its value.
        return
    for n in range(min(MAX_PREFIX_LABEL_WORDS, len(words) - 1), 0, -1):
        label = " ".join(words[:n])
        if not any(ch.isalnum() for ch in words[n - 1]) or not is_label_like(label):
            # "Sex ☒ M F": a mark after the label is the value's ("☒ M"), never the label's end.
            continue
        score = match_label(name, label)
        if score < SYNONYM_SCORE or _longer_label_of_other_concept(label, words[n]):
            return
        rest = past_alternative(" ".join(words[n:]))
        other = past_other_wording(rest, 0, label)
        rest = rest if other is None else rest[other:]
        if is_caption_hint(rest):
            return
        if kind == "text" and _NUMBERED_ITEM_RE.match(rest):
            # "SHOP 6, 196 Orchard St": a word and its number open a list of an address's parts
            # (a shop, unit or lot number), not a label and its value.
            return
        if kind == "text":
            rest = up_to_next_label(rest)
        reading = read_value(kind, rest, leading=True, order=order)
        if reading is not None and follows(rest, reading.raw) and not _label_words_only(reading.value, name):
            yield scored_candidate(reading, score, "label_inline", [unit], label)
        return


#: A bracket that ends a line: the label's hint at a format or its options ("(mm/dd/yyyy)").
_HINT_RE = re.compile(r"^\s*\([^()]*\)[\s:.]*$")


def is_caption_hint(rest: str) -> bool:
    """Whether what follows a label is only a bracketed hint, so the whole line is the label."""
    return bool(_HINT_RE.match(rest))


#: Longest alternative a caption offers after "OR", in words ("PLAN NAME OR PROGRAM NAME").
MAX_ALTERNATIVE_WORDS = 4


def past_alternative(rest: str) -> str:
    """What follows a label once the caption's alternative is skipped: a caption "INSURANCE PLAN
    NAME OR PROGRAM NAME" names the value twice, and the alternative ends with a label word
    ("name", "number"). Unchanged when no label word ends an alternative within a few words
    ("OR" alone may be Oregon)."""
    words = rest.split()
    if not words or words[0].lower() not in ("or", "and/or"):
        return rest
    known = vocabulary_words()
    for n in range(1, min(MAX_ALTERNATIVE_WORDS, len(words) - 1) + 1):
        if words[n].lower().strip(".,:#") in known:
            return " ".join(words[n + 1 :])
    return rest


def _longer_label_of_other_concept(label: str, next_word: str) -> bool:
    """Whether `label` and the word after it, up to a colon or digit, name another concept: the
    label is then that longer one ("Company No:002643278-A" is a registration number, not a
    company)."""
    head = re.split(r"[:\uff1a\d]", next_word, maxsplit=1)[0]
    if not head:
        return False
    longer = concept_of(f"{label} {head}")
    return longer is not None and longer != concept_of(label)


def _names_more(text: str) -> bool:
    """Whether `text`, which reads like the field's label, is a name that ends in the word for
    the kind of thing it names, after words of its own: a value ("Kansas City" under "City",
    "Blue Cross Insurance Company" under "Insurance Company"), not the label again or an
    OCR-damaged copy of it ("Ctiy")."""
    tokens = [t for t in label_tokens(text) if t.isalpha()]
    known = vocabulary_words()
    return (
        len(tokens) > 1 and tokens[-1] in known and any(t not in known and len(t) >= 3 for t in tokens[:-1])
    )


def _label_words_only(value: str, name: str | None = None) -> bool:
    """Whether a value is made of label words alone ("Name", "Home Phone"): the next label, not a
    value. A name that only appears inside longer labels ("Medicare", of "Medicare ID") counts
    as a value, and so does a state's code after a label of the state ("State ID")."""
    if name is not None and code_like_label(field_spec(name).concept, value):
        return False
    tokens = set(label_tokens(value))
    return tokens <= vocabulary_words() and (len(tokens) > 1 or concept_of(value) is not None)


def _holds_value(text: str, kind: Kind) -> bool:
    if kind == "text":
        parts = COLON_RE.split(text, maxsplit=1)
        return len(parts) == 2 and bool(parts[1].strip())
    return read_value(kind, text) is not None


def labelled_elsewhere(text: str, name: str) -> bool:
    """Whether `text` is `Label: value` for a label of another concept ("DOB: 02/19/1964" under
    an empty "Middle:", "Sex / Sexo: M"), or `Label value` where the value holds a digit or an "@" ("Work Phone
    541-920-0361" beside an empty "Middle Name"): another field's value, not this one's."""
    head, colon, _ = text.partition(":")
    heads = [head] if colon and head.strip() else []
    if heads and "/" in head:
        # A label printed in two languages ("Sex / Sexo:") is its first wording.
        heads.append(head.split("/")[0])
    if not colon and any(c.isdigit() or c == "@" for c in text):
        words = text.split()
        heads = [" ".join(words[:n]) for n in range(min(MAX_PREFIX_LABEL_WORDS, len(words) - 1), 0, -1)]
        heads = [h for h in heads if not any(c.isdigit() for c in h)]
    for label in heads:
        other = concept_of(label) if is_label_like(label) else None
        if other is not None:
            return not related_concepts(other, concept_of(name))
    return False


def is_other_label(text: str) -> bool:
    """A line such as "CASHIER:" or "GST No." ends the search for a value: it is another label."""
    return (text.rstrip().endswith(":") and any(c.isalnum() for c in text)) or is_label(text)


def scored_candidate(
    reading: Reading, label_score: float, strategy: str, units: list[TextUnit], label: str
) -> Candidate:
    return Candidate.of(reading.value, PRIORS[strategy] * label_score, units, reading.raw, strategy, label)


_WORD_RE = re.compile(r"[^\s:\uff1a]+[:\uff1a]?|[:\uff1a]")
_NUMBER_WORD_RE = re.compile(r"\d+(?:[.,]\d+)?")
_PREPOSITIONS = frozenset({"on", "of", "at", "for", "from", "to", "per", "by", "x"})
#: Longest label, in words, looked for inside a line.
_MAX_LABEL_WORDS = 6
_LEADING_NOISE_RE = re.compile(r"^[\s:\uff1a.#*\-()\[\]|]*")


def follows(rest: str, raw: str) -> bool:
    """Whether `raw` starts `rest` (past punctuation): the value sits right after its label."""
    position = rest.find(raw)
    return position >= 0 and _LEADING_NOISE_RE.sub("", rest[:position]) == ""


def _word_at(words: list[re.Match[str]], index: int) -> str:
    return words[index].group(0) if index < len(words) else ""


def _state_of_address(before: str, label: str, after: str) -> bool:
    """Whether a label word is a state's code between a town and its ZIP code ("Boise, ID 83702"):
    an address, not the label "ID" and its value."""
    return before.endswith(",") and label.isupper() and valid_state(label) and valid_zip(after)


def same_line_candidates(unit: TextUnit, name: str, kind: Kind, order: DateOrder) -> Iterator[Candidate]:
    """`Label: value` and, for shaped values, `Label value`, anywhere in one line: the best label.

    A label inside a line ("DocNo CS0004 Date: 11/01/2019") counts unless the word before it
    makes it another label ("Sub Total 12.00" names no total).
    """
    text = unit.text
    words = list(_WORD_RE.finditer(text))
    concept = concept_of(name)
    anchors = concept_words(name)
    best: tuple[float, str, Reading, str] | None = None
    best_start = -1
    for i in range(len(words)):
        if not anchors.intersection(label_tokens(words[i].group(0))):
            # A label starts with one of the field's words ("Grand Total", "Invoice No").
            continue
        for n in range(1, min(_MAX_LABEL_WORDS, len(words) - i - 1) + 1):
            last = words[i + n - 1]
            label = text[words[i].start() : last.end()].rstrip(":\uff1a ")
            after = text[last.end() : words[i + n].start()]
            other = past_other_wording(text, last.end(), label) if label else None
            colon = last.group(0).endswith((":", "\uff1a")) or ":" in after or "\uff1a" in after
            colon = colon or other is not None
            strategy = "label_colon" if colon else "label_inline"
            if not label or (strategy == "label_inline" and kind not in _INLINE_KINDS):
                continue
            if i > 0 and ((kind == "text" and not colon) or _extends(text, words[i - 1], last, concept)):
                continue
            if (
                not colon
                and i > 0
                and n == 1
                and _state_of_address(words[i - 1].group(0), label, _word_at(words, i + 1))
            ):
                continue
            score = match_label(name, label)
            tail = label_tokens(label)[-1:]
            bare_number = _NUMBER_WORD_RE.fullmatch(last.group(0).rstrip(":\uff1a"))
            if (
                score < LABEL_THRESHOLD
                or (bare_number and score < SYNONYM_SCORE)
                or (tail and tail[0] in _PREPOSITIONS)
            ):
                # "Tax 15% on $ 112.90": what follows a preposition is its object, not the value;
                # "DE 232 446 240": a number after a number is the rest of one value.
                continue
            start = words[i + n].start() if other is None else other
            rest = text[start:]
            if not colon and is_caption_hint(text[last.end() :]):
                # "Date of birth (mm/dd/yyyy)", "Sex (M/F)": the label's format or options (after
                # a colon a bracket is the value: "Subscriber: (self)").
                continue
            if kind == "text":
                rest = up_to_next_label(rest)
            reading = read_value(kind, rest, leading=True, order=order)
            if reading is None or not follows(rest, reading.raw):
                continue
            if kind == "amount" and _inside_date(text, start + rest.find(reading.raw)):
                # "TOTAL AMOUNT DUE ON August 3 , 2014": a year is no amount.
                continue
            weighted = score * PRIORS[strategy]
            # At an equal score the longer label from the same word wins: "Member ID CD74..." is
            # "Member ID" and its value, not "Member" and "ID CD74...".
            if best is None or weighted > best[0] or (weighted == best[0] and i == best_start):
                best = (weighted, strategy, reading, label)
                best_start = i
    if best is not None:
        _, strategy, reading, label = best
        yield scored_candidate(reading, match_label(name, label), strategy, [unit], label)


def _inside_date(text: str, position: int) -> bool:
    return any(d.start <= position < d.end for d in find_dates(text))


def _extends(text: str, previous: re.Match[str], last: re.Match[str], concept: str | None) -> bool:
    """Whether the word before a label joins it into a label of another concept."""
    if previous.group(0).endswith((":", "\uff1a")):
        return False
    longer = concept_of(text[previous.start() : last.end()])
    return longer is not None and not related_concepts(longer, concept)


def up_to_next_label(rest: str) -> str:
    """Free text after a label runs up to the next `Label:` on the line ("MANIS Member: 7")."""
    match = re.search("\\s*\\S+[:\uff1a]", rest)
    return rest[: match.start()] if match and match.start() > 0 else rest
