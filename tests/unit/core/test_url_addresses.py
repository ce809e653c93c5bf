"""The SSRF guard (`core.infra.url_guard`): which addresses are refused, before and after resolution."""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from core.infra.errors import BadRequest
from core.infra.url_guard import BlockedURL, address_problem, checked_address, embedded_ipv4, parse_url

pytestmark = pytest.mark.unit

REFUSED_ALWAYS = [
    "0.0.0.0",
    "0.1.2.3",
    "::",
    "169.254.169.254",
    "169.254.1.1",
    "fe80::1",
    "fd00:ec2::254",
    "100.100.100.200",
    "224.0.0.1",
    "ff02::1",
    "240.0.0.1",
    "255.255.255.255",
    "::ffff:169.254.169.254",
]
REFUSED_UNLESS_PRIVATE_ALLOWED = [
    "127.0.0.1",
    "127.8.9.10",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.1.1",
    "100.64.0.1",
    "fc00::1",
    "fd12:3456::1",
    "2002:7f00:1::",  # 6to4 carrying 127.0.0.1
    "64:ff9b::a00:1",  # NAT64 carrying 10.0.0.1
]
ALLOWED = ["8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "2001:4860:4860::8888", "64:ff9b::808:808"]


@pytest.mark.parametrize("address", REFUSED_ALWAYS)
def test_refused_even_when_private_is_allowed(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert address_problem(ip) is not None
    assert address_problem(ip, allow_private=True) is not None


@pytest.mark.parametrize("address", REFUSED_UNLESS_PRIVATE_ALLOWED)
def test_private_and_loopback(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert address_problem(ip) is not None
    assert address_problem(ip, allow_private=True) is None


@pytest.mark.parametrize("address", ALLOWED)
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


def test_embedded_ipv4() -> None:
    assert embedded_ipv4(ipaddress.ip_address("::ffff:127.0.0.1")) == ipaddress.ip_address("127.0.0.1")
    assert embedded_ipv4(ipaddress.ip_address("2001:db8::1")) is None
    assert embedded_ipv4(ipaddress.ip_address("10.0.0.1")) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/x.pdf",
        "http://2130706433/",  # decimal 127.0.0.1
        "http://0x7f000001/",  # hex
        "http://0x7f.1/",
        "http://0177.0.0.1/",  # octal
        "http://127.1/",
        "http://[::1]:8080/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost/",
        "https://169.254.169.254/latest/meta-data/",
        "http://0/",
        "http://[fd00:ec2::254]/",
    ],
)
async def test_urls_resolving_inside_are_refused(url: str) -> None:
    # A form that the URL parser itself rejects (e.g. octal) is refused as malformed: also a 400.
    with pytest.raises(BadRequest):
        await checked_address(parse_url(url), allow_private=False)


async def test_loopback_passes_when_private_urls_are_allowed() -> None:
    ip = await checked_address(httpx.URL("http://2130706433/"), allow_private=True)
    assert ip == ipaddress.ip_address("127.0.0.1")


@pytest.mark.parametrize(
    "url", ["ftp://example.com/a", "file:///etc/passwd", "gopher://x/", "http://user:pw@8.8.8.8/"]
)
async def test_only_plain_http_and_https(url: str) -> None:
    with pytest.raises(BlockedURL):
        await checked_address(httpx.URL(url), allow_private=True)


async def test_unresolvable_host_is_400() -> None:
    with pytest.raises(BadRequest):
        await checked_address(httpx.URL("http://no-such-host.invalid/"), allow_private=False)
