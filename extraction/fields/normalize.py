"""Reading values and labels the way people write them: dates, check boxes, field labels (amounts:
`amounts.py`; the labels' vocabulary: `concepts.py`).

Every function here is pure and cheap, so field extraction, grounding and classification can call
them on every line of a document.

Value conventions (what extraction returns):
- a date is an ISO string `YYYY-MM-DD`;
- an amount is a plain decimal string with a `.` separator, no thousands separators and no currency,
  at least two decimals (`"9.00"`, `"1234.50"`, `"-0.02"`, `"0.125"`). A string, not a float, so
  cents survive JSON round trips exactly and `9.00` does not become `9`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Literal, get_args

from rapidfuzz import fuzz, process

from extraction.fields.concepts import CONCEPTS
from extraction.fields.ocr_reads import DIGITS_AS_LETTERS, LETTER_GROUPS

#: Two-digit years below this are 20xx, the others 19xx (corpus/README.md, "dates").
TWO_DIGIT_YEAR_PIVOT = 70
#: Years outside this range are not read as dates (they are mostly reference numbers).
MIN_YEAR, MAX_YEAR = 1900, 2099

#: How a numeric date whose parts could be either month or day is read: `MDY` (12/03/2001 is
#: December 3, as US forms write it), `DMY` (March 12) or `YMD` (a two-digit year first:
#: 01/03/12 is 2001-03-12; a four-digit year at the end is then read month first).
DateOrder = Literal["MDY", "DMY", "YMD"]
DATE_ORDERS: tuple[DateOrder, ...] = get_args(DateOrder)
#: The order of the US forms this product serves first.
DEFAULT_DATE_ORDER: DateOrder = "MDY"

_MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    [
        "january jan janvier janv januar jän enero ene januari gennaio",
        "february feb février fevrier févr fevr februar febrero februari febbraio",
        "march mar mars märz maerz mrz marzo maart",
        "april apr avril abril",
        "may mai mayo mei maggio",
        "june jun juin juni junio giugno",
        "july jul juillet juil juli julio luglio",
        "august aug août aout agosto augustus",
        "september sep sept septembre setiembre septiembre settembre",
        "october oct octobre oktober octubre okt ottobre",
        "november nov novembre noviembre",
        "december dec décembre decembre dezember diciembre dez dic dicembre",
    ],
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name] = _number

#: OCR reads a month's O as a zero in some faces ("20 0ct 2020"): either is taken.
_MONTH_RE = "|".join(sorted((re.escape(m).replace("o", "[o0]") for m in _MONTHS), key=len, reverse=True))
_ORDINAL = r"(?:st|nd|rd|th|er|e)?"

#: A date ends where its digits do, or where a time glued to it by OCR starts ("10/03/20185:41:06").
_DATE_END = r"(?:(?![\d]|[.,]\d)|(?=\d{1,2}\s?:\s?\d{2}))"
_DATE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("ymd", re.compile(r"(?<![\d.,/-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})" + _DATE_END)),
    ("dmy", re.compile(r"(?<![\d.,/])(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})" + _DATE_END)),
    (
        "d_month_y",
        re.compile(
            rf"(?<![\d])(\d{{1,2}}){_ORDINAL}\.?[\s-]*(?:day\s+of\s+|of\s+|de\s+)?"
            rf"({_MONTH_RE})\.?(?![a-z])[\s,.-]*(?:de\s+)?(\d{{4}}|\d{{2}}(?![\d:])){_DATE_END}",
            re.IGNORECASE,
        ),
    ),
    (
        "month_d_y",
        re.compile(
            # OCR may drop the space after the comma ("August 27,1943").
            rf"(?<![a-z])({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORDINAL}(?:\s*,\s*|\s+)(\d{{4}})(?![\d])",
            re.IGNORECASE,
        ),
    ),
]


@dataclass(frozen=True)
class Match:
    """A value found inside a text: where it is, what it reads as, and the raw characters."""

    start: int
    end: int
    value: str
    raw: str
    #: A numeric date that reads as another real date in another order (03/04/1985).
    ambiguous: bool = False


def _year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < TWO_DIGIT_YEAR_PIVOT else 1900
    return year


def _iso(year: int, month: int, day: int) -> str | None:
    if not MIN_YEAR <= year <= MAX_YEAR:
        return None
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _numeric_date(groups: tuple[str, ...], order: DateOrder) -> tuple[str | None, bool]:
    """(ISO date, ambiguous) of `a/b/year`: in `order`, unless only the other order gives a real
    date; ambiguous when both orders give different real dates."""
    first, second, year_text = int(groups[0]), int(groups[2]), groups[3]
    if order == "YMD" and len(groups[0]) == 2 and len(year_text) == 2:
        # 01/03/12: year, month, day.
        return _iso(_year(groups[0]), second, int(year_text)), False
    year = _year(year_text)
    month_first = _iso(year, first, second)
    day_first = _iso(year, second, first)
    ambiguous = month_first is not None and day_first is not None and month_first != day_first
    if order == "DMY":
        return day_first or month_first, ambiguous
    return month_first or day_first, ambiguous


def _date_of(kind: str, groups: tuple[str, ...], order: DateOrder) -> tuple[str | None, bool]:
    if kind == "ymd":
        return _iso(int(groups[0]), int(groups[2]), int(groups[3])), False
    if kind == "dmy":
        return _numeric_date(groups, order)
    if kind == "d_month_y":
        return _iso(_year(groups[2]), _month(groups[1]), int(groups[0])), False
    return _iso(int(groups[2]), _month(groups[0]), int(groups[1])), False


def _month(name: str) -> int:
    return _MONTHS[name.lower().replace("0", "o")]


def find_dates(text: str, order: DateOrder = DEFAULT_DATE_ORDER) -> list[Match]:
    """Every date written in `text`, in order, each read as ISO `YYYY-MM-DD`; numeric dates whose
    parts could be month or day are read in `order`."""
    found: list[Match] = []
    for kind, pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            iso, ambiguous = _date_of(kind, m.groups(), order)
            if iso is None or any(m.start() < f.end and f.start < m.end() for f in found):
                continue
            found.append(Match(m.start(), m.end(), iso, m.group(0), ambiguous))
    return sorted(found, key=lambda f: f.start)


def document_date_order(texts: list[str], order: DateOrder = DEFAULT_DATE_ORDER) -> DateOrder:
    """The order a document's numeric dates follow: `order`, unless the document writes a date
    that is real only day first (25/12/2018) and none that is real only month first, or the
    reverse; a document's own unambiguous dates say how it writes the ambiguous ones."""
    if order == "YMD":
        return order
    votes = {"MDY": 0, "DMY": 0}
    for text in texts:
        for m in _DATE_PATTERNS[1][1].finditer(text):
            year = _year(m.group(4))
            first, second = int(m.group(1)), int(m.group(3))
            month_first, day_first = _iso(year, first, second), _iso(year, second, first)
            if month_first and not day_first:
                votes["MDY"] += 1
            elif day_first and not month_first:
                votes["DMY"] += 1
    other: DateOrder = "DMY" if order == "MDY" else "MDY"
    return other if votes[other] and not votes[order] else order


