"""What OCR of a scanned form reads for what was printed: letters and digits for one another
("Surnrnary" for "Summary", "Ce1l" for "Cell"), and a tick or a cross in a box as a letter or a
sign ("x", "✓", "冈")."""

from __future__ import annotations

#: Letter groups OCR reads as one another ("Sumame" for "Surname", "Adc" for "Add").
LETTER_GROUPS = (("rn", "m"), ("cl", "d"), ("vv", "w"))
#: Digits OCR reads for the lower-case letters they look like ("T0TAL", "Ce1l", "5IZE").
DIGITS_AS_LETTERS = (("0", "o"), ("1", "l"), ("5", "s"))
#: What OCR reads for what (case-folded, in this order), "i" and "l" taken as one as well.
OCR_ALIKE = (*LETTER_GROUPS, *DIGITS_AS_LETTERS, ("i", "l"))
#: What OCR reads a tick or a cross in a box as.
#: (The recogniser, which also reads Chinese, reads a crossed box as 冈 or 区.)
MARK_CHARS = frozenset("x✓√✔✗✘☑☒冈区⊠")
#: What OCR reads around a mark: the box's sides, dots of a leader.
MARK_FRAME = ".()[]|"


def ocr_alike(text: str) -> str:
    """`text` (case-folded) with the letters and digits OCR reads for one another made one."""
    for seen, meant in OCR_ALIKE:
        text = text.replace(seen, meant)
    return text


def is_mark(text: str) -> bool:
    """Whether `text` is a tick or a cross (in its box's sides), nothing else."""
    core = text.strip().strip(MARK_FRAME).casefold()
    return bool(core) and set(core) <= MARK_CHARS
