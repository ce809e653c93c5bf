"""Reading a whole multipart form as it arrives: fields, spooled files, and every bound (pure ASGI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.requests import Request

from core.infra.errors import BadRequest, PayloadTooLarge
from core.stores.files import too_large_message
from serve.multipart_form import MAX_PARTS, FormLimits, file_chunks, read_form

pytestmark = pytest.mark.unit

BOUNDARY = "fOrMbOuNdArY"


def part(name: str, content: bytes, filename: str | None = None) -> bytes:
    disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename is not None else "")
    return f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + content + b"\r\n"


def form_body(*parts: bytes) -> bytes:
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def request(raw: bytes, *, piece: int = 5, declared: int | None = None) -> Request:
    chunks = [raw[i : i + piece] for i in range(0, len(raw), piece)] or [b""]
    messages = [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)
    ]

    async def receive() -> dict[str, object]:
        return messages.pop(0)

    headers = [(b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode())]
    if declared is not None:
        headers.append((b"content-length", str(declared).encode()))
    return Request({"type": "http", "method": "POST", "path": "/run", "headers": headers}, receive)


def spools(folder: Path) -> list[Path]:
    return list(folder.iterdir())


def limits(spool: Path, **changes: int) -> FormLimits:
    values = {"max_file_bytes": 100, "max_files": 2, "max_field_bytes": 50} | changes
    return FormLimits(file_fields=frozenset({"files", "file"}), spool_dir=spool, **values)


async def test_fields_and_files_arrive_whole_and_the_spools_go_with_the_block(tmp_path: Path) -> None:
    raw = form_body(
        part("files", b"first file", "a.txt"),
        part("query", "héllo".encode()),
        part("file_ids", b"file://1"),
        part("file_ids", b"file://2"),
        part("file", b"second", "b.txt"),
    )
    async with read_form(request(raw), limits(tmp_path)) as form:
        assert form.get("query") == "héllo" and form.getlist("file_ids") == ["file://1", "file://2"]
        assert [(f.filename, f.size) for f in form.files] == [("a.txt", 10), ("b.txt", 6)]
        assert b"".join([c async for c in file_chunks(form.files[0], 3)]) == b"first file"
        assert len(spools(tmp_path)) == 2
    assert spools(tmp_path) == []


async def test_a_file_past_the_cap_is_a_413_and_its_spool_is_removed(tmp_path: Path) -> None:
    raw = form_body(part("files", b"ok", "a.txt"), part("files", b"x" * 101, "big.txt"))
    with pytest.raises(PayloadTooLarge) as refused:
        async with read_form(request(raw), limits(tmp_path)):
            pass
    assert refused.value.message == too_large_message(100)
    assert spools(tmp_path) == []


async def test_a_file_in_another_field_is_capped_and_never_kept(tmp_path: Path) -> None:
    async with read_form(request(form_body(part("other", b"y" * 100, "c.txt"))), limits(tmp_path)) as form:
        assert form.files == [] and form.fields == {}
    assert spools(tmp_path) == []
    with pytest.raises(PayloadTooLarge):
        async with read_form(request(form_body(part("other", b"y" * 101, "c.txt"))), limits(tmp_path)):
            pass


async def test_files_parts_and_field_bytes_are_bounded(tmp_path: Path) -> None:
    three = form_body(*(part("files", b"x", f"{i}.txt") for i in range(3)))
    with pytest.raises(BadRequest, match="at most 2 files"):
        async with read_form(request(three), limits(tmp_path)):
            pass
    many = form_body(*(part("source", b"t") for _ in range(MAX_PARTS + 1)))
    with pytest.raises(BadRequest, match=f"more than {MAX_PARTS} parts"):
        async with read_form(request(many), limits(tmp_path, max_field_bytes=10_000)):
            pass
    # The fields' bytes count together: two of 30 pass a limit of 50 that each stays under.
    wide = form_body(part("query", b"q" * 30), part("source", b"s" * 30))
    with pytest.raises(PayloadTooLarge, match="text fields"):
        async with read_form(request(wide), limits(tmp_path)):
            pass
    assert spools(tmp_path) == []


async def test_a_declared_length_past_every_bound_is_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(PayloadTooLarge):
        async with read_form(request(b"", declared=10**9), limits(tmp_path)):
            pass


async def test_a_field_that_is_not_utf8_is_a_400(tmp_path: Path) -> None:
    with pytest.raises(BadRequest, match="not UTF-8"):
        async with read_form(request(form_body(part("query", b"\xff\xfe"))), limits(tmp_path)):
            pass
