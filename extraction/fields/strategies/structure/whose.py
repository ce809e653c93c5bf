"""Whose value it is: the person a label, a section or a table row names.

A form names several people: the patient, a guarantor or spouse who holds the policy, an
emergency contact, a primary care doctor beside a referring one, a pharmacy. A field asked for
one of them takes no value labelled as another's. Rows of a table name which coverage they hold
("Primary", "Secondary"): the primary one is the one a form's single policy field means.
"""

from __future__ import annotations

import re
import unicodedata

from extraction.fields.reading.text_lines import TextUnit, same_row

#: Words of a label that name a doctor other than the one who cares for the patient: one who
#: referred or ordered, a former one, a specialist or a dentist beside the primary one.
OTHER_PROVIDER_WORDS = frozenset(
    {
        "referring", "referred", "referral", "ref", "refirio", "referido", "ordering", "pharmacy", "pharmacist", "specialist",
        "consulting", "previous", "former", "prior", "dentist", "dental", "surgeon", "optometrist",
        "ophthalmologist", "chiropractor", "therapist", "psychiatrist", "cardiologist", "gynecologist",
    }
)  # fmt: skip
#: A value labelled as a referring doctor's scores this share for the patient's provider.
OTHER_PROVIDER_SHARE = 0.7
#: Words of a row heading that name a coverage after the first.
LATER_COVERAGE_WORDS = frozenset({"secondary", "tertiary", "second", "third", "supplemental"})
#: A value on a row of a later coverage scores this share.
LATER_COVERAGE_SHARE = 0.8


def _words(text: str) -> set[str]:
    # Plain words: `label_tokens` mends misspellings, and "referred" is one letter from "preferred".
    # Accents are taken off, as labels are matched ("refirió" is "refirio").
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return set(re.findall(r"[a-z]+", bare.lower()))


def other_provider(label: str) -> bool:
    """Whether a label names a referring or ordering doctor, or a pharmacy, not the patient's own."""
    return bool(_words(label) & OTHER_PROVIDER_WORDS)


def later_coverage(text: str) -> bool:
    """Whether a row heading names a secondary (or later) coverage."""
    return bool(_words(text) & LATER_COVERAGE_WORDS)


def row_heading(unit: TextUnit, units: list[TextUnit]) -> TextUnit | None:
    """The leftmost unit on `unit`'s visual row (itself when nothing stands left of it)."""
    if unit.box is None:
        return None
    row = [u for u in units if u.page == unit.page and u.box is not None and same_row(unit.box, u.box)]
    return min(row, key=lambda u: u.box.x0 if u.box else 0.0, default=None)
