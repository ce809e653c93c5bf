import io
import zipfile

import pytest

from extraction.formats.errors import InvalidDocument, UnsupportedFormat
from extraction.formats.sniff import CONTENT_TYPES, content_type, sniff_format
from extraction.jobs.edge import edge_error
from tests.unit.extraction import builders

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("fmt", "make"),
    [
        ("pdf", lambda: builders.pdf_pages(1)),
        ("docx", builders.docx_document),
        ("xlsx", builders.xlsx_workbook),
        ("pptx", builders.pptx_presentation),
        ("png", lambda: builders.image_bytes(builders.text_image(("A",)), "PNG")),
        ("jpeg", lambda: builders.image_bytes(builders.text_image(("A",)), "JPEG")),
        ("tiff", lambda: builders.image_bytes(builders.text_image(("A",)), "TIFF")),
        ("bmp", lambda: builders.image_bytes(builders.text_image(("A",)), "BMP")),
        ("webp", lambda: builders.image_bytes(builders.text_image(("A",)), "WEBP")),
        ("csv", lambda: b"name,total\nAda,3\nBob,4\n"),
        ("text", lambda: b"Dear reader,\nthis is a letter.\n"),
    ],
)
def test_every_format_is_recognised_from_its_bytes(fmt, make):
    data = make()
    # The name claims another format: only the bytes count.
    assert sniff_format(data, "misleading.exe") == fmt
    assert content_type(fmt) == CONTENT_TYPES[fmt]


def test_tiff_in_both_byte_orders():
    assert sniff_format(b"MM\x00*" + b"\x00" * 32) == "tiff"
    assert sniff_format(b"II*\x00" + b"\x00" * 32) == "tiff"


def test_pdf_header_after_leading_junk():
    assert sniff_format(b"\r\n  junk\n%PDF-1.4\n...") == "pdf"


@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)) * 4,  # binary noise with NUL bytes
        b"\x7fELF\x02\x01\x01" + b"\x00" * 64,
        b"GIF89a" + b"\x01\x00\x01\x00\x00\x00\x00;",
    ],
)
def test_binary_formats_we_do_not_read_are_unsupported(data):
    with pytest.raises(UnsupportedFormat) as caught:
        sniff_format(data, "thing.bin")
    assert edge_error(caught.value).status_code == 415
    assert "thing.bin" in str(caught.value)


def test_plain_zip_is_unsupported():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes/readme.txt", "hello")
    with pytest.raises(UnsupportedFormat, match="ZIP"):
        sniff_format(out.getvalue())


def test_legacy_office_is_unsupported_with_advice():
    with pytest.raises(UnsupportedFormat, match=r"\.docx"):
        sniff_format(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)


def test_empty_file_is_invalid():
    with pytest.raises(InvalidDocument):
        sniff_format(b"")


def test_damaged_zip_is_invalid():
    with pytest.raises(InvalidDocument):
        sniff_format(b"PK\x03\x04" + b"\x00" * 40)


def test_text_encodings():
    assert sniff_format("Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e".encode("utf-8-sig")) == "text"
    assert sniff_format("Caf\u00e9 cr\u00e8me, na\u00efve fa\u00e7ade".encode("latin-1")) == "text"
    assert sniff_format("Notepad \u00e9crit en UTF-16\r\n".encode("utf-16")) == "text"
    assert sniff_format(("x,y\n1,2\n" * 10000).encode("utf-16")) == "csv"
    # "BM" at the start of a text file is not a bitmap.
    assert sniff_format(b"BM is a set of initials, nothing more.\n") == "text"


def test_csv_needs_a_consistent_delimiter():
    assert sniff_format(b"a;b;c\n1;2;3\n4;5;6\n") == "csv"
    assert sniff_format(b"a\tb\n1\t2\n") == "csv"
    prose = b"Hello, world. This is prose.\nIt has commas, sometimes, but not in columns, really.\nThe end.\n"
    assert sniff_format(prose) == "text"
    assert sniff_format(b"one line, with a comma\n") == "text"
