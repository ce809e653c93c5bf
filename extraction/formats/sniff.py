"""What format a document is, judged from its bytes (never from its name or declared type).

A file name or a client's content type is only a claim; the engines parse what the bytes are, so
a renamed file is read correctly and a disguised one is refused.
"""

from __future__ import annotations

import codecs
import csv
import io
import zipfile
from typing import Literal

from extraction.formats.errors import InvalidDocument, UnsupportedFormat
from extraction.formats.textcodec import decode_text

Format = Literal["pdf", "docx", "xlsx", "pptx", "png", "jpeg", "tiff", "bmp", "webp", "csv", "text"]

#: The content type reported for each format.
CONTENT_TYPES: dict[str, str] = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "png": "image/png",
    "jpeg": "image/jpeg",
    "tiff": "image/tiff",
    "bmp": "image/bmp",
    "webp": "image/webp",
    "csv": "text/csv",
    "text": "text/plain",
}

#: The PDF header may follow some junk; readers accept it within the first kilobyte.
PDF_HEADER_WINDOW = 1024
#: Bytes of a text file examined to tell CSV from prose.
CSV_SAMPLE_BYTES = 64 * 1024
#: Fewest non-empty rows that must agree on a column count before text is called CSV.
CSV_MIN_ROWS = 2
#: Rows examined for a consistent column count.
CSV_CHECK_ROWS = 50

#: Delimiters a CSV file may use.
CSV_DELIMITERS = ",;\t|"
# The folder that holds each Office Open XML package's main parts.
_OFFICE_FOLDERS: tuple[tuple[str, Format], ...] = (("word/", "docx"), ("xl/", "xlsx"), ("ppt/", "pptx"))
# BITMAPINFOHEADER sizes of the BMP variants Pillow reads; a text file starting with "BM" has none.
_BMP_HEADER_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})


def content_type(fmt: str) -> str:
    return CONTENT_TYPES[fmt]


def sniff_format(data: bytes, filename: str | None = None) -> Format:
    """The format of `data`; `filename` only makes error messages clearer.

    Raises `UnsupportedFormat` for anything the engines do not read and `InvalidDocument` for an
    empty file or a damaged Office container.
    """
    if not data:
        raise InvalidDocument(f"{_label(filename)} is empty.")
    head = data[:16]
    if b"%PDF-" in data[:PDF_HEADER_WINDOW]:
        return "pdf"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "tiff"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if (
        head.startswith(b"BM")
        and len(data) >= 18
        and int.from_bytes(data[14:18], "little") in _BMP_HEADER_SIZES
    ):
        return "bmp"
    if head.startswith(b"PK\x03\x04"):
        return _sniff_office(data, filename)
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        raise UnsupportedFormat(
            f"{_label(filename)} is a legacy Office file (.doc, .xls or .ppt) or an encrypted Office "
            "file; save it as .docx, .xlsx or .pptx (without a password) and upload it again."
        )
    text = decode_text(_text_sample(data))
    if text is None:
        raise UnsupportedFormat(
            f"{_label(filename)} is not a supported format. Supported: PDF, DOCX, XLSX, PPTX, PNG, "
            "JPEG, TIFF, BMP, WebP, CSV and plain text."
        )
    return "csv" if looks_like_csv(text) else "text"


def looks_like_csv(text: str) -> bool:
    """True when a delimiter splits several lines into the same number (two or more) of columns."""
    sample = text[:CSV_SAMPLE_BYTES]
    if len(text) > CSV_SAMPLE_BYTES:
        # Judge complete lines only: the cut may leave the last row short.
        sample = sample[: sample.rfind("\n") + 1]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=CSV_DELIMITERS)
    except csv.Error:
        return False
    try:
        rows = [row for row in csv.reader(io.StringIO(sample), dialect) if any(cell.strip() for cell in row)]
    except csv.Error:
        return False
    rows = rows[:CSV_CHECK_ROWS]
    if len(rows) < CSV_MIN_ROWS:
        return False
    widths = {len(row) for row in rows}
    return len(widths) == 1 and widths.pop() >= 2


def _text_sample(data: bytes) -> bytes:
    if len(data) <= CSV_SAMPLE_BYTES or data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        # UTF-16 is judged whole: a cut could split its two-byte characters.
        return data
    sample = data[:CSV_SAMPLE_BYTES]
    # Cutting after a newline byte never splits a UTF-8 character and never leaves a partial row.
    end = sample.rfind(b"\n")
    return sample[: end + 1] if end > 0 else sample


def _sniff_office(data: bytes, filename: str | None) -> Format:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise InvalidDocument(f"{_label(filename)} is a damaged ZIP container and cannot be read.") from exc
    if "[Content_Types].xml" in names:
        for folder, fmt in _OFFICE_FOLDERS:
            if any(name.startswith(folder) for name in names):
                return fmt
    raise UnsupportedFormat(
        f"{_label(filename)} is a ZIP archive but not a Word, Excel or PowerPoint document; "
        "upload the documents inside it one by one."
    )


def _label(filename: str | None) -> str:
    return f"The file {filename!r}" if filename else "The file"
