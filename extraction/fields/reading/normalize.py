"""Reading values and labels the way people write them: check boxes, field labels (dates:
`date_text.py`; amounts: `amounts.py`; the labels' vocabulary: `concepts.py`).

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
from functools import lru_cache

from rapidfuzz import fuzz, process

from extraction.fields.reading.concepts import CONCEPTS
from extraction.fields.reading.ocr_reads import DIGITS_AS_LETTERS, LETTER_GROUPS

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
#: Label words shorter than this are repaired from words of their length give or take one letter.
SHORT_LABEL_WORD = 5


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
    # A slip changes a short word's length by one letter at most ("Reno" is no "prenom"; "Ibanez",
    # a surname, no "IBAN"); a long one may hold a label run into the next word ("TAXINVOICE").
    slack = max(1, len(token) // OCR_REPAIR_LENGTH_SHARE)
    near = [
        w
        for w in _LONG_VOCABULARY
        if abs(len(w) - len(token)) <= (slack if len(w) >= SHORT_LABEL_WORD else 1)
    ]
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
#: Words a label may carry without naming anything else: articles, currencies, "no." marks, and
#: "legal" ("Legal First Name" asks for the first name as on an ID).
_FILLER_WORDS = frozenset(
    {
        "of",
        "the",
        "in",
        "on",
        "for",
        "a",
        "an",
        "to",
        "rm",
        "usd",
        "eur",
        "gbp",
        "inr",
        "myr",
        "rs",
        "s",
        "legal",
        # Spanish articles and prepositions ("Fecha de nacimiento", "Titular de la póliza").
        "de",
        "del",
        "la",
        "el",
        "los",
        "las",
        "y",
        "que",
        "lo",
    }
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
        if any(_content(l_tokens) == _content(label_tokens(p)) for p in CONCEPTS[f_concept]):
            # A synonym but for words that name nothing ("Apellido(s)", "Fecha de nacimiento").
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
def _content(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """A label's words less those that name nothing (`_FILLER_WORDS`)."""
    return tuple(t for t in tokens if t not in _FILLER_WORDS)


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
