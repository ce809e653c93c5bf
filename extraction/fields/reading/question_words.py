"""How a field name that is a form's printed question is compared with the words on the page:
by its letters and digits run together (OCR splits and glues words), with the letters OCR reads
for one another taken as one, and its case; and where another asked question, printed inside a
value, ends it."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from extraction.fields.reading.date_text import MONTH_RE
from extraction.fields.reading.normalize import is_label
from extraction.fields.reading.ocr_reads import ocr_alike

#: Least similarity (0..1, over the words run together) of printed text to the question.
MIN_SIMILARITY = 0.82
#: Questions this short (letters and digits) must be printed exactly: one OCR slip in "Type"
#: reads as another word.
EXACT_UP_TO_CHARS = 4
#: Words: runs of letters or of digits ("1993DEPARTMENT" is a date glued to the next question),
#: and a run of capitals ends before a capitalised word glued to it ("DATEJune 3": a question
#: glued to its answer).
TOKEN_RE = re.compile(r"\d+|[A-Z]{2,}(?=[A-Z][a-z])|[^\W\d_]+")

#: A number or a date right after a label (`number_after`): a month's name as dates are read.
_NUMBER_AFTER_RE = re.compile(
    rf"\s*(?:\(\s*)?[$£€]?\s*\d|\s*(?:{MONTH_RE})\.?\s+\d",
    re.IGNORECASE,
)
#: The first word of a line in capitals (`known_label_with_value`).
_CAPITAL_HEAD_RE = re.compile(r"\s*([A-Z][A-Z.#]*)(?=\s)")


def number_after(text: str, at: int) -> bool:
    """Whether a number or a date starts at `at` of `text` ("(0 30) 555-2", "June 3, 1990")."""
    return bool(_NUMBER_AFTER_RE.match(text, at))


def known_label_with_value(text: str) -> bool:
    """Whether `text` starts with a known label in capitals before a number or a date ("DATE
    10/22/98"): a question printed with its value."""
    head = _CAPITAL_HEAD_RE.match(text)
    return head is not None and is_label(head.group(1)) and number_after(text, head.end())


def is_question_name(name: str) -> bool:
    """Whether a field name is a printed question to look for as written: text the vocabulary
    does not know as a whole label ("Nature of work", not "Date"), and not an identifier
    ("partner_ref", which no form prints)."""
    return is_printed_name(name) and not is_label(name)


def is_printed_name(name: str) -> bool:
    """Whether a field name is written as a form prints it, not as an identifier ("partner_ref")."""
    return bool(TOKEN_RE.search(name)) and not ("_" in name and " " not in name.strip())


def compact_words(text: str) -> str:
    """`text`'s letters and digits run together, case-folded: how questions are compared."""
    return "".join(t.casefold() for t in TOKEN_RE.findall(text))


def similarity(question: str, printed: str) -> float:
    """How alike two texts are, 0..1, over their letters and digits run together (OCR splits
    and glues words), letters OCR reads for one another taken as one (`ocr_alike`); questions
    of up to `EXACT_UP_TO_CHARS` must be the same."""
    a, b = compact_words(question), compact_words(printed)
    if not a or not b:
        return 0.0
    alike_a, alike_b = ocr_alike(a), ocr_alike(b)
    if len(a) <= EXACT_UP_TO_CHARS:
        # A colon may be read as a stroke glued to the question ("T01" for "TO:").
        colon = b.endswith("1") and a[-1].isalpha() and alike_b[:-1] == alike_a
        return 1.0 if alike_a == alike_b or colon else 0.0
    # A longer question may lose a letter at its edge ("OB NO" for "JOB NO"): its length, not
    # the printed text's, says whether one slip is another word. Made alike, the texts are
    # shorter ("cl" is one letter), so each other slip weighs more: the better of both.
    return max(fuzz.ratio(a, b), fuzz.ratio(alike_a, alike_b)) / 100.0


def same_case(question: str, printed: str) -> bool:
    """Whether `printed` spells the question's letters and digits in the question's case."""
    return "".join(TOKEN_RE.findall(question)) == "".join(TOKEN_RE.findall(printed))


#: Another question ends a value only when it is this long at least (letters and digits): a
#: short one ("To", "No") is as often a word of the value.
MIN_ENDING_QUESTION_CHARS = 6


def before_other_question(value: str, name: str, others: list[str]) -> str:
    """`value` up to where another asked question (printed as written, whole words) starts in
    it, past its start."""
    cut = len(value)
    for other in others:
        if (
            other == name
            or not is_printed_name(other)
            or len(compact_words(other)) < MIN_ENDING_QUESTION_CHARS
        ):
            continue
        words = TOKEN_RE.findall(other)
        pattern = r"\b" + r"\W*".join(re.escape(w) for w in words) + r"\b"
        found = re.search(pattern, value, re.IGNORECASE)
        if found is not None and found.start() > 0 and value[: found.start()].strip():
            cut = min(cut, found.start())
    return value[:cut].rstrip(" ,;:-") if cut < len(value) else value
