"""/api/v2/files through HTTP: formats judged from bytes, caps, links, ownership, deletion."""

from __future__ import annotations

import hashlib
import socket
import time
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest

from core.stores.files import signed_url
from tests.integration.conftest import Service
from tests.integration.extraction.conftest import upload
from tests.support import documents

pytestmark = pytest.mark.integration

SAMPLES = {
    "pdf": lambda: documents.pdf_text([["Hello"]]),
    "png": lambda: documents.image("PNG"),
    "jpeg": lambda: documents.image("JPEG"),
    "tiff": lambda: documents.image("TIFF"),
    "bmp": lambda: documents.image("BMP"),
    "webp": lambda: documents.image("WEBP"),
    "docx": lambda: documents.docx(["Hello"]),
    "xlsx": lambda: documents.xlsx([["name", "amount"], ["a", 1]]),
    "pptx": lambda: documents.pptx(["Hello"]),
    "csv": lambda: b"name,amount\na,1\nb,2\n",
    "text": lambda: b"Just a line of plain text.\nAnd another.\n",
}


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_each_supported_format_is_recognised_from_its_bytes(api: httpx.Client, fmt: str) -> None:
    data = SAMPLES[fmt]()
    body = upload(api, data, filename="upload.bin")
    assert body["success"] is True
    assert body["format"] == fmt
    assert body["file_id"].startswith("file://")
    assert body["file_size"] == len(data)
    assert body["sha256"] == hashlib.sha256(data).hexdigest()


def test_a_wrong_extension_does_not_fool_detection(api: httpx.Client) -> None:
    body = upload(api, documents.image("PNG"), filename="invoice.pdf")
    assert (body["format"], body["content_type"], body["filename"]) == ("png", "image/png", "invoice.pdf")


@pytest.mark.parametrize(
    "data",
    [b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 20, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600],
    ids=["executable", "legacy-office"],
)
def test_unsupported_bytes_are_415(api: httpx.Client, data: bytes) -> None:
    reply = api.post("/api/v2/files", files={"file": ("report.pdf", data)})
    assert reply.status_code == 415
    assert isinstance(reply.json()["detail"], str)


def test_missing_file_field_is_400(api: httpx.Client) -> None:
    reply = api.post("/api/v2/files", files={"other": ("a.pdf", b"%PDF-1.4")})
    assert reply.status_code == 400
    # A JSON body is not a form this route takes at all.
    assert api.post("/api/v2/files", json={"file": "x"}).status_code == 415


def _streamed_body(boundary: str, total: int) -> Iterator[bytes]:
    yield (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n%PDF-1.7\n"
    ).encode()
    chunk = b"0" * (1024 * 1024)
    for _ in range(total // len(chunk)):
        yield chunk
    yield f"\r\n--{boundary}--\r\n".encode()


def test_too_large_is_413_while_streaming_and_leaves_nothing(
    service: Service, api: httpx.Client, key: str
) -> None:
    before = {p for p in (service.data_dir / "blobs").rglob("*") if p.is_file()}
    boundary = uuid.uuid4().hex
    # No Content-Length: the service learns the size only by reading, 51 MB against a 50 MB cap.
    reply = api.post(
        "/api/v2/files",
        content=_streamed_body(boundary, 51 * 1024 * 1024),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert reply.status_code == 413
    after = {p for p in (service.data_dir / "blobs").rglob("*") if p.is_file()}
    assert after == before
    spool = service.data_dir / "spool"
    assert not spool.exists() or list(spool.iterdir()) == []
    assert api.get("/healthz").status_code == 200


def test_declared_too_large_is_413_before_reading(service: Service, key: str) -> None:
    # A raw socket: a well-behaved client cannot declare 60 MB and then stop after a few bytes.
    parts = urlsplit(service.url)
    boundary = uuid.uuid4().hex
    head = (
        f"POST /api/v2/files HTTP/1.1\r\nHost: {parts.netloc}\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {60 * 1024 * 1024}\r\n\r\n--{boundary}\r\n"
    )
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(head.encode())
        status_line = sock.makefile("rb").readline()
    assert status_line.split()[1] == b"413"


def test_metadata_content_and_delete(api: httpx.Client) -> None:
    data = documents.pdf_text([["Content check"]])
    file_id = upload(api, data, "content.pdf")["file_id"]
    uuid_part = file_id.removeprefix("file://")
    for form in (file_id, uuid_part, quote(file_id, safe="")):
        meta = api.get(f"/api/v2/files/{form}")
        assert meta.status_code == 200, (form, meta.text)
        assert meta.json()["file_id"] == file_id
    content = api.get(f"/api/v2/files/{quote(file_id, safe='')}/content")
    assert content.status_code == 200
    assert content.content == data and content.headers["content-type"] == "application/pdf"
    assert api.delete(f"/api/v2/files/{uuid_part}").json() == {
        "success": True,
        "file_id": file_id,
        "message": "file deleted",
    }
    assert api.get(f"/api/v2/files/{uuid_part}").status_code == 404
    assert api.get(f"/api/v2/files/{uuid_part}/content").status_code == 404
    assert api.delete(f"/api/v2/files/{uuid_part}").status_code == 404


def test_malformed_and_unknown_ids(api: httpx.Client) -> None:
    assert api.get("/api/v2/files/not-a-uuid").status_code == 400
    assert api.get(f"/api/v2/files/{uuid.uuid4()}").status_code == 404


def test_signed_link_works_without_a_key(service: Service, api: httpx.Client) -> None:
    data = documents.docx(["Linked"])
    file_id = upload(api, data, "linked.docx")["file_id"]
    link = api.get(f"/api/v2/files/{file_id.removeprefix('file://')}").json()["url"]
    with httpx.Client(timeout=30) as anonymous:
        reply = anonymous.get(link)
        assert reply.status_code == 200 and reply.content == data
        parts = urlsplit(link)
        query = parse_qs(parts.query)
        base = f"{parts.scheme}://{parts.netloc}{parts.path}"
        tampered = anonymous.get(base, params={"expires": query["expires"][0], "signature": "0" * 64})
        assert tampered.status_code == 403
        stretched = anonymous.get(
            base, params={"expires": int(query["expires"][0]) + 60, "signature": query["signature"][0]}
        )
        assert stretched.status_code == 403
        expired = signed_url(
            service.url, file_id, 60, secret=service.settings.resolved_secret(), now=time.time() - 120
        )
        assert anonymous.get(expired).status_code == 403
        assert anonymous.get(base).status_code == 401


def test_files_of_another_workspace_are_403(service: Service, api: httpx.Client) -> None:
    file_id = upload(api, documents.pdf_text([["Private"]]))["file_id"]
    path = f"/api/v2/files/{file_id.removeprefix('file://')}"
    with service.client(service.key()) as other:
        assert other.get(path).status_code == 403
        assert other.get(path + "/content").status_code == 403
        assert other.delete(path).status_code == 403
    with service.client(None) as nobody:
        assert nobody.get(path).status_code == 401
        assert nobody.post("/api/v2/files", files={"file": ("a.pdf", b"%PDF-1.4")}).status_code == 401
    assert api.get(path).status_code == 200
