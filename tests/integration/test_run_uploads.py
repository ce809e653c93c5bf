"""Multipart bodies of runs and replies are read as they arrive, every part bounded (issue 27, 4):
a file past the upload cap is a 413 the moment it passes it, with nothing left on disk; the parts,
the files and the text fields are bounded too; and a form within the bounds still runs."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from core.stores.files import too_large_message
from serve.multipart_form import MAX_PARTS
from serve.run_body import MAX_ATTACHMENTS
from tests.integration.conftest import Service
from tests.support.agents import ask, create_agent, feed, of_type, scripted, start, wait_status
from tests.support.service import wait_for

pytestmark = pytest.mark.integration

MIB = 1024 * 1024


def _files_on_disk(service: Service) -> set[Path]:
    """The blobs and the spools: what a refused body must not add to."""
    found: set[Path] = set()
    for folder in ("blobs", "spool"):
        found |= {p for p in (service.data_dir / folder).rglob("*") if p.is_file()}
    return found


def _streamed_form(boundary: str, file_bytes: int, field: str = "files") -> Iterator[bytes]:
    """A form whose text field comes after a file of `file_bytes`, sent chunked (no Content-Length)."""
    yield (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="big.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    chunk = b"a" * MIB
    for _ in range(file_bytes // MIB):
        yield chunk
    yield f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="query"\r\n\r\nhi\r\n--{boundary}--\r\n'.encode()


def _refused(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.text[:300])
    body = response.json()
    assert set(body) == {"error"}, body
    return str(body["error"])


@pytest.fixture
def agent_id(api: httpx.Client) -> str:
    return str(create_agent(api, scripted({"answer": "read {{query}}"}))["id"])


def test_a_run_attachment_past_the_cap_is_a_413_while_streaming_and_leaves_nothing(
    service: Service, api: httpx.Client, agent_id: str
) -> None:
    before = _files_on_disk(service)
    boundary = uuid.uuid4().hex
    cap = service.settings.max_upload_bytes
    response = api.post(
        f"/api/v1/agents/{agent_id}/run",
        content=_streamed_form(boundary, cap + MIB),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert _refused(response, 413) == too_large_message(cap)
    assert _files_on_disk(service) == before
    # A field the route does not read gets the same cap, and is never kept either.
    unread = api.post(
        f"/api/v1/agents/{agent_id}/run",
        content=_streamed_form(boundary, cap + MIB, field="other"),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert _refused(unread, 413) == too_large_message(cap)
    assert _files_on_disk(service) == before
    assert api.get("/api/v1/tasks", params={"agent_id": agent_id}).json()["data"] == []


def test_a_reply_attachment_past_the_cap_is_a_413_and_leaves_nothing(
    service: Service, api: httpx.Client
) -> None:
    agent = create_agent(api, scripted(ask(), {"answer": "thanks"}))
    task_id = start(api, agent["id"])
    wait_status(api, task_id, "waiting_for_input")
    before = _files_on_disk(service)
    boundary = uuid.uuid4().hex
    response = api.post(
        f"/api/v1/tasks/{task_id}/message",
        content=_streamed_form(boundary, service.settings.max_upload_bytes + MIB),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert _refused(response, 413) == too_large_message(service.settings.max_upload_bytes)
    assert _files_on_disk(service) == before
    # Still waiting: the refused reply changed nothing; a reply within the bounds resumes it.
    assert api.get(f"/api/v1/tasks/{task_id}").json()["status"] == "waiting_for_input"
    replied = api.post(
        f"/api/v1/tasks/{task_id}/message",
        data={"message": "here"},
        files={"files": ("note.txt", b"a small note\n", "text/plain")},
    )
    assert replied.status_code == 200, replied.text
    wait_status(api, task_id)
    [message] = [i for i in of_type(feed(api, task_id), "user_message") if i["text"] == "here"]
    assert [f["file"] for f in message["files"]] == ["note.txt"]
    assert not list((service.data_dir / "spool").glob("form-*"))


def test_a_declared_length_past_every_bound_is_a_413_before_reading(
    service: Service, api_key: str, agent_id: str
) -> None:
    parts = urlsplit(service.url)
    boundary = uuid.uuid4().hex
    declared = (MAX_ATTACHMENTS + 1) * service.settings.max_upload_bytes
    head = (
        f"POST /api/v1/agents/{agent_id}/run HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Authorization: Bearer {api_key}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {declared}\r\n\r\n--{boundary}\r\n"
    )
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=30) as sock:
        sock.sendall(head.encode())
        status_line = sock.makefile("rb").readline()
    assert status_line.split()[1] == b"413"


def test_a_client_gone_mid_upload_leaves_nothing(service: Service, api_key: str, agent_id: str) -> None:
    """The spool of a file whose sender disconnects is removed when the request ends."""
    spool = service.data_dir / "spool"
    parts = urlsplit(service.url)
    boundary = uuid.uuid4().hex
    head = (
        f"POST /api/v1/agents/{agent_id}/run HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Authorization: Bearer {api_key}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {10 * MIB}\r\n\r\n--{boundary}\r\n"
        'Content-Disposition: form-data; name="files"; filename="cut.txt"\r\n\r\n'
    )
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=30) as sock:
        sock.sendall(head.encode() + b"a" * (2 * MIB))
        wait_for(lambda: list(spool.glob("form-*")), timeout=60, what="the upload's spool")
    wait_for(lambda: not list(spool.glob("form-*")), timeout=60, what="the spool to be removed")


def test_parts_files_and_text_fields_are_bounded(service: Service, api: httpx.Client, agent_id: str) -> None:
    url = f"/api/v1/agents/{agent_id}/run"
    many_parts = {"query": "hi", "source": ["test"] * MAX_PARTS}
    assert str(MAX_PARTS) in _refused(api.post(url, data=many_parts, files={"files": ("a.txt", b"x")}), 400)
    too_many_files = [("files", (f"{i}.txt", b"x", "text/plain")) for i in range(MAX_ATTACHMENTS + 1)]
    assert f"at most {MAX_ATTACHMENTS} files" in _refused(api.post(url, files=too_many_files), 400)
    big_text = {"query": "a" * (service.settings.max_json_body_bytes + 1)}
    assert "text fields" in _refused(api.post(url, data=big_text, files={"files": ("a.txt", b"x")}), 413)
    header = {"files": ("a.txt", b"x", "text/plain; " + "x=y; " * 4000)}
    assert "malformed" in _refused(api.post(url, files=header), 400)
    assert not list((service.data_dir / "spool").glob("form-*"))


def test_a_form_within_the_bounds_runs_with_its_files(
    service: Service, api: httpx.Client, agent_id: str
) -> None:
    files = [("files", (f"{i}.txt", f"note {i}\n".encode(), "text/plain")) for i in range(3)]
    response = api.post(f"/api/v1/agents/{agent_id}/run", data={"query": "the notes"}, files=files)
    assert response.status_code == 201, response.text
    task_id = response.json()["task_id"]
    done = wait_status(api, task_id)
    assert [f["file"] for f in done["files"]] == ["0.txt", "1.txt", "2.txt"]
    assert not list((service.data_dir / "spool").glob("form-*"))