_EDGE_JUNK = " \t\r\n.,;:()[]{}\"'\u201c\u201d\u2018\u2019"


def parse_date(text: str, order: DateOrder = DEFAULT_DATE_ORDER) -> str | None:
    """`text` read as one date (ISO), or None when it holds anything besides one date."""
    stripped = text.strip(_EDGE_JUNK)
    matches = find_dates(stripped, order)
    if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(stripped):
        return matches[0].value
    return None


_TRUE_WORDS = frozenset({"true", "yes", "on", "checked", "x", "1", "selected"})
_FALSE_WORDS = frozenset({"false", "no", "off", "unchecked", "0", "unselected"})


def parse_checkbox(text: str | bool | None) -> bool | None:
    """A check-box state written as true/false, yes/no, on/off, checked/unchecked, 1/0; else None."""
    if isinstance(text, bool):
        return text
    if text is None:
        return None
    word = text.strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    return None


def normalize_text(text: str) -> str:
    """NFKC, lower case, runs of whitespace as one space: the form texts are compared in."""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD_RE = re.compile(r"[0-9a-z]+")
_APOSTROPHES = frozenset({"'", "\u2019"})


def _raw_tokens(text: str) -> tuple[str, ...]:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = _CAMEL_RE.sub(" ", text).lower()
    # A letter-spaced heading ("S T A T E", "C O D E") is one word to OCR's spacing: single letters
    # in a run are joined; a possessive "s" ("INSURED'S I.D.") starts no run.
    joined: list[str] = []
    spaced = False
    for match in _WORD_RE.finditer(text):
        token = match.group(0)
        letter = len(token) == 1 and token.isalpha()
        possessive = token == "s" and text[match.start() - 1 : match.start()] in _APOSTROPHES
        if letter and spaced:
            joined[-1] += token
        else:
            joined.append(token)
        spaced = letter and not possessive
    return tuple(joined)


