"""What OCR of a scanned form reads for what was printed: letters and digits for one another
("Surnrnary" for "Summary", "Ce1l" for "Cell"), and a tick or a cross in a box as a letter or a
sign ("x", "✓", "冈")."""

from __future__ import annotations

#: What OCR reads for what (case-folded, in this order): "rn" for "m", "cl" for "d", a digit
#: for the letter it looks like ("T0TAL", "Ce1l", "5IZE").
OCR_ALIKE = (("rn", "m"), ("cl", "d"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"), ("5", "s"))
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
