"""Decide whether bytes are text, and decode them the same way for sniffing and parsing."""

from __future__ import annotations

import codecs
import unicodedata

#: Share of characters that must be printable or whitespace for bytes to count as text.
MIN_PRINTABLE_SHARE = 0.97
#: Characters inspected for printability; the verdict on a prefix holds for a whole real text file.
PRINTABLE_SAMPLE_CHARS = 65_536

_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v")


def decode_text(data: bytes) -> str | None:
    """The text the bytes hold, or None when they are not clearly text.

    UTF-8 (with or without a byte-order mark) and UTF-16 with a byte-order mark are taken as
    they are. Anything else is tried as
    Windows-1252, then Latin-1, and kept only when it has no NUL bytes and reads as printable text:
    a binary file decodes without error in Latin-1, so decoding alone proves nothing.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        # Windows editors save "Unicode" text as UTF-16 with a byte-order mark.
        try:
            wide = data.decode("utf-16")
        except UnicodeDecodeError:
            return None
        return wide if _printable_share(wide) >= MIN_PRINTABLE_SHARE else None
    if b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return _decode_legacy(data)
    if not data.startswith(codecs.BOM_UTF8) and _printable_share(text) < MIN_PRINTABLE_SHARE:
        return None
    return text


def _decode_legacy(data: bytes) -> str | None:
    for encoding in ("cp1252", "latin-1"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if _printable_share(text) >= MIN_PRINTABLE_SHARE:
            return text
        return None
    return None


def _printable_share(text: str) -> float:
    text = text[:PRINTABLE_SAMPLE_CHARS]
    if not text:
        return 1.0
    bad = sum(
        1 for ch in text if ch not in _ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cs", "Co")
    )
    return 1.0 - bad / len(text)
