"""Screens for untrusted text before anything parses, stores or shows it.

A JSON body is screened as bytes, without parsing it: a parser would recurse once per level of
nesting (10,000 levels raise `RecursionError`), and a string holding a lone surrogate parses fine
but cannot be encoded as UTF-8 when it is stored or shown. The screens run at C speed (`bytes.count`,
`bytes.replace`, `bytes.translate`, substring tests; a regular expression only over `\\u` escapes); the common body (few brackets, no
`\\u` escape, no huge number) costs a UTF-8 decode and a few scans. Only a body with signs of a
non-finite number (`NaN`, a three-digit exponent) is parsed here, after its depth was checked.
"""

from __future__ import annotations

import json
import math
import re

#: Levels of `[`/`{` nesting a JSON body may have; agent configs and output schemas need far fewer.
MAX_JSON_DEPTH = 64

#: `bytes.translate` arguments that keep only brackets, all of one kind.
_ONE_KIND = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
#: Every digit written as `0`, so a few substring tests find the numbers that may be infinite: an
#: exponent of three digits or more, or more digits in a row than a finite double has.
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0000000000")
_BIG_EXPONENTS = (b"e000", b"E000", b"e+000", b"E+000")
_LONGEST_FINITE_DIGITS = 308
#: Walks every escape in order (so `\\\\u...` is an escaped backslash, not a `\\u` escape). Group 1
#: catches `\\u0000` and a surrogate escape not part of a high+low pair.
_ESCAPE = re.compile(
    r"\\(?:u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|(0000|[dD][89a-fA-F][0-9a-fA-F]{2}))|.)",
    re.S,
)


class _NonFinite(Exception):
    pass


def json_problem(raw: bytes, *, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why a JSON body must be refused before it is parsed, or None when it may be parsed.

    Bodies that are simply not JSON pass: the parser that reads them says what is wrong.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "the body is not UTF-8 text"
    return _screen(raw, text, max_depth=max_depth, what="the body")


def json_text_problem(text: str, *, max_depth: int = MAX_JSON_DEPTH, what: str = "the body") -> str | None:
    """`json_problem` for JSON that arrived as text (a multipart field holding JSON)."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        return f"{what} is not valid UTF-8 text"
    return _screen(raw, text, max_depth=max_depth, what=what)


def text_problem(value: str, *, what: str) -> str | None:
    """Why a decoded string (a form field, a path or query value) cannot be stored, or None."""
    if "\x00" in value:
        return f"{what} holds a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return f"{what} is not valid UTF-8 text"
    return None


def _screen(raw: bytes, text: str, *, max_depth: int, what: str) -> str | None:
    if b"\\u" in raw and _has_bad_escape(text):
        return f"{what} holds a NUL character or a lone UTF-16 surrogate (\\u0000, \\ud800...)"
    if b"\x00" in raw:
        return f"{what} holds a NUL character"
    # Depth first: the finiteness check may parse, and parsing must not meet deep nesting.
    if raw.count(b"[") + raw.count(b"{") > max_depth and _deeper_than(raw, max_depth):
        return f"{what} nests deeper than {max_depth} levels, or its brackets do not match"
    if _may_be_non_finite(raw) and _has_non_finite(text):
        return f"{what} holds NaN, Infinity or a number too large for a double, which JSON cannot carry"
    return None


def _has_bad_escape(text: str) -> bool:
    return any(match.group(1) for match in _ESCAPE.finditer(text))


def _deeper_than(raw: bytes, limit: int) -> bool:
    """True when the brackets outside strings nest deeper than `limit`, or never close.

    A run of `limit + 1` openers settles the usual attack at once. Otherwise each pass deletes every
    innermost `[]` pair of the bracket skeleton, so a skeleton that is not empty after `limit`
    passes nests deeper than that; passes stop as soon as the openers left could not reach past it.
    """
    skeleton = _outside_strings(raw).translate(_ONE_KIND, _NOT_BRACKETS)
    if b"[" * (limit + 1) in skeleton:
        return True
    for passes in range(limit + 1):
        if skeleton.count(b"[") <= limit - passes:
            return False
        shorter = skeleton.replace(b"[]", b"")
        if shorter == skeleton:
            return True
        skeleton = shorter
    return True


def _outside_strings(raw: bytes) -> bytes:
    """The JSON text with its string literals left out.

    Escaped backslashes go first, then escaped quotes (a run of backslashes always starts aligned
    on an escape), so the quotes left delimit strings: every other piece of a split is outside.
    """
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(unescaped.split(b'"')[::2])


def _may_be_non_finite(raw: bytes) -> bool:
    """Cheap signs (C-speed scans) that a number may not be finite; most bodies show none."""
    if b"NaN" in raw or b"Infinity" in raw:
        return True
    zeros = raw.translate(_DIGITS_AS_ZERO)
    return any(e in zeros for e in _BIG_EXPONENTS) or b"0" * (_LONGEST_FINITE_DIGITS + 1) in zeros


def _has_non_finite(text: str) -> bool:
    """Parse (rarely: only after `_may_be_non_finite`) and look at every float and constant."""

    def constant(name: str) -> float:
        raise _NonFinite(name)

    def number(literal: str) -> float:
        value = float(literal)
        if math.isinf(value):
            raise _NonFinite(literal)
        return value

    try:
        json.loads(text, parse_constant=constant, parse_float=number)
    except _NonFinite:
        return True
    except (ValueError, RecursionError):
        # Not JSON: the route's own parser refuses it with its own message.
        return False
    return False
