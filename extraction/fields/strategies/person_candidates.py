"""Candidates found by whose value it is: a labelled value of the field (the page's lines and
cells, then its tables), a part of a doctor's name under a label of that part or inside a doctor's
section, and the patient's phone under a plain telephone label where no label names a kind."""

from __future__ import annotations

from collections.abc import Iterator

from extraction.fields.model.candidate import Candidate
from extraction.fields.model.context import FieldContext
from extraction.fields.reading.concepts import CONCEPTS
from extraction.fields.reading.normalize import caption_core, concept_of, label_tokens
from extraction.fields.reading.value_kinds import Kind
from extraction.fields.reading.vocabulary import FieldSpec, field_spec
from extraction.fields.strategies.label_pairs import label_candidates
from extraction.fields.strategies.shaping import belongs, caption_head, shaped
from extraction.fields.strategies.structure.combined import names_parts
from extraction.fields.strategies.structure.phone_kinds import offers_kinds
from extraction.fields.strategies.structure.self_holder import PATIENT_PART_FIELDS
from extraction.fields.strategies.table_cells import table_candidates


def labelled_candidates(ctx: FieldContext, name: str, kind: Kind) -> Iterator[Candidate]:
    """What labels of the field point at, in the page's lines and cells, then in its tables."""
    yield from label_candidates(ctx.units, ctx.skews, name, kind, ctx.order, ctx.captions)
    yield from table_candidates(ctx.doc, name, kind, ctx.order)


#: A phone under a plain "Telephone" label answers a cell phone field at this share of its score:
#: where the form names no kind, its telephone is the number to reach the patient at.
PLAIN_PHONE_SHARE = 0.9


def whole_name_candidates(ctx: FieldContext, spec: FieldSpec) -> Iterator[Candidate]:
    """Values after labels of the whole name the field asks a part of (`provider_last_name` in
    "Provider Name: ..."): `shaping.shaped` takes the part."""
    if spec.whole_name is None:
        return
    for candidate in labelled_candidates(ctx, spec.whole_name.replace("_", " "), "text"):
        candidate.strategy = "whole_name"
        yield candidate


def plain_phone_candidates(ctx: FieldContext, spec: FieldSpec, kind: Kind) -> list[Candidate]:
    """The patient's phone under a label that names no kind ("TELEPHONE (Include Area Code)"),
    read only where no label or mark names a cell phone: the first on the page, as a form asks
    for the patient's own before anyone else's (an insured's, an employer's)."""
    found = []
    for labelled in labelled_candidates(ctx, "phone", kind):
        candidate = shaped(labelled, spec, ctx)
        if candidate is None or not belongs(candidate, spec, ctx):
            continue
        if any(set(label_tokens(u.text)) & _FAX_WORDS for u in candidate.units):
            # "Tel ... Fax ..." is an office's contact line (a letterhead's), not a patient's.
            continue
        if offers_kinds(candidate.units[0], ctx.units):
            # Kinds to mark beside it, none read as marked: whose number it is stays unknown.
            continue
        found.append(candidate)
    # A phone above every label of the patient's name or birth date is the office's (a
    # letterhead's "Phone"), not one the form asks the patient for.
    asked = [u for u in ctx.units if concept_of(caption_core(u.text)) in _PERSON_CONCEPTS]
    found = [c for c in found if any(u.page == c.units[0].page and u.order < c.units[0].order for u in asked)]
    if not found:
        return []
    first = min(found, key=lambda c: c.units[0].order)
    first.score *= PLAIN_PHONE_SHARE
    return [first]


_PERSON_CONCEPTS = frozenset({"first_name", "last_name", "full_name", "date_of_birth"})
_FAX_WORDS = frozenset(t for phrase in CONCEPTS["fax"] for t in label_tokens(phrase))


def own_part_candidates(ctx: FieldContext, spec: FieldSpec, kind: Kind) -> Iterator[Candidate]:
    """Values after labels that name the same part of the same person's name as the field
    ("Doctor's Last Name" for `provider_last_name`)."""
    for candidate in labelled_candidates(ctx, spec.name, kind):
        # The whole caption before a colon ("Physician Last Name:"), not only its matched tail.
        caption = caption_head(candidate.units[0].text) or candidate.label
        label = field_spec(caption)
        if label.owner == spec.owner and label.part == spec.part and not names_parts(caption):
            yield candidate


def section_part_candidates(ctx: FieldContext, spec: FieldSpec) -> Iterator[Candidate]:
    """A part of a doctor's name read after a plain label ("Last Name", "Name") inside a section
    about a doctor: the section says whose name it is, and its heading is the label's first part
    (so a referring doctor's section counts as one)."""
    if spec.owner != "provider" or spec.part is None or not ctx.provider_places:
        return
    part_spec = field_spec(PATIENT_PART_FIELDS[spec.part])
    # In a doctors' section, "Primary:" labels the patient's own doctor as "Name:" does.
    for label_spec, whole in (
        (part_spec, False),
        (field_spec("full_name"), True),
        (field_spec("primary"), True),
    ):
        for candidate in labelled_candidates(ctx, label_spec.name, "text"):
            headings = {ctx.provider_places.get((u.page, u.box)) for u in candidate.units}
            heading = next(iter(headings), None)
            if len(headings) != 1 or heading is None:
                continue
            candidate.label = f"{heading} {candidate.label}"
            found = shaped(candidate, spec if whole else part_spec, ctx)
            if found is not None:
                yield found
