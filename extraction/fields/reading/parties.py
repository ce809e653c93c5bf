"""A contract's parties, read from its preamble.

Contracts name each party once, early, and give it a short name to be known by in the rest of
the text: "Potomac Key Group, LLC (the “Undersigned”)", "between 99¢ Only Stores, a California
corporation (the “Company”), and ...", "PARTIES: John J. Donahoe II (“Employee”)". The name right
before such a defined term, with its description ("a Delaware corporation", "and its
subsidiaries") left off, is a party when it reads as an organisation's or a person's name.

A party is returned in its canonical form (`canonical_party`), as registers and contract databases
list entities: "Kite Pharma, Inc." and "KITE PHARMA INC" are one party, and a caller matching the
parties to its own records should not have to know which way this contract wrote it. The citation
still quotes the text as printed.
"""

from __future__ import annotations

import re
import unicodedata

#: How much of the running text, in characters, is the preamble where parties are introduced.
PREAMBLE_CHARS = 2500
#: How far before a defined term its party's name is looked for.
NAME_WINDOW = 250
#: Longest party name, in words, without a legal form to end it (a person, "99¢ Only Stores").
MAX_PLAIN_NAME_WORDS = 5
#: Longest party name, in words, ending in a legal form.
MAX_NAME_WORDS = 10

#: A parenthetical that defines a short name: (the “Company”), (“EMPLOYEE”), (together, the "Buyer").
_DEFINED_TERM_RE = re.compile(r"\(\s*[^()“”\"]{0,60}?[“\"]([^”\"()]{1,40})[”\"][^()]{0,120}\)")
#: What may sit between a party's name and its defined term: its description.
_DESCRIPTION_RE = re.compile(
    r"(?:,?\s+(?:a|an)\s+[^,()“”\"]{2,80}|,?\s+(?:and\s+)?(?:its|their)\s+[^()“”\"]{2,120}|,?\s+"
    r"(?:together|collectively)\b[^()“”\"]{0,60})\s*,?\s*$"
)
_NAME_WORD = r"(?:[A-Z0-9][\w.&'\u2019\u00a2-]*|&)"
_NAME_RE = re.compile(r"(" + _NAME_WORD + r"(?:,?\s+(?:" + _NAME_WORD + r"|of|and|de|du|the|for))*)[\s,]*$")
_LEGAL_FORM_RE = re.compile(
    r"\b(?:inc|incorporated|corp|corporation|company|co|llc|l\.l\.c|lp|l\.p|llp|ltd|limited|plc|"
    r"n\.a|bank|trust|group|partners|holdings|s\.a|ag|gmbh|b\.v|n\.v)\.?$",
    re.IGNORECASE,
)
#: Words of defined terms that name the document or the deal, not a party.
_NOT_PARTY_WORDS = frozenset(
    {
        "agreement",
        "transaction",
        "transactions",
        "information",
        "material",
        "materials",
        "date",
        "notes",
        "purpose",
        "business",
        "act",
        "letter",
        "proposal",
        "confidential",
        "evaluation",
        "plan",
        "products",
        "shares",
        "stock",
        "merger",
        "acquisition",
        "project",
        "services",
        "board",
        "directors",
        "committee",
    }
)
#: First words of a recital or a clause, not of a name ("WHEREAS, NeoGenomics and ...").
_NOT_A_NAME_START = frozenset({"whereas", "now", "witnesseth", "recitals"})
#: A period after a word this long ends a sentence ("... and Employee. If Employee"), where one
#: after an initial or an abbreviation ("R. J. Seifert", "Co.") does not.
MIN_SENTENCE_WORD = 4


def defined_parties(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end in `text`) of each party the preamble of `text` introduces with a defined
    term, in order, each name once."""
    preamble = text[:PREAMBLE_CHARS]
    found: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    terms: set[str] = set()
    for m in _DEFINED_TERM_RE.finditer(preamble):
        term = m.group(1).strip().lower()
        terms.add(term)
        if set(re.findall(r"[a-z]+", term)) & _NOT_PARTY_WORDS:
            continue
        located = _name_before(preamble, m.start())
        if located is None:
            continue
        name, start = located
        key = party_key(name)
        if key in seen or key in terms:
            continue
        seen.add(key)
        found.append((name, start, start + len(name)))
    return found


def looks_like_party(name: str) -> bool:
    """Whether `name` reads as an organisation's or a person's name: capitalised words, a legal
    form at the end or few enough words to be a person's or a short trade name; not a role ("The
    Company") nor a legal form alone."""
    words = name.replace(",", " ").split()
    if not words or not words[0][:1].isalnum() or words[0].isdigit():
        return False
    if set(re.findall(r"[a-z]+", name.lower())) & _NOT_PARTY_WORDS:
        return False
    if words[0].lower() in _NOT_A_NAME_START or (words[0].lower() == "the" and len(words) <= 2):
        return False
    if _LEGAL_FORM_RE.search(name):
        return 2 <= len(words) <= MAX_NAME_WORDS
    if "and" in words:
        # Two parties named together ("NIKE and Employee", "Altimo, Telenor and VimpelCom" before
        # "(collectively, the “Parties”)"); one firm's name with "and" in it ends in its legal
        # form ("Sears, Roebuck and Co.").
        return False
    capitalised = all(w[:1].isupper() or w[:1].isdigit() or w in {"of", "de", "du", "&"} for w in words)
    return capitalised and 2 <= len(words) <= MAX_PLAIN_NAME_WORDS


