"""Words a header's name and address lines are told by: legal forms of companies in many
countries, words for a kind of business, and street words in several languages. They add to the
shapes of lines that `issuer_header.py` reads a header by; no one country's words are needed.
"""

import re

#: Words of company names that say what kind of business it is, rather than which one.
BUSINESS_WORDS = frozenset(
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
LEGAL_FORM_RE = re.compile(
    r"\b(?:sdn\.?\s*bhd|sdn|bhd|berhad|s/b|ltd|private\s+limited|limited|llc|l\.l\.c|llp|inc|incorporated|corp|corporation|"
    r"co(?=[.\s]|$)|gmbh|ag|plc|pte|pvt|pty|sarl|sas|s\.a|b\.v|n\.v|kg|srl|s\.r\.l|spa|s\.p\.a|oy|ab|a/s|"
    r"k\.k|v\.o\.f|e\.k|s\.l|ltda)\b\.?",
    re.IGNORECASE,
)
#: Legal forms written as one word, which OCR can split ("BH D", "L TD").
LEGAL_FORM_WORDS = frozenset(
    {
        "sdn",
        "bhd",
        "berhad",
        "ltd",
        "limited",
        "llc",
        "llp",
        "inc",
        "corp",
        "gmbh",
        "plc",
        "pte",
        "pvt",
        "sarl",
        "srl",
    }
)
#: Words that start or fill address lines in several languages (a help, not the rule: an address
#: line is known by its shape first; no one country's words are needed).
STREET_WORDS = frozenset(
    [
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
