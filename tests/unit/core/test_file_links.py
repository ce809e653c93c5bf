"""File ids, file names and signed content links (pure logic)."""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from core.infra.errors import BadRequest, Forbidden
from core.stores.files import (
    MAX_FILENAME_CHARS,
    clean_filename,
    parse_file_id,
    signed_url,
    verify_link,
)

pytestmark = pytest.mark.unit

SECRET = "test-secret"
FILE = str(uuid.uuid4())


@pytest.mark.parametrize("form", [FILE, f"file://{FILE}", quote(f"file://{FILE}", safe=""), FILE.upper()])
def test_file_id_forms(form: str) -> None:
    assert parse_file_id(form) == FILE


@pytest.mark.parametrize("bad", ["", "file://", "file://not-a-uuid", "config://" + FILE, "../etc/passwd"])
def test_malformed_file_ids_are_400(bad: str) -> None:
    with pytest.raises(BadRequest):
        parse_file_id(bad)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("report.pdf", "report.pdf"),
        ("C:\\Users\\me\\scan.png", "scan.png"),
        ("../../etc/passwd", "passwd"),
        ("a\x00b\nc.txt", "a_b_c.txt"),
        ("", "upload"),
        (None, "upload"),
        ("...", "upload"),
    ],
)
def test_clean_filename(raw: str | None, clean: str) -> None:
    assert clean_filename(raw) == clean


def test_long_filename_keeps_its_extension() -> None:
    name = clean_filename("x" * 500 + ".docx")
    assert len(name) == MAX_FILENAME_CHARS and name.endswith(".docx")


def _link_parts(url: str) -> tuple[str, str, str]:
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    return parts.path, query["expires"][0], query["signature"][0]


def test_signed_link_round_trip() -> None:
    url = signed_url("http://host:8000/", f"file://{FILE}", 60, secret=SECRET, now=1000)
    path, expires, signature = _link_parts(url)
    assert url.startswith(f"http://host:8000/api/v2/files/{FILE}/content?")
    assert path == f"/api/v2/files/{FILE}/content" and expires == "1060"
    assert verify_link(FILE, expires, signature, secret=SECRET, now=1059) == FILE


def test_path_only_link() -> None:
    assert signed_url("", FILE, 5, secret=SECRET).startswith(f"/api/v2/files/{FILE}/content?expires=")


def test_expired_link_is_refused() -> None:
    _, expires, signature = _link_parts(signed_url("", FILE, 60, secret=SECRET, now=1000))
    with pytest.raises(Forbidden, match="expired"):
        verify_link(FILE, expires, signature, secret=SECRET, now=1061)


@pytest.mark.parametrize("change", ["signature", "expires", "file", "secret"])
def test_tampered_link_is_refused(change: str) -> None:
    _, expires, signature = _link_parts(signed_url("", FILE, 60, secret=SECRET, now=1000))
    file_id, secret = FILE, SECRET
    if change == "signature":
        signature = ("0" if signature[0] != "0" else "1") + signature[1:]
    elif change == "expires":
        expires = str(int(expires) + 3600)
    elif change == "file":
        file_id = str(uuid.uuid4())
    else:
        secret = "another-secret"
    with pytest.raises(Forbidden):
        verify_link(file_id, expires, signature, secret=secret, now=1000)


@pytest.mark.parametrize("expires", ["", "soon", "1e9"])
def test_malformed_expiry_is_refused(expires: str) -> None:
    with pytest.raises(Forbidden):
        verify_link(FILE, expires, "00", secret=SECRET)


@pytest.mark.parametrize("ttl", [0, -1, 8 * 24 * 3600])
def test_link_lifetime_is_bounded(ttl: int) -> None:
    with pytest.raises(BadRequest):
        signed_url("", FILE, ttl, secret=SECRET)
