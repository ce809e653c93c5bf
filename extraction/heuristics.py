"""Field heuristics for values no label names: general document conventions, never per document.

- the document's date: the first valid date;
- a company (issuer, merchant, vendor): the first line at the top of the first page that carries a
  company-form word (SDN BHD, Ltd, Inc, GmbH, Trading, ...), else the most prominent top line;
- an address: the lines after that company line, up to a telephone, tax or registration line;
- kinds with a distinctive format (email, web address, IBAN, telephone, currency): the first value
  of that format (not BIC: any eight capitals look like one);
- contract fields: the governing-law jurisdiction, the term ("for a period of two (2) years"), the
  effective date ("effective as of ...") and the parties ("between X and Y").
Each heuristic scores below any labelled value, so a label always wins when there is one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from extraction.candidate import Candidate
from extraction.document import Document
from extraction.normalize import concept_of, find_dates, is_label, label_tokens
from extraction.text_lines import TextUnit
from extraction.value_kinds import Kind, read_value

#: Prior of a heuristic value: below every labelled strategy (fields.PRIORS).
HEURISTIC_PRIOR = 0.6
#: Prior of a first-of-its-format value (email, IBAN, ...), found with no label.
FORMAT_PRIOR = 0.55
#: Share of the first page's height searched for the issuer's name.
TOP_REGION = 0.3
#: Lines searched for the issuer's name when the engine gave no boxes.
TOP_LINES = 8
#: Longest address, in lines.
MAX_ADDRESS_LINES = 6
#: An address ends at a blank gap taller than this many of its line heights.
ADDRESS_GAP_LINES = 1.5

#: Words of company names that say what kind of business it is, rather than which one.
_BUSINESS_WORDS = frozenset(
    [
        "enterprise",
        "enterprises",
        "trading",
        "traders",
        "group",
        "holdings",
        "industries",
        "restaurant",
        "restaurants",
        "restoran",
        "store",
        "stores",
        "mart",
        "supermarket",
        "hardware",
        "bakery",
        "cafe",
        "pharmacy",
        "services",
        "solutions",
        "international",
        "company",
        "corporation",
        "sdn",
        "bhd",
    ]
)
#: Legal forms that end a company's name.
_LEGAL_FORM_RE = re.compile(
    r"\b(?:sdn\.?\s*bhd|sdn|bhd|berhad|s/b|ltd|limited|llc|l\.l\.c|llp|inc|incorporated|corp|corporation|"
    r"co(?=[.\s]|$)|gmbh|ag|plc|pte|pvt|sarl|sas|s\.a|b\.v|n\.v|kg|srl|s\.r\.l|spa|oy|ab)\b\.?",
    re.IGNORECASE,
)
#: Words that start or fill address lines, in the languages of the documents seen so far.
_STREET_WORDS = frozenset(
    [
        "jalan",
        "jln",
        "lorong",
        "persiaran",
        "taman",
        "street",
        "st",
        "road",
        "rd",
        "avenue",
        "ave",
        "lane",
        "boulevard",
        "blvd",
        "drive",
        "way",
        "plaza",
        "floor",
        "flr",
        "block",
        "blk",
        "lot",
        "level",
        "suite",
        "unit",
        "rue",
        "avenida",
        "strasse",
        "str",
        "via",
        "calle",
        "building",
    ]
)
_ADDRESS_START_RE = re.compile(r"^(?:no\b|no\.|no\d|lot\b|level\b|unit\b|suite\b|block\b|\d)", re.IGNORECASE)
_POSTCODE_RE = re.compile(r"\b\d{5}\b")
_ADDRESS_STOP_RE = re.compile(
    r"\b(tel|tele?phone|phone|fax|h/?p|mobile|e-?mail|www|http|gst|vat|tax|invoice|receipt|cashier|date|"
    r"reg|registration|roc|co\.?\s*no|company|bill|table|order|doc|document)\b",
    re.IGNORECASE,
)
#: Company registration numbers printed under a shop's name ("(867388-U)", "JM0325955-V").
_REGISTRATION_RE = re.compile(r"^\(?\s*[A-Z]{0,3}\s*\d[\d\s]{3,}\s*-?\s*[A-Z]?\s*\)?$", re.IGNORECASE)
_TRAILING_REGISTRATION_RE = re.compile(r"\s*\(\s*[A-Z]{0,3}\d{4,}\s*-?\s*[A-Z]?\s*\)\s*$", re.IGNORECASE)
_HEADING_WORDS = frozenset({"receipt", "invoice", "tax", "bill", "cash", "statement", "quotation", "order"})


def heuristic_candidates(doc: Document, units: list[TextUnit], name: str, kind: Kind) -> Iterator[Candidate]:
    concept = concept_of(name)
    if concept == "company" or (concept is None and kind == "text" and "issuer" in label_tokens(name)):
        yield from _company(units)
    elif concept == "address":
        yield from _address(units)
    elif concept == "jurisdiction":
        yield from _jurisdiction(units)
    elif concept == "term":
        yield from _term(units)
    elif concept == "party":
        yield from _parties(units)
    elif concept == "effective_date":
        yield from _effective_date(units)
    elif concept == "date" and kind == "date":
        yield from _first_date(units)
    elif kind in ("email", "url", "iban", "currency", "currency_symbol") or concept == "phone":
        # Mobile and fax numbers look like any telephone number: only "phone" takes the first one.
        yield from _first_of_format(units, kind)


def _first_date(units: list[TextUnit]) -> Iterator[Candidate]:
    """The first date that no label claims for something else (a due date, a birth date)."""
    for unit in units:
        for found in find_dates(unit.text):
            # The nearest words before a date are its label, if it has one.
            claimed_by = concept_of(" ".join(unit.text[: found.start].split()[-2:]))
            if claimed_by in (None, "date"):
                yield Candidate.of(found.value, HEURISTIC_PRIOR, [unit], found.raw, "first_date")
                return


def _first_of_format(units: list[TextUnit], kind: Kind) -> Iterator[Candidate]:
    for unit in units:
        reading = read_value(kind, unit.text)
        if reading is None:
            continue
        if kind == "phone" and not re.search(r"[\s()+-]", reading.value):
            # A bare run of digits is more often a reference number than a telephone.
            continue
        yield Candidate.of(reading.value, FORMAT_PRIOR, [unit], reading.raw, "first_of_format")
        return


def _letters(text: str) -> int:
    return sum(c.isalpha() for c in text)


def _top_units(units: list[TextUnit]) -> list[TextUnit]:
    """The lines of the top of the first page, top to bottom."""
    if not units:
        return []
    first_page = min(u.page for u in units)
    page_units = [u for u in units if u.page == first_page]
    if all(u.box is not None for u in page_units):
        bottom = max(u.box.y1 for u in page_units if u.box)
        top = min(u.box.y0 for u in page_units if u.box)
        limit = top + TOP_REGION * (bottom - top)
        return sorted(
            (u for u in page_units if u.box and u.box.y0 <= limit),
            key=lambda u: (u.box.y0 if u.box else 0.0, u.box.x0 if u.box else 0.0),
        )
    return page_units[:TOP_LINES]


def _height(unit: TextUnit) -> float:
    return unit.box.y1 - unit.box.y0 if unit.box is not None else 0.0


def _is_registration(text: str) -> bool:
    return bool(_REGISTRATION_RE.match(text.strip()))


def _looks_like_name(text: str) -> bool:
    text = _TRAILING_REGISTRATION_RE.sub("", text)
    tokens = label_tokens(text)
    letters = _letters(text)
    if letters < 3 or letters < 0.5 * len(text.replace(" ", "")) or ":" in text:
        return False
    if find_dates(text) or _ADDRESS_STOP_RE.search(text) or _is_registration(text):
        return False
    return not (tokens and set(tokens) <= _HEADING_WORDS)


def _looks_like_address(text: str) -> bool:
    if find_dates(text) or _is_registration(text) or _letters(text) < 2 or _LEGAL_FORM_RE.search(text):
        return False
    tokens = set(label_tokens(text))
    return bool(_ADDRESS_START_RE.match(text.strip()) or tokens & _STREET_WORDS or _POSTCODE_RE.search(text))


def _address_start(top: list[TextUnit]) -> int | None:
    """Index of the first address line: the first address-like line after a name-like one."""
    seen_name = False
    for index, unit in enumerate(top):
        if seen_name and _looks_like_address(unit.text):
            return index
        seen_name = seen_name or _looks_like_name(unit.text)
    return None


def _continues(upper: str, lower: str) -> bool:
    """Whether `lower` carries on the name begun on `upper` (a name split over two lines)."""
    upper, lower = unicodedata.normalize("NFKC", upper).strip(), unicodedata.normalize("NFKC", lower).strip()
    if upper.endswith(("&", ",", "-", " AND", " and")) or lower.startswith(("&", "(")):
        return True
    if upper.count("(") > upper.count(")") or lower.count(")") > lower.count("("):
        return True
    first = label_tokens(lower)[:1]
    return bool(first and first[0] in _BUSINESS_WORDS)


def _company_lines(units: list[TextUnit]) -> tuple[list[TextUnit], int | None, list[TextUnit]]:
    """(the issuer's name lines, index of the address start, the top lines) of a receipt or letterhead.

    The name is the first line before the address that ends in a legal form (SDN BHD, Ltd, Inc, ...),
    else the name-like line right above the address, else the most prominent top line; a name split
    over lines ("AIK HUAT HARDWARE" / "ENTERPRISE (SETIA" / "ALAM) SDN BHD") is joined.
    """
    top = _top_units(units)
    start = _address_start(top)
    region = top[:start] if start is not None else top
    names = [i for i, u in enumerate(region) if _looks_like_name(u.text)]
    if not names:
        return [], start, top
    legal = [i for i in names if _LEGAL_FORM_RE.search(region[i].text)]
    if legal:
        chosen = legal[0]
    elif start is not None:
        chosen = names[-1]
    else:
        chosen = max(names, key=lambda i: (_height(region[i]), -i))
    first = chosen
    while first - 1 in names and _continues(region[first - 1].text, region[first].text):
        first -= 1
    last = chosen
    while last + 1 in names and _unclosed(region[last].text):
        last += 1
    return region[first : last + 1], start, top


def _unclosed(text: str) -> bool:
    text = unicodedata.normalize("NFKC", text)
    return text.count("(") > text.count(")")


def _company(units: list[TextUnit]) -> Iterator[Candidate]:
    lines, _, _ = _company_lines(units)
    if lines:
        raw = " ".join(u.text.strip() for u in lines)
        value = _TRAILING_REGISTRATION_RE.sub("", raw).strip(" :;,")
        # A sender line "QualityHosting AG - Uferweg 40-42 - D-63571 Gelnhausen" names the company first.
        head = re.split("\\s+[-\u2013|\u2022]\\s+", value)[0]
        if head != value and _LEGAL_FORM_RE.search(head):
            value = head
        yield Candidate.of(value, HEURISTIC_PRIOR, lines, raw, "company_top")


def _address(units: list[TextUnit]) -> Iterator[Candidate]:
    company, start, top = _company_lines(units)
    if not company or start is None:
        return
    lines: list[TextUnit] = []
    for unit in top[start:] + [u for u in units if u.order > top[-1].order][:MAX_ADDRESS_LINES]:
        text = unit.text.strip()
        if (
            len(lines) >= MAX_ADDRESS_LINES
            or _ADDRESS_STOP_RE.search(text)
            or find_dates(text)
            or _is_registration(text)
            or _letters(text) < 2
            or _LEGAL_FORM_RE.search(text)
            or is_label(text)
            or (lines and _far_below(lines[-1], unit))
        ):
            break
        lines.append(unit)
    if lines:
        value = " ".join(u.text.strip() for u in lines)
        yield Candidate.of(value, HEURISTIC_PRIOR, lines, value, "address_after_company")


def _far_below(upper: TextUnit, lower: TextUnit) -> bool:
    """Whether a blank gap of more than `ADDRESS_GAP_LINES` line heights separates two lines."""
    if upper.box is None or lower.box is None:
        return False
    height = max(upper.box.y1 - upper.box.y0, 1e-6)
    return lower.box.y0 - upper.box.y1 > ADDRESS_GAP_LINES * height


def _joined(units: list[TextUnit]) -> tuple[str, list[tuple[int, int, TextUnit]]]:
    """The text of `units` joined by spaces, with each unit's character span in it."""
    parts: list[str] = []
    spans: list[tuple[int, int, TextUnit]] = []
    position = 0
    for unit in units:
        spans.append((position, position + len(unit.text), unit))
        parts.append(unit.text)
        position += len(unit.text) + 1
    return " ".join(parts), spans


def _units_in(spans: list[tuple[int, int, TextUnit]], start: int, end: int) -> list[TextUnit]:
    return [u for s, e, u in spans if s < end and start < e]


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


def _jurisdiction(units: list[TextUnit]) -> Iterator[Candidate]:
    """The place whose laws govern the contract ("governed by the laws of the State of Oregon")."""
    text, spans = _joined(units)
    for pattern in _JURISDICTION_RES:
        m = pattern.search(text)
        if m is not None:
            found = _units_in(spans, m.start(1), m.end(1))
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
_NOT_TERM_RE = re.compile(
    r"^\s*(?i:\(?written\)?\s+notice|prior|notice|business|before|of\s+(?:receipt|disclosure))"
)
#: How far before a duration a word such as "terminate" is looked for.
TERM_CUE_WINDOW = 120


def _duration(m: re.Match[str]) -> str | None:
    words, digits, bare, word = m.group(1), m.group(2), m.group(3), m.group(4)
    number = int(digits or bare) if (digits or bare) else _NUMBER_WORDS.get((word or words or "").lower())
    if not number:
        return None
    unit = m.group(5).lower()
    return f"{number} {unit}" if number == 1 else f"{number} {unit}s"


def _term(units: list[TextUnit]) -> Iterator[Candidate]:
    """How long the contract or its obligations last: a duration near "terminate", "expire",
    "survive" or "term", counted from a date ("two (2) years from the date hereof")."""
    text, spans = _joined(units)
    best: tuple[int, re.Match[str], str] | None = None
    for m in _DURATION_RE.finditer(text):
        value = _duration(m)
        after = text[m.end() : m.end() + 40]
        if value is None or _NOT_TERM_RE.match(after):
            continue
        before = text[max(0, m.start() - TERM_CUE_WINDOW) : m.start()]
        strength = 2 * bool(_TERM_CUE_RE.search(before)) + bool(_TERM_ANCHOR_RE.match(after))
        strength += bool(re.search(r"(?i:period\s+of)\s*$", before))
        if strength >= 3 and (best is None or strength > best[0]):
            best = (strength, m, value)
    if best is not None:
        _, m, value = best
        yield Candidate.of(value, HEURISTIC_PRIOR, _units_in(spans, m.start(), m.end()), m.group(0), "term")


_EFFECTIVE_RE = re.compile(
    r"\b(?:effective|dated|made|entered\s+into|executed|signed|as\s+of)\b(?:\s+(?:as\s+of|on|this|date))?",
    re.IGNORECASE,
)
_DATE_LABEL_RE = re.compile(r"\bdate[d:]?\s*:?\s*$", re.IGNORECASE)
#: Characters between an "effective as of" phrase and its date.
EFFECTIVE_DATE_WINDOW = 40


def _effective_date(units: list[TextUnit]) -> Iterator[Candidate]:
    """The date a contract takes effect: after "effective", "dated", "made", "entered into" or
    "as of"; else the date a signature block labels "Date"; else the first date."""
    text, spans = _joined(units)
    dates = find_dates(text)
    if not dates:
        return
    phrases = [m.end() for m in _EFFECTIVE_RE.finditer(text)]
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
                first.value, prior, _units_in(spans, first.start, first.end), first.raw, strategy
            )
            return


_ENTITY = "([A-Z0-9][\\w.&'\u2019-]*(?:,?\\s+(?:[A-Z0-9&][\\w.&'\u2019-]*|of|and|de|du|the))*)"
_BETWEEN_RE = re.compile(r"\bbetween\s+(?:and\s+among\s+)?" + _ENTITY + r"[^;]{0,300}?\band\s+" + _ENTITY)


def _clean_party(text: str) -> str:
    return re.sub(r"\s+(?:and|of|the)$", "", text.strip(" ,.;:")).strip(" ,")


def _parties(units: list[TextUnit]) -> Iterator[Candidate]:
    text, spans = _joined(units)
    m = _BETWEEN_RE.search(text)
    if m is None:
        return
    parties = [_clean_party(m.group(1)), _clean_party(m.group(2))]
    parties = [p for p in parties if len(p) > 1 and p.lower() not in {"the", "company"}]
    if parties:
        found = _units_in(spans, m.start(1), m.end(2))
        yield Candidate.of(parties, HEURISTIC_PRIOR, found, m.group(0), "between")
