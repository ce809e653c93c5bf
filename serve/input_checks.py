"""Screens for untrusted text before anything parses, stores or shows it.

A JSON body is screened as bytes, without parsing it: a parser would recurse once per level of
nesting (10,000 levels raise `RecursionError`), and a string holding a lone surrogate parses fine
but cannot be encoded as UTF-8 when it is stored or shown. The screens run at C speed (regular
expressions, `str.count`, `str.replace`); the common body (few brackets, no `\\u` escape) costs
one UTF-8 decode and two counts.
"""

from __future__ import annotations

import math
import re

#: Levels of `[`/`{` nesting a JSON body may have; agent configs and output schemas need far fewer.
MAX_JSON_DEPTH = 64

#: A JSON string literal (escapes included), so brackets inside strings are not counted.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
#: Numbers that `json.loads` may read as infinite (an exponent of 3+ digits, or 300+ digits before
#: the point), each checked with `float` since most are finite. Matches start only where a run of
#: digits starts and never backtrack (possessive), so a long run of digits is scanned once.
_HUGE_NUMBER = re.compile(r"(?<![\d.])(?:\d++(?:\.\d*+)?[eE][+-]?\d{3,}+|\d{300,}+\.\d*+)")
_ONE_KIND = str.maketrans("{}", "[]")
#: Walks every escape in order (so `\\\\u...` is an escaped backslash, not a `\\u` escape). Group 1
#: catches `\\u0000` and a surrogate escape not part of a high+low pair.
_ESCAPE = re.compile(
    r"\\(?:u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|(0000|[dD][89a-fA-F][0-9a-fA-F]{2}))|.)",
    re.S,
)


def json_problem(raw: bytes, *, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why a JSON body must be refused before it is parsed, or None when it may be parsed.

    Bodies that are simply not JSON pass: the parser that reads them says what is wrong.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "the body is not UTF-8 text"
    return json_text_problem(text, max_depth=max_depth)


def json_text_problem(text: str, *, max_depth: int = MAX_JSON_DEPTH, what: str = "the body") -> str | None:
    """`json_problem` for JSON that arrived as text (a multipart field holding JSON)."""
    if "\\u" in text and _has_bad_escape(text):
        return f"{what} holds a NUL character or a lone UTF-16 surrogate (\\u0000, \\ud800...)"
    if "\x00" in text:
        return f"{what} holds a NUL character"
    if _may_be_non_finite(text) and _has_non_finite(text):
        return f"{what} holds NaN, Infinity or a number too large for a double, which JSON cannot carry"
    if text.count("[") + text.count("{") > max_depth and _deeper_than(text, max_depth):
        return f"{what} nests deeper than {max_depth} levels, or its brackets do not match"
    return None


def text_problem(value: str, *, what: str) -> str | None:
    """Why a decoded string (a form field, a path or query value) cannot be stored, or None."""
    if "\x00" in value:
        return f"{what} holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return f"{what} is not valid UTF-8 text"
    return None


def _may_be_non_finite(text: str) -> bool:
    return "NaN" in text or "Infinity" in text or _HUGE_NUMBER.search(text) is not None


def _has_non_finite(text: str) -> bool:
    """`NaN`/`Infinity` outside strings (Python's parser takes them; no JSON reply can hold them)."""
    bare = _STRING.sub('""', text)
    if "NaN" in bare or "Infinity" in bare:
        return True
    return any(math.isinf(float(number)) for number in _HUGE_NUMBER.findall(bare))


def _has_bad_escape(text: str) -> bool:
    return any(match.group(1) for match in _ESCAPE.finditer(text))


def _deeper_than(text: str, limit: int) -> bool:
    """True when the brackets outside strings nest deeper than `limit`, or never close.

    Each pass deletes every innermost `[]` pair of the bracket skeleton, so a skeleton that is not
    empty after `limit` passes nests deeper than that. Passes stop as soon as the openers left could
    not reach past the limit.
    """
    skeleton = _NOT_BRACKET.sub("", _STRING.sub("", text)).translate(_ONE_KIND)
    for passes in range(limit + 1):
        if skeleton.count("[") <= limit - passes:
            return False
        shorter = skeleton.replace("[]", "")
        if shorter == skeleton:
            return True
        skeleton = shorter
    return True
