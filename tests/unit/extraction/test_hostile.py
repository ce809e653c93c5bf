"""Hostile and broken inputs fail fast with a DocumentError that a user can understand."""

import io
import random
import zipfile

import pytest

from extraction.formats.engines import parse_bytes
from extraction.formats.errors import (
    DocumentError,
    DocumentTooLarge,
    InvalidDocument,
    PasswordProtected,
    UnsupportedFormat,
)
from extraction.formats.limits import MAX_ZIP_MEMBERS, check_zip_container, open_image
from extraction.formats.pdf import parse_pdf, pdf_page_count
from extraction.jobs.edge import edge_error
from tests.unit.extraction import builders

pytestmark = pytest.mark.unit


def test_decompression_bomb_png_is_refused_from_its_header():
    with pytest.raises(DocumentTooLarge, match="pixels") as caught:
        parse_bytes(builders.png_bomb(), "bomb.png")
    assert edge_error(caught.value).status_code == 413


def test_image_over_a_lowered_pixel_cap_is_refused():
    data = builders.image_bytes(builders.text_image(("A",)), "PNG")
    assert open_image(data).width > 100
    with pytest.raises(DocumentTooLarge):
        open_image(data, max_pixels=10_000)


def test_zip_bomb_member_with_a_huge_ratio_is_refused_before_inflating():
    bomb = builders.zip_with(builders.docx_document(), {"word/media/zeros.bin": b"\x00" * (40 * 1024 * 1024)})
    with pytest.raises(DocumentTooLarge, match="ZIP bomb"):
        parse_bytes(bomb, "bomb.docx")


def test_zip_with_too_many_members_is_refused():
    extra = {f"xl/junk/{i}.xml": b"" for i in range(MAX_ZIP_MEMBERS + 1)}
    bomb = builders.zip_with(builders.xlsx_workbook(), extra)
    with pytest.raises(DocumentTooLarge, match="parts"):
        parse_bytes(bomb, "many.xlsx")


def test_zip_total_size_cap():
    noise = random.Random(0).randbytes(1024 * 1024)  # incompressible: ratio 1, only the total matters
    data = builders.zip_with(builders.docx_document(), {"word/media/a.bin": noise})
    check_zip_container(data)
    with pytest.raises(DocumentTooLarge, match="MiB"):
        check_zip_container(data, max_uncompressed=512 * 1024)


def test_office_file_with_a_broken_part_is_invalid_not_a_crash():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<not really xml")
    with pytest.raises(InvalidDocument):
        parse_bytes(out.getvalue(), "broken.docx")


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + b"\x00garbage" * 100,
        b"%PDF-1.4\n%%EOF",
    ],
)
def test_garbage_pdf_is_invalid(data):
    with pytest.raises(InvalidDocument) as caught:
        parse_bytes(data, "bad.pdf")
    assert edge_error(caught.value).status_code == 400


def test_truncated_pdf_is_invalid_when_nothing_can_be_recovered():
    data = builders.pdf_pages(3)
    for cut in (len(data) // 4, len(data) // 8):
        with pytest.raises(InvalidDocument, match="damaged"):
            parse_bytes(data[:cut], "truncated.pdf")


def test_truncated_pdf_keeps_what_the_repair_recovers():
    data = builders.pdf_pages(3)
    document = parse_bytes(data[: len(data) // 2], "half.pdf")
    assert "page number 1" in document.text


def test_password_protected_pdf():
    data = builders.encrypted_pdf()
    with pytest.raises(PasswordProtected, match="password"):
        parse_bytes(data, "locked.pdf")
    with pytest.raises(PasswordProtected):
        pdf_page_count(data)


def test_pdf_over_the_page_cap():
    data = builders.pdf_pages(5)
    assert len(parse_pdf(data, "ok.pdf", max_pages=5).pages) == 5
    with pytest.raises(DocumentTooLarge, match="5 pages"):
        parse_pdf(data, "long.pdf", max_pages=4)


def test_every_document_error_is_a_value_error_the_edge_gives_a_status():
    expected = {DocumentTooLarge: 413, InvalidDocument: 400, PasswordProtected: 400, UnsupportedFormat: 415}
    for kind, status in expected.items():
        error = kind("x")
        assert isinstance(error, DocumentError)
        assert isinstance(error, ValueError)
        assert not hasattr(error, "status_code")
        assert edge_error(error).status_code == status
        assert edge_error(error).message == "x"
