"""Check boxes written as text: which option of a choice is ticked.

Forms print a choice as boxes before option words, or after them ("M ☐ F ☒"). A text layer or
OCR gives the tick as a mark beside the word (`X Male`, `[X] Female`, `☒ Female`, `✓ Male`) and an
empty box as `[ ]`, `☐` or nothing. One marked option is the answer; a value that is just one option word is too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A tick: an X or check mark, bracketed or not, or a ticked box; OCR reads a crossed box as the
#: ideograph it looks like ("\u5188").
_MARK = "(?:\\[\\s*[xX\u2713\u2714\u2715\u2717\u2718]\\s*\\]|\\(\\s*[xX\u2713\u2714\u2715\u2717\u2718]\\s*\\)|[xX\u2713\u2714\u2715\u2717\u2718\u2612\u2611\u25a0\u25cf\u25c9\u22a0\u25a3\u5188])"
#: Every character a box is written with, ticked or not, as text layers and OCR give them.
BOX_MARKS = "\u2610\u2611\u2612\u25a1\u22a0\u25a3\u5188"
#: An empty box as forms print it: a ballot box, a square, a circle, "[ ]" or "( )".
EMPTY_BOX = "(?:\\[\\s*\\]|\\(\\s*\\)|[\u2610\u25a1\u25cb\u274f\u25a2])"


def marked_option(text: str, options: Iterable[str]) -> str | None:
    """The one option of `options` that `text` marks as ticked, or None.

    `text` is what follows a choice's label ("X Male Female", "[ ] Male [X] Female").
    """
    options = list(options)
    words = "|".join(re.escape(o) for o in sorted(options, key=len, reverse=True))
    if _boxes_after(text, words):
        pattern = rf"(?<![A-Za-z])({words})\s*{_MARK}(?![A-Za-z])"
    else:
        pattern = rf"(?<![A-Za-z]){_MARK}\s*({words})\b"
    marked = {m.group(1).lower() for m in re.finditer(pattern, text, re.IGNORECASE)}
    if len(marked) == 1:
        chosen = marked.pop()
        return next(o for o in options if o.lower() == chosen)
    if marked:
        return None
    # No mark at all: a value that is a single option word is that option.
    bare = re.sub(EMPTY_BOX, " ", text)
    found = [
        o for o in options if re.search(rf"(?<![A-Za-z]){re.escape(o)}(?![A-Za-z])", bare, re.IGNORECASE)
    ]
    if len(found) == 1 and not re.search(EMPTY_BOX, text):
        return found[0]
    return None


def _boxes_after(text: str, words: str) -> bool:
    """Whether each option's box follows it ("M ☐ F ☒"): the text starts with an option, ends
    with a box, and holds two boxes or more (one `X` after the options marks nothing)."""
    boxes = re.findall(f"{_MARK}|{EMPTY_BOX}", text)
    return (
        len(boxes) >= 2
        and re.match(rf"\s*(?:{words})(?![A-Za-z])", text, re.IGNORECASE) is not None
        and re.search(f"(?:{_MARK}|{EMPTY_BOX})\\s*$", text) is not None
    )


def marked_initial(text: str, options: Iterable[str]) -> str | None:
    """The option whose initial `text` marks ("☐ M ☒ F" -> Female), when the options' initials
    differ; None otherwise."""
    options = list(options)
    initials = {o[0].upper(): o for o in options}
    if len(initials) < len(options):
        return None
    # OCR reads initials set close together as one word ("☒ MF"): each is an option of its own.
    letters = "".join(initials)
    text = re.sub(rf"\b[{letters}]{{2,{len(letters)}}}\b", _spread_initials, text, flags=re.IGNORECASE)
    chosen = marked_option(text, list(initials))
    return initials[chosen.upper()] if chosen is not None and re.search(_MARK, text) else None


def _spread_initials(glued: re.Match[str]) -> str:
    """ "MF" as "M F", when each letter is another option's initial ("MM" stays a word)."""
    word = glued.group(0)
    return " ".join(word) if len(set(word.upper())) == len(word) else word
