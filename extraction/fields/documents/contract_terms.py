"""Contract fields no label names: governing law, term, effective date and parties.

Contracts state these in sentences, so each is read from the document's running text by the
phrases lawyers use ("governed by the laws of the State of Oregon", "shall terminate two (2) years
from the date hereof", "effective as of February 10, 2017", "by and between X and Y").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from extraction.fields.model.candidate import HEURISTIC_PRIOR, Candidate
from extraction.fields.reading.date_text import find_dates
from extraction.fields.reading.parties import (
    canonical_party,
    clean_party,
    defined_parties,
    looks_like_party,
    party_key,
)
from extraction.fields.reading.text_lines import TextUnit, joined_text, units_in

_PLACE = r"([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
_JURISDICTION_RES = [
    re.compile(
        r"(?i:laws?|courts?)\b[^.;]{0,40}?\b(?i:of)\s+(?i:the\s+)?(?i:state|commonwealth|province)\s+of\s+"
        + _PLACE
    ),
    re.compile(
        r"(?i:governed|construed|interpreted)\b[^.;]{0,120}?\b(?i:laws?)\s+of\s+"
        r"(?!(?i:the\s+)?(?i:state|commonwealth|province|united|any)\b)(?i:the\s+)?" + _PLACE
    ),
]


def jurisdiction(units: list[TextUnit]) -> Iterator[Candidate]:
    """The place whose laws govern the contract ("governed by the laws of the State of Oregon")."""
    text, spans = joined_text(units)
    for pattern in _JURISDICTION_RES:
        m = pattern.search(text)
        if m is not None:
            found = units_in(spans, m.start(1), m.end(1))
            yield Candidate.of(m.group(1), HEURISTIC_PRIOR, found, m.group(0), "governing_law")
            return


_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "twenty-four": 24,
    "thirty": 30,
    "thirty-six": 36,
    "forty-five": 45,
    "sixty": 60,
    "ninety": 90,
}
_DURATION_RE = re.compile(
    r"\b(?:([a-z]+(?:-[a-z]+)?)\s*\(\s*(\d+)\s*\)|(\d+)|([a-z]+(?:-[a-z]+)?))[\s-]+(year|month|day)s?\b",
    re.IGNORECASE,
)
_TERM_CUE_RE = re.compile(r"(?i:terminat|expir|surviv|term\b|in\s+effect|in\s+force|remain|continue)")
_TERM_ANCHOR_RE = re.compile(r"^\s*(?i:from|after|following|of\s+the\s+date|commencing)")
#: A duration counted from the contract's own date is its term ("two years from the date hereof",
#: "12 months after the Effective Date").
_FROM_CONTRACT_DATE_RE = re.compile(
    r"^\s*(?i:from|after|following|of)\s+(?i:and\s+after\s+)?(?i:the\s+)?"
    r"(?i:date\s+(?:hereof|of\s+this|of\s+the\s+(?:confidentiality\s+)?agreement)|effective\s+date|"
    r"execution|signing|hereof)"
)
#: A duration counted from the end of someone's employment or service, or one "thereafter", is a
#: restrictive covenant's period (non-compete, non-solicitation), not the contract's term.
_AFTER_SERVICE_RE = re.compile(
    r"^\s*(?:\([^)]*\)\s*)?(?i:thereafter|(?:immediately\s+)?(?:after|following|of|from)\s+(?:the\s+)?"
    r"(?:(?:date\s+of\s+)?(?:the\s+)?(?:termination|cessation|end|separation)\b[^.;]{0,40}?"
    r"\b(?:employment|service|engagement)|(?:your|his|her|the\s+)?(?:resignation|separation|last\s+day)))"
)
#: A duration in a sentence (or under a heading) about hiring, soliciting, competing or buying
#: shares is that covenant's period (non-solicitation, non-compete, standstill), not the term.
_COVENANT_RE = re.compile(
    r"(?i:solicit|\bhire\b|\bhiring\b|\bemploy\b|recruit|compet|standstill|\bacquir|purchase\s+(?:any\s+)?"
    r"(?:securities|shares|stock))"
)
#: Characters of the sentence around a duration that say what it is the period of.
COVENANT_CONTEXT = 160
#: Longest "sentence" before a duration's own that is read as its section's heading.
HEADING_CHARS = 40
_NOT_TERM_RE = re.compile(
    r"^\s*(?i:\(?written\)?\s+notice|prior|notice|business|before|of\s+(?:receipt|disclosure))"
)
#: How far before a duration a word such as "terminate" is looked for.
TERM_CUE_WINDOW = 120
#: Evidence a duration needs to be the term: a cue word before it counts 2, "from/after" a date
#: after it 1, "period of" before it 1. Durations with less are notice periods and the like.
MIN_TERM_EVIDENCE = 3


def _duration(m: re.Match[str]) -> str | None:
    words, digits, bare, word = m.group(1), m.group(2), m.group(3), m.group(4)
    number = int(digits or bare) if (digits or bare) else _NUMBER_WORDS.get((word or words or "").lower())
    if not number:
        return None
    unit = m.group(5).lower()
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"


def term(units: list[TextUnit]) -> Iterator[Candidate]:
    """How long the contract or its obligations last: a duration near "terminate", "expire",
    "survive" or "term", counted from a date ("two (2) years from the date hereof")."""
    text, spans = joined_text(units)
    best: tuple[int, re.Match[str], str] | None = None
    for m in _DURATION_RE.finditer(text):
        value = _duration(m)
        after = text[m.end() : m.end() + 40]
        if value is None or _NOT_TERM_RE.match(after):
            continue
        if _AFTER_SERVICE_RE.match(text[m.end() : m.end() + 80]) or _covenant_period(
            text, m.start(), m.end()
        ):
            continue
        before = text[max(0, m.start() - TERM_CUE_WINDOW) : m.start()]
        strength = 2 * bool(_TERM_CUE_RE.search(before)) + bool(_TERM_ANCHOR_RE.match(after))
        strength += bool(re.search(r"(?i:period\s+of)\s*$", before))
        strength += 2 * bool(_FROM_CONTRACT_DATE_RE.match(after))
        if strength >= MIN_TERM_EVIDENCE and (best is None or strength > best[0]):
            best = (strength, m, value)
    if best is not None:
        _, m, value = best
        yield Candidate.of(value, HEURISTIC_PRIOR, units_in(spans, m.start(), m.end()), m.group(0), "term")


def _covenant_period(text: str, start: int, end: int) -> bool:
    """Whether the sentence holding text[start:end] is a restrictive covenant (`_COVENANT_RE`)."""
    sentences = re.split(r"[.;]\s", text[max(0, start - COVENANT_CONTEXT) : start])
    # A section's heading ("8. Standstill.") reads as a short sentence of its own.
    head = " ".join(s for s in sentences[-2:-1] if len(s.strip()) <= HEADING_CHARS) + " " + sentences[-1]
    tail = text[end : end + COVENANT_CONTEXT]
    stops = [i for i in (tail.find(". "), tail.find("; ")) if i >= 0]
    tail = tail[: min(stops)] if stops else tail
    return bool(_COVENANT_RE.search(head) or _COVENANT_RE.search(tail))


_EFFECTIVE_RE = re.compile(
    r"\b(?:effective|dated|made|entered\s+into|executed|signed|as\s+of)\b(?:\s+(?:as\s+of|on|this|date))?",
    re.IGNORECASE,
)
#: "the Asset Contribution Agreement entered into as of", "that certain Agreement and Plan of Merger
#: dated": the date of another agreement the contract refers to, not its own ("This Agreement is
#: made as of" is its own).
_AGREEMENT_NAME = (
    r"\b(?i:the|that\s+certain|a|an|such|said)\s+(?:[\w-]+\s+){1,6}?(?i:agreement|merger|letter|plan)"
    r"(?:\s+of\s+merger)?"
)
_OTHER_AGREEMENT_RE = re.compile(_AGREEMENT_NAME + r"\s*(?:\([^)]*\)\s*)?,?\s*$")
#: Another agreement named between "entered into" and a date ("entered into a Plan of Merger, dated").
_NAMED_AGREEMENT_RE = re.compile(_AGREEMENT_NAME)
#: Characters before an "effective/dated" phrase searched for another agreement's name.
OTHER_AGREEMENT_WINDOW = 80
_DATE_LABEL_RE = re.compile(r"\bdate[d:]?\s*:?\s*$", re.IGNORECASE)
#: Characters between an "effective as of" phrase and its date.
EFFECTIVE_DATE_WINDOW = 40


def effective_date(units: list[TextUnit]) -> Iterator[Candidate]:
    """The date a contract takes effect: after "effective", "dated", "made", "entered into" or
    "as of"; else the date a signature block labels "Date"; else the first date."""
    text, spans = joined_text(units)
    dates = find_dates(text)
    if not dates:
        return
    own: list[int] = []
    others: list[int] = []
    for m in _EFFECTIVE_RE.finditer(text):
        before = text[max(0, m.start() - OTHER_AGREEMENT_WINDOW) : m.start()]
        (others if _OTHER_AGREEMENT_RE.search(before) else own).append(m.end())
    # A date right after another agreement's "dated" or named between "entered into" and the date
    # is that agreement's date, and no fallback takes it either.
    dates = [
        d
        for d in dates
        if not any(0 <= d.start - end <= EFFECTIVE_DATE_WINDOW for end in others)
        and not any(
            0 <= d.start - end <= EFFECTIVE_DATE_WINDOW and _NAMED_AGREEMENT_RE.search(text[end : d.start])
            for end in own
        )
    ]
    phrases = own
    labelled = [d for d in dates if _DATE_LABEL_RE.search(text[max(0, d.start - 12) : d.start])]
    after_phrase = [d for d in dates if any(0 <= d.start - end <= EFFECTIVE_DATE_WINDOW for end in phrases)]
    for found, prior, strategy in (
        (after_phrase, HEURISTIC_PRIOR, "effective_as_of"),
        (labelled, HEURISTIC_PRIOR * 0.8, "date_label"),
        (dates, HEURISTIC_PRIOR * 0.6, "first_date"),
    ):
        if found:
            first = found[0]
            yield Candidate.of(
                first.value, prior, units_in(spans, first.start, first.end), first.raw, strategy
            )
            return


_ENTITY = "([A-Z0-9][\\w.&'\u2019-]*(?:,?\\s+(?:[A-Z0-9&][\\w.&'\u2019-]*|of|and|de|du|the))*)"
_BETWEEN_RE = re.compile(r"\bbetween\s+(?:and\s+among\s+)?" + _ENTITY + r"[^;]{0,300}?\band\s+" + _ENTITY)


def _clean_party(text: str) -> str:
    return re.sub(r"\s+(?:and|of|the)$", "", text.strip(" ,.;:")).strip(" ,")


def parties(units: list[TextUnit]) -> Iterator[Candidate]:
    """The contracting parties: as named after "between" ("by and between X, a Delaware
    corporation, and Y"), and as introduced with a defined term in the preamble ("X (the
    “Company”)", `fields.reading.parties`); only names that read as a party's."""
    text, spans = joined_text(units)
    found: list[tuple[str, int, int]] = []
    m = _BETWEEN_RE.search(text)
    if m is not None:
        for group in (1, 2):
            name = clean_party(_clean_party(m.group(group)))
            if looks_like_party(name):
                found.append((name, m.start(group), m.end(group)))
    keys = {party_key(name) for name, _, _ in found}
    for name, start, end in defined_parties(text):
        if party_key(name) not in keys:
            keys.add(party_key(name))
            found.append((name, start, end))
    if found:
        cited = [unit for _, start, end in found for unit in units_in(spans, start, end)]
        unique = list({id(u): u for u in cited}.values())
        raw = "; ".join(name for name, _, _ in found)
        names = list(dict.fromkeys(canonical_party(name) for name, _, _ in found))
        yield Candidate.of(names, HEURISTIC_PRIOR, unique, raw, "preamble_parties")
