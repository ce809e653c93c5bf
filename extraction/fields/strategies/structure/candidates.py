"""Candidates the form's structure gives where no label names the field itself: a combined caption
("Name (Last, First MI)", "City, State ZIP"), the city line under a street, an EHR banner."""

import re
from collections.abc import Iterator

from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.reading.normalize import concept_of, is_label_like
from extraction.fields.reading.text_lines import below, right_of
from extraction.fields.reading.vocabulary import (
    FieldSpec,
    is_other_party,
)
from extraction.fields.strategies.label_pairs import PRIORS, is_other_label, up_to_next_label
from extraction.fields.strategies.structure.address_lines import city_lines
from extraction.fields.strategies.structure.banner import banner_names
from extraction.fields.strategies.structure.combined import combined_caption, names_parts

#: Concepts a combined caption ("Name (Last, First MI)", "City, State ZIP") may hold.
COMBINED_CONCEPTS = frozenset({"first_name", "middle_name", "last_name", "city", "state", "zip"})
_PARENS_RE = re.compile(r"\([^)]*\)")


def _combines(label: str, spec: FieldSpec) -> bool:
    """Whether `label` is a caption of several parts that holds the field's part: the person's
    name is what the label says without its parenthesis ("PCP (Last, First)" is the doctor's,
    "Name (Last, First MI)" the patient's)."""
    if spec.part is None:
        return combined_caption(label, spec.concept)
    if not names_parts(label) or spec.whole_name is None:
        return False
    bare = _PARENS_RE.sub(" ", label).strip()
    whose = concept_of(bare) if bare else None
    if spec.patient_owned:
        return whose in (None, "full_name", "first_name", "last_name", "middle_name") and not is_other_party(
            bare
        )
    return whose == spec.whole_name


#: A form's item number before a caption ("4. ", "11c. ").
_NUMBERING_RE = re.compile(r"^\s*\d{1,2}[a-z]?\.\s*")


def _is_caption(text: str) -> bool:
    return is_label_like(_NUMBERING_RE.sub("", text)) or is_other_label(text)


def combined_candidates(ctx: FieldContext, spec: FieldSpec) -> Iterator[Candidate]:
    """Values of captions that combine several parts ("Name (Last, First MI)", "City, State
    ZIP"), whatever the caption scores against the field's own labels: `shaped` takes the part."""
    for unit in ctx.units:
        label, colon, rest = unit.text.partition(":")
        if colon and rest.strip() and _combines(label, spec):
            value = up_to_next_label(rest.strip())
            yield Candidate.of(value, PRIORS["label_colon"], [unit], value, "whole_name", label)
        elif not colon and _combines(unit.text, spec):
            right = right_of(unit, ctx.units, ctx.skews.get(unit.page, 0.0))
            above = ctx.captions.above(unit)
            if above:
                # A caption's neighbour along a row of captions is the next caption, no value.
                right = [u for u in right if not ctx.captions.above(u)]
            # The next caption along the row ("4. INSURED'S NAME (Last Name, ...)") is no value.
            right = [u for u in right if not _is_caption(u.text)]
            found = [("label_right", u) for u in right][:1]
            # A caption under its value captions that value first.
            found[:0] = [("label_above", u) for u in above]
            found += [("label_below", u) for u in below(unit, ctx.units) if not ctx.captions.captioned(u)][:1]
            found = [(s, u) for s, u in found if not (is_label_like(u.text) or is_other_label(u.text))]
            for strategy, value_unit in found[:1]:
                yield Candidate.of(
                    value_unit.text, PRIORS[strategy], [value_unit], value_unit.text, "whole_name", unit.text
                )


def city_line_candidates(ctx: FieldContext) -> Iterator[Candidate]:
    """ "City, ST 12345" under the street it continues (`structure.address_lines`)."""
    for unit in city_lines(ctx.units):
        yield Candidate.of(
            unit.text, PRIORS["label_below"] * unit.confidence, [unit], unit.text, "city_line", ""
        )


def banner_candidates(ctx: FieldContext) -> Iterator[Candidate]:
    """The patient's whole name from a print-out's banner (`structure.banner`)."""
    for unit in banner_names(ctx.lines):
        yield Candidate.of(unit.text, PRIORS["banner"] * unit.confidence, [unit], unit.text, "banner", "")
