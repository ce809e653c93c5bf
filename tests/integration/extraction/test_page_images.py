"""GET /api/v2/files/{file_id}/pages/{n}: a page drawn as a PNG at the requested width."""

from __future__ import annotations

import io
from urllib.parse import quote

import httpx
import pytest

from tests.integration.conftest import Service
from tests.integration.extraction.conftest import upload
from tests.support import documents

pytestmark = pytest.mark.integration


def png_size(data: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        return image.size


@pytest.fixture(scope="module")
def two_page_pdf(service: Service, key: str) -> str:
    with service.client(key) as api:
        return str(upload(api, documents.pdf_text([["Page one"], ["Page two"]]))["file_id"])


@pytest.mark.parametrize("width", [64, 500, 2000])
def test_a_pdf_page_is_drawn_at_the_requested_width(api: httpx.Client, two_page_pdf: str, width: int) -> None:
    reply = api.get(f"/api/v2/files/{quote(two_page_pdf, safe='')}/pages/2", params={"width": width})
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "image/png"
    assert reply.headers["x-page-count"] == "2"
    # An A4 page (595 x 842 points) keeps its aspect ratio.
    assert png_size(reply.content) == (width, round(width * 842 / 595))


def test_the_default_width_and_the_cache_validator(api: httpx.Client, two_page_pdf: str) -> None:
    path = f"/api/v2/files/{two_page_pdf.removeprefix('file://')}/pages/1"
    first = api.get(path)
    assert first.status_code == 200
    assert png_size(first.content)[0] == 1000
    assert first.headers["cache-control"].startswith("private")
    again = api.get(path, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    other_width = api.get(path, params={"width": 800}, headers={"If-None-Match": first.headers["etag"]})
    assert other_width.status_code == 200


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "TIFF"])
def test_image_files_are_resized(api: httpx.Client, fmt: str) -> None:
    file_id = upload(api, documents.image(fmt, size=(600, 200)), filename=f"scan.{fmt.lower()}")["file_id"]
    reply = api.get(f"/api/v2/files/{quote(file_id, safe='')}/pages/1", params={"width": 300})
    assert reply.status_code == 200, reply.text
    assert png_size(reply.content) == (300, 100)


def test_refusals_use_the_detail_envelope(api: httpx.Client, service: Service, two_page_pdf: str) -> None:
    uuid = two_page_pdf.removeprefix("file://")
    missing = api.get("/api/v2/files/00000000-0000-4000-8000-000000000000/pages/1")
    assert missing.status_code == 404 and "not found" in missing.json()["detail"]
    for page in (0, 3):
        reply = api.get(f"/api/v2/files/{uuid}/pages/{page}")
        assert reply.status_code == 400 and "2 pages" in reply.json()["detail"], reply.text
    for width in (10, 5000):
        assert api.get(f"/api/v2/files/{uuid}/pages/1", params={"width": width}).status_code == 422
    text_id = upload(api, b"Just a line of plain text.\nAnd another.\n", filename="notes.txt")["file_id"]
    unsupported = api.get(f"/api/v2/files/{quote(text_id, safe='')}/pages/1")
    assert unsupported.status_code == 415 and "text" in unsupported.json()["detail"]

    assert api.get(f"/api/v2/files/{uuid}/pages/1", headers={"Authorization": ""}).status_code == 401
    with service.client(service.key()) as stranger:
        assert stranger.get(f"/api/v2/files/{uuid}/pages/1").status_code == 403