def clean_party(name: str) -> str:
    """A party name as the text runs on: cut where a sentence ends inside it, and without a title
    before "of" ("Board of Directors of Acme Corp" names Acme Corp)."""
    name = name.strip(" ,;:")
    for m in re.finditer(r"\b(\w+)\.\s+[A-Z]", name):
        if len(m.group(1)) >= MIN_SENTENCE_WORD and not _LEGAL_FORM_RE.search(m.group(1) + "."):
            name = name[: m.end(1)]
            break
    head, of, tail = name.rpartition(" of ")
    if of and _LEGAL_FORM_RE.search(tail) and not _LEGAL_FORM_RE.search(head) and looks_like_party(tail):
        name = tail
    return name.strip(" ,;:")


def _name_before(text: str, end: int) -> tuple[str, int] | None:
    """The party name that ends right before position `end` (its description skipped)."""
    window_start = max(0, end - NAME_WINDOW)
    before = text[window_start:end].rstrip()
    description = _DESCRIPTION_RE.search(before)
    if description is not None:
        before = before[: description.start()].rstrip()
    m = _NAME_RE.search(before)
    if m is None:
        return None
    name = clean_party(_trim(m.group(1)))
    if not looks_like_party(name):
        return None
    return name, window_start + before.rfind(name)


def _trim(name: str) -> str:
    """A name run without the words that only precede it: dates, numbers, a heading's capitals."""
    words = name.split()
    # An all-capitals run before a mixed-case name is a heading ("AGREEMENT Acme Corp").
    while len(words) > 1 and (
        words[0].rstrip(",").isdigit()
        or (
            len(words) > 2
            and words[0].isupper()
            and len(words[0]) > 3
            and not words[0].endswith(",")
            and not words[1].isupper()
        )
    ):
        words = words[1:]
    return " ".join(words).strip(" ,")


#: Legal forms in their short, register spelling. The long forms and dotted initials are the same
#: entity ("Escalade, Incorporated" is Escalade Inc.; "Z Capital Partners, L.L.C." is ... LLC).
_SHORT_LEGAL_FORMS = (
    (re.compile(r"\bIncorporated\b\.?|\bInc\b\.?", re.IGNORECASE), "Inc."),
    (re.compile(r"\bLimited\b\.?|\bLtd\b\.?", re.IGNORECASE), "Ltd."),
    (re.compile(r"\bL\.\s?L\.\s?C\b\.?", re.IGNORECASE), "LLC"),
    (re.compile(r"\bL\.\s?L\.\s?P\b\.?", re.IGNORECASE), "LLP"),
    (re.compile(r"\bL\.\s?P\b\.?", re.IGNORECASE), "LP"),
    (re.compile(r"\bCorp\b\.?", re.IGNORECASE), "Corp."),
    (re.compile(r"\bCo\b\.?(?=\s*(?:,|$|\s(?:Inc|Ltd|Limited|LLC)\b))", re.IGNORECASE), "Co."),
)
#: A person's post-nominal letters after a comma ("Maher Albitar, M.D."): a degree, not the party.
_POST_NOMINAL_RE = re.compile(r",\s*(?:M\.\s?D|Ph\.\s?D|J\.\s?D|D\.\s?O|Esq|CPA)\.?\s*$", re.IGNORECASE)


def canonical_party(name: str) -> str:
    """A party's name as an entity register writes it: no post-nominal letters, "&" written
    "and", no commas, the legal form in its short spelling, typographic spaces and apostrophes
    plain ("Leonard Green\u00a0& Partners, L.P." is "Leonard Green and Partners LP")."""
    text = unicodedata.normalize("NFKC", name).replace("\u2019", "'")
    text = _POST_NOMINAL_RE.sub("", text)
    text = re.sub(r"\s*&\s*", " and ", text)
    for pattern, short in _SHORT_LEGAL_FORMS:
        text = pattern.sub(short, text)
    return " ".join(text.replace(",", " ").split())


def party_key(name: str) -> str:
    """`name` compared loosely: case, punctuation and spacing aside."""
    return " ".join(re.sub(r"[^\w\s]", " ", name.lower()).split())
