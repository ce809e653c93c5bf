"""GuardedTransport: every request is checked, then connected to the checked address by name."""

from __future__ import annotations

import httpx
import pytest

from core.infra.url_guard import BlockedURL, GuardedTransport

pytestmark = pytest.mark.unit


class Recorder:
    """Stands in for the network: records what would have been sent where."""

    def __init__(self) -> None:
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        if request.url.path == "/hop":
            return httpx.Response(302, headers={"Location": "http://169.254.169.254/latest/meta-data/"})
        return httpx.Response(200, json={"ok": True})


def client(recorder: Recorder, *, allow_private: bool) -> httpx.AsyncClient:
    inner = httpx.MockTransport(recorder)
    transport = GuardedTransport(allow_private=allow_private, what="base_url", inner=inner)
    return httpx.AsyncClient(transport=transport, follow_redirects=True)


async def test_the_request_goes_to_the_checked_address_with_the_names_host_and_sni() -> None:
    recorder = Recorder()
    async with client(recorder, allow_private=True) as http:
        reply = await http.post("https://localhost:8443/v2/api?x=1", json={"a": 1})
    assert reply.json() == {"ok": True}
    (sent,) = recorder.sent
    assert sent.url.host in ("127.0.0.1", "::1") and sent.url.port == 8443
    assert sent.url.path == "/v2/api" and sent.url.query == b"x=1"
    assert sent.headers["Host"] == "localhost:8443"
    assert sent.extensions["sni_hostname"] == "localhost"
    assert sent.read() == b'{"a":1}'


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost/",
        "http://[::ffff:10.0.0.1]/",
        "http://10.1.2.3/",
        "http://[::1]/",
    ],
)
async def test_private_hosts_are_refused_before_any_connection(url: str) -> None:
    recorder = Recorder()
    async with client(recorder, allow_private=False) as http:
        with pytest.raises(BlockedURL, match="base_url"):
            await http.get(url)
    assert recorder.sent == []


@pytest.mark.parametrize(
    "url",
    ["http://169.254.169.254/", "http://[::ffff:169.254.169.254]/", "http://[fe80::1]/", "http://0.0.0.0/"],
)
async def test_metadata_and_link_local_stay_refused_when_private_hosts_are_allowed(url: str) -> None:
    recorder = Recorder()
    async with client(recorder, allow_private=True) as http:
        with pytest.raises(BlockedURL):
            await http.get(url)
    assert recorder.sent == []


async def test_each_redirect_hop_is_checked_again() -> None:
    recorder = Recorder()
    async with client(recorder, allow_private=True) as http:
        with pytest.raises(BlockedURL, match="metadata"):
            await http.get("http://127.0.0.1/hop")
    assert [r.url.path for r in recorder.sent] == ["/hop"]


async def test_an_unresolvable_host_is_a_connect_error() -> None:
    async with client(Recorder(), allow_private=False) as http:
        with pytest.raises(httpx.ConnectError):
            await http.get("http://no-such-host.invalid/")
