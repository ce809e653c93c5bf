"""Digit-versus-letter confusions of OCR, resolved by the token a character stands in.

The recogniser reads each glyph on its own, and on a worn or blurred print "0" and "O", "1" and
"l" or "I" look alike: a postcode comes out as "8110O", a street word as "L0T". The token around
the glyph tells which was meant: a run that is nearly all digits is a number, so its one or two
look-alike letters are digits; a word of letters with a single zero in it is a word, so the zero is
an "O", and a "1" or "5" between two of its letters is an "I" or "l", an "S" or "s". Only these
look-alikes are changed, and only inside a run of letters and digits (a reference such as "U13/BG"
or "113G" mixes them on purpose and has no look-alike to change).
"""

from __future__ import annotations

import re

#: Letters that are read in place of a digit, and the digit meant.
_AS_DIGIT = {"O": "0", "o": "0", "I": "1", "l": "1"}
#: Digits that are read in place of a letter, and the letter meant in upper and in lower case.
_AS_LETTER = {"1": ("I", "l"), "5": ("S", "s")}
#: A run of letters, digits and the look-alikes: the unit whose majority decides.
_RUN_RE = re.compile(r"[0-9A-Za-z]+")
#: Fewest digits in a run read as a number (a lone "1O" says too little).
MIN_DIGITS = 2
#: Fewest letters in a run read as a word with a stray zero ("L0T").
MIN_LETTERS = 2


#: A capital and a zero before a period or colon: an abbreviation ("N0.", "C0.", "N0 :"), whose
#: zero is an "O"; a code would go on with more letters or digits.
_ABBREVIATION_RE = re.compile(r"\b([A-Z])0(?=\.(?!\d)|\s?:)")


def resolved(text: str) -> str:
    """`text` with each run of letters and digits read as a number or a word where its other
    characters say which (see the module's docstring); every other character as it was."""
    text = _RUN_RE.sub(lambda m: _resolved_run(m.group(0)), text)
    return _ABBREVIATION_RE.sub(r"\1O", text)


def _resolved_run(run: str) -> str:
    digits = sum(c.isdigit() for c in run)
    letters = [c for c in run if not c.isdigit()]
    if digits >= MIN_DIGITS and letters and len(letters) < digits and all(c in _AS_DIGIT for c in letters):
        return "".join(_AS_DIGIT.get(c, c) for c in run)
    if digits == 1 and len(letters) >= MIN_LETTERS:
        inside = _inside_letter(run)
        if inside is not None:
            return inside
    if digits == 1 and "0" in run and len(letters) >= MIN_LETTERS:
        cased = [c for c in letters if c.isalpha()]
        if cased and all(c.isupper() for c in cased):
            return run.replace("0", "O")
        if cased and all(c.islower() for c in cased) and not run.startswith("0"):
            return run.replace("0", "o")
    return run


def _inside_letter(run: str) -> str | None:
    """`run` with its one digit read as a letter, when that digit stands between two letters and
    looks like one ("SET1A", "Peta1ing"): a printed word seldom has a digit inside it, while
    codes put their digits at the end ("UPTOWN3") or in runs ("U13"). The letter takes the case
    of the letters beside it. None when the run is not such a word."""
    k = next(i for i, c in enumerate(run) if c.isdigit())
    if not 0 < k < len(run) - 1 or run[k] not in _AS_LETTER:
        return None
    before, after = run[k - 1], run[k + 1]
    if not (before.isalpha() and after.isalpha()):
        return None
    upper, lower = _AS_LETTER[run[k]]
    letter = lower if before.islower() and after.islower() else upper
    return run[:k] + letter + run[k + 1 :]
