"""The issuer's name and address, read from the header block of a receipt's or a letterhead's first page.

A header reads top down: the issuer's name (the first line that carries a legal form of some
country, else the name line right above the address, else the most prominent top line), maybe its
registration number, then the address, then the lines to reach the issuer and its tax numbers.
The address is the run of lines under the name up to a telephone, e-mail, web, identifier, date
or label line, each known by its shape (`header_lines.py`), or a blank gap. Where an address line
starts is told by its shape as well: a number or a unit first, a house number after the street, a
postcode, a trailing comma that runs the address on to the next line, or a place's name alone
over the postcode line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from extraction.fields.documents.header_lines import (
    has_postcode,
    is_contact_line,
    is_identifier_line,
    opens_with_block_number,
)
from extraction.fields.documents.issuer_words import (
    BUSINESS_WORDS,
    LEGAL_FORM_RE,
    LEGAL_FORM_WORDS,
    STREET_WORDS,
)
from extraction.fields.model.candidate import HEURISTIC_PRIOR, Candidate
from extraction.fields.reading.date_text import find_dates
from extraction.fields.reading.normalize import is_label, label_tokens
from extraction.fields.reading.text_lines import TextUnit

#: Share of the first page's height searched for the issuer's name.
TOP_REGION = 0.3
#: Lines searched for the issuer's name when the engine gave no boxes.
TOP_LINES = 8
#: Longest address, in lines.
MAX_ADDRESS_LINES = 6
#: An address ends at a blank gap taller than this many of its line heights.
ADDRESS_GAP_LINES = 1.5

#: A street's name, then its house number last ("Kerkstraat 45", "Hauptstr. 12a", "Via Roma 10"),
#: as most of Europe writes it.
_NUMBER_AFTER_STREET_RE = re.compile(r"^[^\W\d_][^\d,:]*[^\W\d_]\.?\s+\d{1,4}[A-Za-z]?$")
#: A number sign before digits marks a unit's, a floor's or a store's number ("#02-15", "STORE #464").
_NUMBER_SIGN_RE = re.compile(r"#\s?\d")
#: A postcode right after the letters a legal form reads as ("RENO CO 12144").
_POSTCODE_NEXT_RE = re.compile(r"[\s,]*\d{4,6}\b")
_ADDRESS_START_RE = re.compile(r"^(?:no\b|no\.|no\d|lot\b|level\b|unit\b|suite\b|block\b|\d)", re.IGNORECASE)
#: A five-digit postcode with the town glued to it ("53300KL"): OCR lost the space between them.
_GLUED_POSTCODE_RE = re.compile(r"\b(\d{5})(?=[A-Za-z]{2,}\b)")
#: Label words of the lines that end an address. "HP" (hand phone) is one only before its number:
#: a Dutch postcode ends in two letters ("7417 HP Utrecht").
_ADDRESS_STOP_RE = re.compile(
    r"\b(tel|tele?phone|phone|fax|h/p|hp(?=\s*[:.]?\s*[+(\d])|mobile|e-?mail|www|http|gst|vat|tax|invoice|receipt|cashier|date|"
    r"reg|registration|roc|co\.?\s*no|company|bill|table|order|doc|document)\b",
    re.IGNORECASE,
)
#: Company registration numbers printed under a shop's name ("(867388-U)", "JM0325955-V").
_REGISTRATION_RE = re.compile(r"^\(?\s*[A-Z]{0,3}\s*\d[\d\s]{3,}\s*-?\s*[A-Z]?\s*\)?$", re.IGNORECASE)
#: Set after the name on its line; OCR may lose one bracket ("99 SPEED MART S/B 519537-X)"), so
#: it is known by its opening bracket or by its check letter.
_TRAILING_REGISTRATION_RE = re.compile(
    r"\s*(?:\(\s*[A-Z]{0,3}\d{4,}\s*-?\s*[A-Z]?\s*\)?|\(?\s*[A-Z]{0,3}\d{4,}\s*-\s*[A-Z]\s*\)?)\s*$",
    re.IGNORECASE,
)
#: A bracket glued to the word before it, or a closing one to the word after it: OCR lost the
#: space that names set there ("MR. D.I.Y.(M) SDN BHD", "MOTOR(SUNGAI RENGIT)SDN").
_GLUED_OPENING_RE = re.compile(r"(?<=[^\s(\[/-])\((?=[^\s)])")
_GLUED_CLOSING_RE = re.compile(r"(?<=[^\s(])\)(?=[^\W_])")
#: An initial's or a legal form's period glued to the next word ("S.H.H.MOTOR", "SDN.BHD.");
#: a run of initials ("D.I.Y.") keeps its periods together.
_GLUED_PERIOD_RE = re.compile(r"(?:(?<=\b[A-Za-z])|(?<=\bsdn)|(?<=\bco))\.(?=[A-Za-z]{2,})", re.IGNORECASE)
#: A document title set after the issuer's name on its top line.
_TRAILING_TITLE_RE = re.compile(
    r"(?<=\w)\s+(?:tax\s+)?(?:invoice|receipt|bill|statement|quotation|credit\s+note)\s*$", re.IGNORECASE
)
_HEADING_WORDS = frozenset({"receipt", "invoice", "tax", "bill", "cash", "statement", "quotation", "order"})


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


def _without_title(text: str) -> str:
    """A top line without the document's title after the issuer's name ("Acme Web Services
    Invoice" is Acme Web Services' invoice)."""
    return _TRAILING_TITLE_RE.sub("", text)


def _looks_like_name(text: str) -> bool:
    text = _without_title(_TRAILING_REGISTRATION_RE.sub("", text))
    tokens = label_tokens(text)
    letters = _letters(text)
    if letters < 3 or letters < 0.5 * len(text.replace(" ", "")) or ":" in text:
        return False
    if find_dates(text) or _ADDRESS_STOP_RE.search(text) or _is_registration(text) or is_contact_line(text):
        return False
    return not (tokens and set(tokens) <= _HEADING_WORDS)


def _looks_like_address(text: str) -> bool:
    if _is_registration(text) or _letters(text) < 2 or _names_a_company(text) or is_contact_line(text):
        return False
    tokens = set(label_tokens(text))
    return bool(
        _ADDRESS_START_RE.match(text.strip())
        or _NUMBER_AFTER_STREET_RE.match(text.strip())
        or _NUMBER_SIGN_RE.search(text)
        or tokens & STREET_WORDS
        or has_postcode(text)
        or _ends_list(text)
    )


def _ends_list(text: str) -> bool:
    """Whether a line ends in a comma after a word: the parts of an address run on to the next line
    ("S117, Second Floor,", "TAMAN SEJATI,"); a name ends with its last word or a legal form."""
    return bool(re.search(r"[^\W_][.)]?,$", text.strip()))


def _names_a_company(text: str) -> bool:
    """Whether a line carries a legal form, so names a company: not when a postcode follows the
    form's letters, which are then a region's ("RENO CO 12144" is in Colorado)."""
    found = LEGAL_FORM_RE.search(text)
    return found is not None and not _POSTCODE_NEXT_RE.match(text, found.end())


def _address_start(top: list[TextUnit]) -> int | None:
    """Index of the first address line: the first address-like line after a name-like one."""
    names = 0
    for index, unit in enumerate(top):
        if names and not _dated(top, index) and _looks_like_address(unit.text):
            if names >= 2 and _place_over_postcode(top, index - 1, index) and _ends_header(top, index + 1):
                # The name is the line above the place: "ASIA MART" / "KINGSPORT GARDENS" / "41150 OAKDALE".
                return index - 1
            return index
        names += _looks_like_name(unit.text)
    return None


def _ends_header(top: list[TextUnit], index: int) -> bool:
    """Whether the address can go on no further than line `index`: past the top, or a line that is
    no part of an address."""
    return index >= len(top) or _ends_address(top[index].text.strip()) or _dated(top, index)


def _continues(upper: str, lower: str) -> bool:
    """Whether `lower` carries on the name begun on `upper` (a name split over two lines)."""
    upper, lower = unicodedata.normalize("NFKC", upper).strip(), unicodedata.normalize("NFKC", lower).strip()
    if upper.endswith(("&", ",", "-", " AND", " and")) or lower.startswith(("&", "(")):
        return True
    if upper.count("(") > upper.count(")") or lower.count(")") > lower.count("("):
        return True
    first = label_tokens(lower)[:1]
    return bool(first and first[0] in BUSINESS_WORDS)


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
    legal = [i for i in names if LEGAL_FORM_RE.search(region[i].text)]
    if legal:
        chosen = legal[0]
    elif start is not None:
        chosen = names[-1]
    else:
        # A line all in small letters is a note written on the receipt, not its printed name.
        chosen = max(names, key=lambda i: (not region[i].text.islower(), _height(region[i]), -i))
    body = _body_height(units)
    first = chosen
    while first - 1 in names and (
        _continues(region[first - 1].text, region[first].text)
        or _legal_form_only(region[first].text)
        or _one_prominent_block(region[first - 1], region[first], body)
        or (_one_word_and_legal_form(region[first].text) and _same_face(region[first - 1], region[first]))
    ):
        first -= 1
    last = chosen
    while last + 1 in names and _unclosed(region[last].text):
        last += 1
    if legal:
        start = _start_under(top, last, start)
    return region[first : last + 1], start, top


#: A name set in a face at least this many times the body text's height stands out as a heading.
PROMINENT_HEIGHT = 1.25
#: Lines of one heading differ in height by at most this share (OCR boxes vary a little).
SAME_HEIGHT = 0.15
#: Lines in one body face differ by at most this share: a line with descenders ("Bar S.p.A.") is
#: boxed a quarter taller than one without ("Cedar Noodle").
SAME_BODY_HEIGHT = 0.25


def _body_height(units: list[TextUnit]) -> float:
    """The median line height of the first page: the height of its body text."""
    heights = sorted(_height(u) for u in units if u.box is not None and u.page == units[0].page)
    return heights[len(heights) // 2] if heights else 0.0


def _one_prominent_block(upper: TextUnit, lower: TextUnit, body: float) -> bool:
    """Whether two name lines, one under the other, are one heading: both in the same face, taller
    than the body text ("BLUE COFFEE" over "HOUSE INC." in large type)."""
    return (
        body > 0
        and min(_height(upper), _height(lower)) >= PROMINENT_HEIGHT * body
        and _same_face(upper, lower, SAME_HEIGHT)
    )


def _same_face(upper: TextUnit, lower: TextUnit, tolerance: float = SAME_BODY_HEIGHT) -> bool:
    """Whether two lines, one right under the other, are set in one face: one case, heights apart
    by at most `tolerance` of the taller."""
    high, low = _height(upper), _height(lower)
    if upper.text.isupper() != lower.text.isupper():
        # One face has one case: a handwritten note over a printed name is no part of it.
        return False
    return abs(high - low) <= tolerance * max(high, low) and not _far_below(upper, lower)


def _one_word_and_legal_form(text: str) -> bool:
    """Whether a line is one word and a legal form ("HOUSE INC.", "Bar S.p.A."): most often the end
    of a name too long for one line, whose start is the name line above in the same face."""
    found = LEGAL_FORM_RE.search(text)
    return found is not None and len(re.findall(r"[^\W\d_]{2,}", text[: found.start()])) == 1


def _legal_form_only(text: str) -> bool:
    """Whether a line is nothing but a legal form ("Pty Ltd", "SDN. BHD."): the end of a name begun above."""
    return _letters(LEGAL_FORM_RE.sub("", _TRAILING_REGISTRATION_RE.sub("", text))) == 0


def _start_under(top: list[TextUnit], last: int, found: int | None) -> int | None:
    """Where the address starts under a name known by its legal form: at the first line below the
    name that is no registration number, whatever its words ("#02-15 Orchard Point" is the
    address's first line as surely as "12 Main Street"); `found` (the first address-like line)
    when that line cannot start one."""
    index = last + 1
    while index < len(top) and (_is_registration(top[index].text) or is_identifier_line(top[index].text)):
        index += 1
    if index >= len(top) or (found is not None and found <= index):
        return found
    if (
        found is not None
        and not all(any(c.isdigit() for c in u.text) for u in top[index:found])
        and not _place_over_postcode(top, index, found)
    ):
        # Words between the name and the address are more of the name's story ("formerly known
        # as ...", "Licensee of ..."); a line with a number is the address's unit or building.
        return found
    text = top[index].text
    if (
        _ADDRESS_STOP_RE.search(text)
        or is_contact_line(text)
        or _dated(top, index)
        or _letters(text) < 2
        or LEGAL_FORM_RE.search(text)
        or is_label(text)
        or _far_below(top[index - 1], top[index])
    ):
        return found
    return index


def _place_over_postcode(top: list[TextUnit], index: int, found: int) -> bool:
    """Whether line `index`, alone between a name and the address found under it, is that address's
    first line: the found line holds the postcode, which ends an address rather than starting it,
    and line `index` names a place, every word capitalised ("TAMAN BERKELEY" over "41150 KLANG",
    "Westbury" over "Leeds LS1 4AB"), not a phrase ("Licensee of ...")."""
    if found != index + 1 or not has_postcode(top[found].text):
        return False
    words = re.findall(r"[^\W\d_][\w'.-]*", top[index].text)
    return bool(words) and all(w[0].isupper() for w in words) and not _names_a_company(top[index].text)


def _unclosed(text: str) -> bool:
    text = unicodedata.normalize("NFKC", text)
    return text.count("(") > text.count(")")


def company(units: list[TextUnit]) -> Iterator[Candidate]:
    lines, _, _ = _company_lines(units)
    if lines:
        raw = " ".join(u.text.strip() for u in lines)
        value = _without_title(_TRAILING_REGISTRATION_RE.sub("", raw)).strip(" :;,")
        # A sender line "QualityHosting AG - Uferweg 40-42 - D-63571 Gelnhausen" names the company first.
        head = re.split("\\s+[-\u2013|\u2022]\\s+", value)[0]
        if head != value and LEGAL_FORM_RE.search(head):
            value = head
        yield Candidate.of(
            _spaced_name(_legal_form_mended(value)), HEURISTIC_PRIOR, lines, raw, "company_top"
        )


def _spaced_name(name: str) -> str:
    """`name` with the spaces OCR lost around its brackets and after its initials put back."""
    name = _GLUED_OPENING_RE.sub(" (", name)
    return _GLUED_PERIOD_RE.sub(". ", _GLUED_CLOSING_RE.sub(") ", name))


def _legal_form_mended(name: str) -> str:
    """`name` with a legal form that OCR split in two ("SDN BH D") made one word again."""
    words = name.split(" ")
    for k in range(len(words) - 2, -1, -1):
        first, second = words[k], words[k + 1]
        joined = (first + second).rstrip(".").lower()
        if joined in LEGAL_FORM_WORDS and first.lower() not in LEGAL_FORM_WORDS:
            words[k : k + 2] = [first + second]
    return " ".join(words)


def address(units: list[TextUnit]) -> Iterator[Candidate]:
    company, start, top = _company_lines(units)
    if not company:
        return
    header = top + [u for u in units if u.order > top[-1].order][:MAX_ADDRESS_LINES]
    if start is None:
        # On a long receipt the header block can run past the top region, its address just under it.
        start = _address_start(header)
        if start is None:
            return
    lines: list[TextUnit] = []
    texts: list[str] = []
    for index in range(start, len(header)):
        unit = header[index]
        if (
            len(lines) >= MAX_ADDRESS_LINES
            or _dated(header, index)
            or (lines and _far_below(lines[-1], unit))
        ):
            break
        if _ends_address(unit.text.strip()):
            head = _place_before_contact(unit.text.strip())
            if lines and head:
                lines.append(unit)
                texts.append(head)
            break
        lines.append(unit)
        texts.append(_address_part(unit.text))
    if lines:
        raw = " ".join(texts)
        read = " ".join([_RUN_ON_PERIOD_RE.sub(",", text) for text in texts[:-1]] + texts[-1:])
        value = _GLUED_POSTCODE_RE.sub(r"\1 ", read)
        yield Candidate.of(value, HEURISTIC_PRIOR, lines, raw, "address_after_company")


#: A period after a full word (five letters or more: no abbreviation such as "AVE." or "JLN.") at the
#: end of an address line that the address runs on past. The parts of an address run on with
#: commas (the typed lines of the corpus receipts: 34 such lines end in a comma, at most 2 in a
#: period), and OCR reads a line-final comma, which has no right context, as a period one time in
#: eight (4 of 32 there): a period read there is a comma two times in three or more.
_RUN_ON_PERIOD_RE = re.compile(r"(?<=[^\W\d_]{5})\.$")


def _address_part(text: str) -> str:
    """An address line without a colon at its end: a colon ends a label, and a label line has
    ended the address before this one, so a colon after an address's last word is a speck that OCR
    read ("45600 BATANG BERJUNTAI:" over "SELANGOR DARUL EHSAN")."""
    return text.strip().removesuffix(":").rstrip()


#: The label of a telephone or e-mail set after the last part of an address on its line.
_CONTACT_LABEL_RE = re.compile(r"[\s,;.]+(?:tel|tele?phone|phone|fax|h/p|hp|mobile|e-?mail)\b", re.IGNORECASE)


def _place_before_contact(text: str) -> str | None:
    """The end of an address before the telephone set after it on its line ("47400 PETALING JAYA
    TEL: 03-7731 8169"): the part before the label, when it holds a postcode, which ends an address."""
    found = _CONTACT_LABEL_RE.search(text)
    if found is None:
        return None
    head = text[: found.start()].strip()
    return head if has_postcode(head) and not _ends_address(head) else None


def _ends_address(text: str) -> bool:
    """Whether a header line cannot be part of an address, whatever its neighbours: a telephone,
    identifier or label line, a registration number, a legal form's name, a line without words."""
    return bool(
        _ADDRESS_STOP_RE.search(text)
        or is_contact_line(text)
        or _is_registration(text)
        or _letters(text) < 2
        or _names_a_company(text)
        or is_label(text)
    )


def _dated(lines: list[TextUnit], index: int) -> bool:
    """Whether line `index` holds a date: not when its date-shaped start is an address's block
    numbers before a place's name ("3-16-18 Shibuya") with more of the address on the next line."""
    text = lines[index].text.strip()
    if not find_dates(text):
        return False
    if not opens_with_block_number(text) or index + 1 >= len(lines):
        return True
    below = lines[index + 1].text.strip()
    return _ends_address(below) or bool(find_dates(below)) or _far_below(lines[index], lines[index + 1])


def _far_below(upper: TextUnit, lower: TextUnit) -> bool:
    """Whether a blank gap of more than `ADDRESS_GAP_LINES` line heights separates two lines."""
    if upper.box is None or lower.box is None:
        return False
    height = max(upper.box.y1 - upper.box.y0, 1e-6)
    return lower.box.y0 - upper.box.y1 > ADDRESS_GAP_LINES * height