#: Shortest word repaired towards the label vocabulary, and how similar (0..100) it must be:
#: one wrong letter in five ("Tota1", "Rourding", "Salos").
OCR_REPAIR_MIN_LENGTH = 4
OCR_REPAIR_MIN_RATIO = 80
#: A word's length may differ from the label word's by one letter in this many (one at least).
OCR_REPAIR_LENGTH_SHARE = 3


@lru_cache(maxsize=65536)
def _repaired(token: str) -> str:
    if token in _VOCABULARY or len(token) < OCR_REPAIR_MIN_LENGTH or token.isdigit():
        return token
    folded = _FOLDED_VOCABULARY.get(_ocr_folded(token))
    if folded is not None:
        return folded
    if not token.isalpha():
        # Digits read for the letters they look like ("Cel1" for "Cell").
        lettered = token.translate(_DIGITS_AS_LETTERS)
        if lettered in _VOCABULARY:
            return lettered
    # A slip changes a short word's length by one letter at most ("Reno" is no "prenom"); a long
    # one may hold a label run into the next word ("TAXINVOICE").
    slack = max(1, len(token) // OCR_REPAIR_LENGTH_SHARE)
    near = [w for w in _LONG_VOCABULARY if abs(len(w) - len(token)) <= slack]
    match = process.extractOne(token, near, scorer=fuzz.ratio, score_cutoff=OCR_REPAIR_MIN_RATIO)
    return match[0] if match else token


_DIGITS_AS_LETTERS = str.maketrans(dict(DIGITS_AS_LETTERS))


def _ocr_folded(word: str) -> str:
    for group, single in LETTER_GROUPS:
        word = word.replace(group, single)
    return word


@lru_cache(maxsize=65536)
def label_tokens(text: str) -> tuple[str, ...]:
    """Words of a label or field name: camelCase and snake_case split, symbols and emoji dropped,
    and a word one OCR slip away from a label word read as that word ("TOTAI" as "total")."""
    return tuple(_repaired(t) for t in _raw_tokens(text))


_PHRASES: list[tuple[tuple[str, ...], str]] = [
    (_raw_tokens(p), concept) for concept, phrases in CONCEPTS.items() for p in phrases
]


#: Which phrases (by index in `_PHRASES`) contain each word: only those can occur in a label.
_PHRASE_INDEX: dict[str, list[int]] = {}
for _index, (_phrase, _) in enumerate(_PHRASES):
    for _token in set(_phrase):
        _PHRASE_INDEX.setdefault(_token, []).append(_index)


@lru_cache(maxsize=4096)
def concept_words(name: str) -> frozenset[str]:
    """The words that can start a label of field `name`: its own and its concept's synonyms'."""
    concept = concept_of(name)
    words = set(label_tokens(name))
    if concept is not None:
        words.update(t for phrase, c in _PHRASES if related_concepts(c, concept) for t in phrase)
    return frozenset(words)


def related_concepts(a: str | None, b: str | None) -> bool:
    """Whether two concepts label the same values (the same, or an address and a street)."""
    return a == b or frozenset((a, b)) in _RELATED_CONCEPTS


def _coverage(tokens: tuple[str, ...], phrase: tuple[str, ...]) -> int:
    """2 when `phrase` occurs in `tokens` as written, 1 when all its words occur in another order."""
    n = len(phrase)
    if any(tokens[i : i + n] == phrase for i in range(len(tokens) - n + 1)):
        return 2
    return 1 if n > 1 and set(phrase) <= set(tokens) else 0


def _best_phrase(tokens: tuple[str, ...], concept: str | None = None) -> tuple[int, int, str] | None:
    """(phrase length, coverage, concept) of the longest synonym phrase found in `tokens`."""
    present = set(tokens)
    candidates = {i for t in present for i in _PHRASE_INDEX.get(t, ())}
    best: tuple[int, int, str] | None = None
    best_span = 0
    # In index order, so that of two equally long phrases the concept listed first wins, unless
    # the other's words stand nearer together ("POLICY GROUP OR FECA NUMBER" is a group number).
    for index in sorted(candidates):
        phrase, phrase_concept = _PHRASES[index]
        if (concept is not None and phrase_concept != concept) or not present.issuperset(phrase):
            continue
        coverage = _coverage(tokens, phrase)
        span = _span(tokens, phrase)
        if coverage and (best is None or (len(phrase), coverage, -span) > (*best[:2], -best_span)):
            best, best_span = (len(phrase), coverage, phrase_concept), span
    return best


def _span(tokens: tuple[str, ...], phrase: tuple[str, ...]) -> int:
    """How many words apart the first and last of `phrase`'s words stand in `tokens`."""
    places = [tokens.index(word) for word in phrase]
    return max(places) - min(places)


_INCLUSIVE_WORDS = frozenset({"incl", "inclusive", "includes", "including", "inc"})


def is_label(text: str) -> bool:
    """Whether `text` is nothing but a known label ("GST No.", "Cashier:"), so no field's value."""
    tokens = label_tokens(text)
    return bool(tokens) and any(tokens == phrase for phrase, _ in _PHRASES)


#: Words that turn a total into an amount before tax ("Total Sales (Excluding GST)").
_PRE_TAX_WORDS = frozenset({"excluding", "excl", "exclusive", "exc", "untaxed", "ht", "netto", "before"})


@lru_cache(maxsize=4096)
def concept_of(name: str) -> str | None:
    """The concept a field name or label stands for, by the longest synonym phrase inside it."""
    tokens = label_tokens(name)
    best = _best_phrase(tokens)
    if best is None:
        return None
    if best[2] == "total" and _PRE_TAX_WORDS.intersection(tokens):
        return "subtotal"
    if best[2] == "tax" and "total" in tokens and _INCLUSIVE_WORDS.intersection(tokens):
        # "Total includes GST 6%" names the total, not the tax.
        return "total"
    return best[2]


#: Score of a label that is one of the field's synonyms, and of a label that only contains one
#: (less `EXTRA_WORD_PENALTY` per other word beyond the synonym, counting at most four).
SYNONYM_SCORE = 0.95
CONTAINS_SCORE = 0.85
EXTRA_WORD_PENALTY = 0.03
#: Words a label may carry without naming anything else: articles, currencies, "no." marks.
_FILLER_WORDS = frozenset(
    {"of", "the", "in", "on", "for", "a", "an", "to", "rm", "usd", "eur", "gbp", "inr", "myr", "rs", "s"}
)
#: Score of a label of a related concept (an address label for a street field).
RELATED_SCORE = 0.8
_RELATED_CONCEPTS = frozenset({frozenset(("street", "address"))})
#: Fuzzy similarity is scaled by this, so that it never outranks a synonym.
FUZZY_WEIGHT = 0.9


@lru_cache(maxsize=16384)
def match_label(field_name: str, label: str) -> float:
    """How well `label` (as printed, or a form field's name) names the field `field_name`, 0..1.

    1.0 for the same words; `SYNONYM_SCORE` for a synonym of the same concept (`date_of_birth` ~
    `DOB`); `CONTAINS_SCORE` less a little per extra word when the label contains a synonym
    (`Total Amount (RM)`); 0 when the label names a different concept (`Subtotal` for `total`);
    otherwise a scaled fuzzy word similarity, low for unrelated words.
    """
    f_tokens, l_tokens = label_tokens(field_name), label_tokens(label)
    if not f_tokens or not l_tokens:
        return 0.0
    if f_tokens == l_tokens:
        return 1.0
    if sorted(f_tokens) == sorted(l_tokens):
        return 0.98
    f_concept, l_concept = concept_of(field_name), concept_of(label)
    if f_concept is not None and l_concept != f_concept and _compact(l_tokens) in _compact_phrases(f_concept):
        # OCR split or glued the label's words ("D ate of Birth", "Em ailAddress").
        return SYNONYM_SCORE
    if f_concept is not None and f_concept != l_concept and f_concept in composite_concepts(label):
        # "City/State/Zip" labels the city, the state and the ZIP code at once.
        return RELATED_SCORE
    if f_concept is not None and l_concept is not None:
        if f_concept != l_concept:
            # "Home Address" labels the street line a field `address_1` asks for.
            return RELATED_SCORE if frozenset((f_concept, l_concept)) in _RELATED_CONCEPTS else 0.0
        if any(l_tokens == label_tokens(p) for p in CONCEPTS[f_concept]):
            return SYNONYM_SCORE
        best = _best_phrase(l_tokens, f_concept)
        # Fragments of one or two letters are OCR debris more often than words.
        extra = len([t for t in l_tokens if t not in _FILLER_WORDS and len(t) > 2]) - (best[0] if best else 0)
        return round(CONTAINS_SCORE - EXTRA_WORD_PENALTY * min(max(extra, 0), 4), 4)
    similarity = fuzz.token_sort_ratio(" ".join(f_tokens), " ".join(l_tokens)) / 100.0
    return round(similarity * FUZZY_WEIGHT, 4)


_FINAL_TOTAL_WORDS = frozenset(
    {"grand", "incl", "inclusive", "includes", "including", "due", "payable", "pay", "nett", "ttc", "final"}
)
_ROUNDED_WORDS = frozenset({"round", "rounded", "rounding"})


def total_rank(label: str) -> int:
    """How final the total a label names is: 4 rounded, 3 grand/inclusive/due, 2 total, 1 other.

    A receipt prints the total, then the rounding, then the rounded total; an invoice the subtotals,
    then the total including tax or the amount due. The most final one is what was paid.
    """
    tokens = set(label_tokens(label))
    if tokens & _ROUNDED_WORDS and "total" in tokens:
        return 4
    if tokens & _FINAL_TOTAL_WORDS:
        return 3
    return 2 if tokens & {"total", "summe", "gesamtbetrag"} else 1


#: Every word that labels are made of: what OCR-damaged words are repaired towards.
_VOCABULARY: frozenset[str] = frozenset(
    {t for phrase, _ in _PHRASES for t in phrase}
    | _INCLUSIVE_WORDS
    | _PRE_TAX_WORDS
    | _FINAL_TOTAL_WORDS
    | _ROUNDED_WORDS
)
_LONG_VOCABULARY = sorted(w for w in _VOCABULARY if len(w) >= OCR_REPAIR_MIN_LENGTH)
_FOLDED_VOCABULARY = {_ocr_folded(w): w for w in _LONG_VOCABULARY}


#: An item number opening a caption ("11c. ", "11C. "), or one whose "1" OCR read as a letter ("la. ").
_ITEM_NUMBER_RE = re.compile(r"^\s*(?:\d{1,2}[a-zA-Z]?|[lI]\d?[a-z])\.\s+(?=[A-Za-z])")
#: A bracketed hint closing a label: a format or the options to choose from.
_LABEL_HINT_RE = re.compile(r"\s*\([^()]*\)\s*:?\s*$")


def is_label_like(text: str) -> bool:
    """Whether `text` reads as a label rather than a value: every word a label word, and together
    they name a concept ("PATIENT LAST NAME", "Plan Type", "Home"), a closing bracket's hint at
    the format or options aside ("Sex (M/F)", "Date of birth (mm/dd/yyyy)")."""
    text = _ITEM_NUMBER_RE.sub("", text)
    tokens = label_tokens(_LABEL_HINT_RE.sub("", text) or text)
    return (
        bool(tokens)
        and all(t in _VOCABULARY or t in _FILLER_WORDS for t in tokens)
        and concept_of(text) is not None
    )


_OR_RE = re.compile(r"\s+(?:and/)?or\s+", re.IGNORECASE)


def without_item_number(text: str) -> str:
    """`text` without a form's item number before its caption ("1a. INSURED'S I.D. NUMBER")."""
    return _ITEM_NUMBER_RE.sub("", text)


def caption_core(text: str) -> str:
    """A caption without its item number and its alternative ("11c. INSURANCE PLAN NAME OR
    PROGRAM NAME" is "INSURANCE PLAN NAME"), when what is left is a label."""
    bare = _ITEM_NUMBER_RE.sub("", text)
    head, *alternative = _OR_RE.split(bare, maxsplit=1)
    if not alternative or not is_label_like(head):
        return bare
    # "POLICY GROUP OR FECA NUMBER": both sides share the alternative's last word ("NUMBER").
    words = alternative[0].split()
    shared = len(words) >= 2 and not set(label_tokens(words[-1])) & set(label_tokens(head))
    return f"{head} {words[-1]}" if shared else head


def vocabulary_words() -> frozenset[str]:
    """Every word labels are made of."""
    return _VOCABULARY


def composite_concepts(label: str) -> frozenset[str]:
    """The concepts a label joins with `/` or `,` ("City/State/Zip"), or none when it is one label."""
    if not any(sep in label for sep in "/,&"):
        return frozenset()
    parts = [p for p in re.split(r"[/,&]", label) if p.strip()]
    concepts = {concept_of(p) for p in parts}
    if len(parts) < 2 or None in concepts:
        return frozenset()
    return frozenset(c for c in concepts if c is not None)


def _compact(tokens: tuple[str, ...]) -> str:
    return "".join(tokens)


@lru_cache(maxsize=256)
def _compact_phrases(concept: str) -> frozenset[str]:
    """The concept's phrases with their spaces taken out, long enough not to be a chance match."""
    return frozenset(c for p in CONCEPTS.get(concept, ()) if len(c := _compact(_raw_tokens(p))) >= 6)
