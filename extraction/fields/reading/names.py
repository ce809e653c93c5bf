"""People's names as forms write them: split into first, middle and last.

A form writes a whole name as `First Middle Last`, `Last, First Middle` or with a title and a
credential (`Dr. Michael O'Neill, MD`, `L. Fitzgerald-Hayes, PA-C`). Surname particles (`De La
Cruz`, `Van Dyke`) stay with the surname.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

NamePart = Literal["first", "middle", "last"]

#: Titles before a name and credentials after it: not parts of the name.
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "rev"})
_CREDENTIALS = frozenset(
    {
        "md",
        "do",
        "pa",
        "pa-c",
        "np",
        "fnp",
        "fnp-c",
        "fnp-bc",
        "dnp",
        "aprn",
        "rn",
        "phd",
        "dds",
        "dmd",
        "od",
        "dpm",
        "mbbs",
        "facp",
        "faafp",
        "lcsw",
        "psyd",
        "jr",
        "sr",
        "ii",
        "iii",
        "iv",
    }
)
#: A phone number and whatever follows it at the end of a name.
_PHONE_TAIL_RE = re.compile(r"\s*\(?\d{3}\)?[\s.\-]*\d{3}[\s.\-]*\d{4}\b.*$")
#: Most words after a surname and its comma: a first and a middle name (a credential may follow).
MAX_GIVEN_WORDS = 2
#: Suffixes of a generation: "J.R." before a surname is two initials, not "Jr".
_GENERATIONS = frozenset({"jr", "sr", "ii", "iii", "iv"})
#: Words that begin a surname of several words.
_PARTICLES = frozenset(
    {"de", "la", "del", "della", "van", "von", "der", "den", "di", "da", "du", "le", "st", "bin"}
)
_GLUED_RE = re.compile(r"(?<=\b[A-Za-z])\.(?=[A-Z])|(?<=\b[Dd]r)\.(?=[A-Z])")
#: Letters with dots between ("M.D.", "D.O", "Ph.D."): a credential when its letters spell one.
_DOTTED_RE = re.compile(r"\b[A-Za-z]{1,2}(?:\.[A-Za-z]{1,2})+\b\.?")
_SPACED_LETTERS_RE = re.compile(r"(?<=,)\s*\b[A-Z](?: [A-Z])+\b\s*$")
_WORD_RE = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z\u00c0-\u024f'\u2019.\-]*")


@dataclass(frozen=True)
class PersonName:
    first: str | None
    middle: str | None
    last: str | None

    def part(self, which: NamePart) -> str | None:
        return {"first": self.first, "middle": self.middle, "last": self.last}[which]


def family_word(tokens: Sequence[str], index: int) -> bool:
    """Whether `tokens[index]` is a "family" that names no part of a name: only "family name"
    is the surname ("Family doctor", "Family history" are not)."""
    return tokens[index] == "family" and tuple(tokens[index + 1 : index + 2]) != ("name",)


_DOCTOR_TITLE_RE = re.compile(r"^\s*dr\b\.?", re.IGNORECASE)


def doctor_titled(text: str) -> bool:
    """Whether a name is written with a doctor's title ("Dr. Ana Ruiz"): a doctor's, as forms
    name patients without one."""
    return bool(_DOCTOR_TITLE_RE.match(text))


def _bare(word: str) -> str:
    return word.lower().strip(".,")


def _undotted(letters: str) -> str:
    """A dotted credential written without its dots ("M.D." -> "MD"); other dotted runs (a
    first and a middle initial, "J.R.") as they were."""
    bare = letters.replace(".", "")
    return bare if bare.lower() in _CREDENTIALS - _GENERATIONS else letters


def _credential(word: str) -> bool:
    """A credential as written with or without its dots or brackets ("MD", "M.D.", "(DO)")."""
    return _bare(word).strip("()").replace(".", "") in _CREDENTIALS


def _clean(words: list[str]) -> list[str]:
    words = [w.strip(",") for w in words if w.strip(",")]
    while words and _bare(words[0]) in _TITLES:
        words.pop(0)
    while words and _credential(words[-1]):
        words.pop()
    return words


def split_name(text: str) -> PersonName | None:
    """The parts of a person's whole name, or None when `text` does not look like one."""
    # OCR glues an initial or a title to the name ("Dr.Abernathy", "A.Okonkwo") and spaces out a
    # credential ("M D").
    text = _DOTTED_RE.sub(lambda m: _undotted(m.group(0)), text)
    text = " ".join(_GLUED_RE.sub(". ", text).split())
    text = _SPACED_LETTERS_RE.sub(lambda m: m.group(0).replace(" ", ""), text)
    # A phone number typed after a doctor's name ("Dr. Ana Ruiz (208) 555-0134") is no part of it.
    text = _PHONE_TAIL_RE.sub("", text)
    if not text or any(c.isdigit() for c in text) or "@" in text or ":" in text:
        return None
    # Credentials after a comma ("Grace McKinney, DO") go before the comma tells the order.
    head, _, tail = text.partition(",")
    tail_words = tail.split()
    if tail and all(_credential(w) for w in tail_words):
        text, tail = head, ""
    if len(head.split()) >= 2 and len(_clean(tail.split())) > MAX_GIVEN_WORDS:
        # "Dr. Ana Ruiz, Riverbend Family Medicine": the comma ends the name, not its surname.
        text, tail = head, ""
    if tail.strip():
        last_words = _clean(head.split())
        rest = _clean(tail.split())
        if not last_words or not rest:
            return None
        first, middle = rest[0], " ".join(rest[1:]) or None
        return PersonName(first, middle, " ".join(last_words))
    words = _clean(text.split())
    if not words or len(words) > 5 or not all(_WORD_RE.fullmatch(w) for w in words):
        return None
    if len(words) == 1:
        return PersonName(None, None, words[0])
    start = len(words) - 1
    while start > 1 and _bare(words[start - 1]) in _PARTICLES:
        start -= 1
    first = words[0]
    middle = " ".join(words[1:start]) or None
    return PersonName(first, middle, " ".join(words[start:]))
