"""Several fields under one caption that lists them, the value giving them in the caption's order,
as EHR print-outs and dense forms set them: "DOB / Age / Sex" over "09/02/1971 / 55 y / M",
"Phone (H) / (C)" over "518-634-7710 / (518) 694-4613", "Tel H/W/C". The caption says which part
is which, as a combined name's caption says which word is the last name (`combined.py`).

Parts are told apart by the value's spaced slashes (a date's own slashes have no spaces), phones
by their numbers; a value with another count of parts than the caption is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.reading.normalize import concept_of
from extraction.fields.reading.text_lines import below, right_of
from extraction.fields.reading.vocabulary import FieldSpec
from extraction.fields.strategies.label_pairs import PRIORS
from extraction.fields.strategies.structure.phone_kinds import KIND_CONCEPTS, PHONE_RE

#: Words of a caption that name a phone's kind, and the concept of the field each answers.
KIND_WORDS = {
    **{kind.lower(): concept for kind, concept in KIND_CONCEPTS.items()},
    "business": "work_phone",
    "h": "home_phone",
    "c": "mobile",
    "m": "mobile",
    "w": "work_phone",
}
#: Words that make a caption a phone's (a one-letter kind means nothing without one).
PHONE_WORDS = frozenset({"phone", "phones", "ph", "tel", "telephone", "telephones"})
#: Other words such a caption may hold.
_JOINING_WORDS = frozenset({"number", "numbers", "no", "or", "and"})


def listed_kinds(caption: str) -> list[str]:
    """The phone kinds a caption lists, in its order, when it lists two or more and nothing
    else ("Phone (H) / (C)" -> home, mobile); otherwise none."""
    words = re.findall(r"[a-z]+", caption.lower())
    if not words or any(
        w not in KIND_WORDS and w not in PHONE_WORDS and w not in _JOINING_WORDS for w in words
    ):
        return []
    named = any(w in PHONE_WORDS for w in words)
    kinds = [KIND_WORDS[w] for w in words if w in KIND_WORDS and (named or len(w) > 1)]
    return kinds if len(kinds) >= 2 and len(set(kinds)) == len(kinds) else []


def listed_concepts(caption: str) -> list[str]:
    """The concepts a caption lists between slashes, each a label of its own ("DOB / Age /
    Sex"), when there are two or more and each is named once; otherwise none."""
    parts = [p for p in _CAPTION_SLASH_RE.split(caption) if p.strip()]
    concepts = [concept_of(p) for p in parts]
    if len(concepts) < 2 or None in concepts or len(set(concepts)) != len(concepts):
        return []
    return [c for c in concepts if c is not None]


def listed_part(caption: str, value: str, concept: str) -> str | None:
    """The part of `value` that answers `concept`, when the caption lists phone kinds or
    concepts in order and the value holds exactly as many numbers or parts."""
    kinds = listed_kinds(caption)
    if kinds:
        parts = [str(n) for n in PHONE_RE.findall(value)]
    else:
        kinds = listed_concepts(caption)
        parts = [p.strip() for p in _VALUE_SLASH_RE.split(value)]
    if concept not in kinds or len(parts) != len(kinds) or not all(parts):
        return None
    return parts[kinds.index(concept)]


#: A slash between two labels of a caption, and a spaced one between two parts of a value.
_CAPTION_SLASH_RE = re.compile(r"\s*/\s*")
_VALUE_SLASH_RE = re.compile(r"\s+/\s+")


def listed_candidates(ctx: FieldContext, spec: FieldSpec) -> Iterator[Candidate]:
    """The field's part (by its concept) under each caption that lists several: after its
    colon, or in the cell beside it or under it."""
    concept = spec.concept
    if concept is None:
        return
    for unit in ctx.units:
        caption, colon, rest = unit.text.partition(":")
        if colon and rest.strip():
            places = [("label_colon", unit, rest)]
        else:
            if not (listed_kinds(unit.text) or listed_concepts(unit.text)):
                continue
            beside = right_of(unit, ctx.units, ctx.skews.get(unit.page, 0.0))[:1]
            under = below(unit, ctx.units)[:1]
            places = [("label_right", u, u.text) for u in beside] + [
                ("label_below", u, u.text) for u in under
            ]
            caption = unit.text
        for strategy, value_unit, text in places:
            part = listed_part(caption, text, concept)
            if part is not None:
                units = [value_unit] if value_unit is unit else [unit, value_unit]
                yield Candidate.of(part, PRIORS[strategy], units, part, strategy, caption.strip())
                break
