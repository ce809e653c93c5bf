"""Fetch a document named by a URL `input`, without letting the URL reach inside the network.

docs/contract.md section 7: http and https only; private, loopback, link-local and metadata addresses
are refused (400) after DNS resolution and again on each redirect; size and time are capped.

The host is resolved here and the connection goes to the address that was checked, with the
original name kept in the Host header and in TLS SNI (so certificates still verify). Connecting by
name instead would let a DNS server answer differently the second time (DNS rebinding). Redirects
are followed by hand so every hop is checked the same way.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from dataclasses import dataclass
from email.message import Message
from urllib.parse import unquote

import httpx

from core.errors import BadRequest, PayloadTooLarge

#: Redirects followed before the fetch is refused.
MAX_REDIRECTS = 3
#: Whole fetch, every redirect included.
FETCH_TIMEOUT_SECONDS = 30.0
#: Connecting, and each read of the response.
CONNECT_TIMEOUT_SECONDS = 10.0

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Cloud instance metadata services: refused even when private addresses are allowed.
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200", "168.63.129.16")
)
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
#: "This network": Linux connects 0.0.0.0 to the local host, so the whole block is refused.
_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")
#: Carrier-grade NAT space: not global, not "private" to Python, but inside someone's network.
_SHARED = ipaddress.ip_network("100.64.0.0/10")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_FILENAME_CHARS = re.compile(r"[^\w.\- ]+")


class BlockedURL(BadRequest):
    """The URL may not be fetched; the message says why."""


@dataclass(frozen=True)
class FetchedDocument:
    data: bytes
    filename: str
    content_type: str
    url: str


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo, NAT64), if any."""
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in net for net in _NAT64):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_problem(ip: IPAddress, *, allow_private: bool = False) -> str | None:
    """Why a connection to `ip` is refused, or None when it may be made.

    `allow_private` (AGENTRY_ALLOW_PRIVATE_URLS, for tests) lets loopback and private ranges
    through; metadata, link-local, multicast, unspecified and reserved addresses stay refused.
    """
    inner = embedded_ipv4(ip)
    if inner is not None:
        problem = address_problem(inner, allow_private=allow_private)
        return f"{problem} (inside {ip})" if problem else None
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if ip.is_unspecified or (isinstance(ip, ipaddress.IPv4Address) and ip in _THIS_NETWORK):
        return "an unspecified address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_loopback:
        return None if allow_private else "a loopback address"
    if ip.is_reserved:
        return "a reserved address"
    if ip.is_global:
        return None
    if ip.is_private or (isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED):
        return None if allow_private else "a private address"
    return "a reserved address"


async def resolve(host: str, port: int, *, what: str = "input URL") -> list[IPAddress]:
    """Every address `host` resolves to (an IP literal in any form the resolver accepts, e.g.
    `2130706433` or `0x7f.1`, resolves to itself)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise BadRequest(f"the host {host!r} of the {what} cannot be resolved") from exc
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in addresses:
            addresses.append(ip)
    if not addresses:
        raise BadRequest(f"the host {host!r} of the {what} has no address")
    return addresses


def parse_url(text: str, *, what: str = "input URL") -> httpx.URL:
    try:
        return httpx.URL(text.strip())
    except (httpx.InvalidURL, TypeError) as exc:
        raise BadRequest(f"the {what} is malformed") from exc


def check_scheme(url: httpx.URL, *, what: str = "input URL") -> None:
    if url.scheme not in ("http", "https"):
        raise BlockedURL(f"{what}s must use http or https")
    if not url.host:
        raise BlockedURL(f"the {what} has no host")
    if url.userinfo:
        raise BlockedURL(f"{what}s may not carry a user name or password")


async def checked_address(url: httpx.URL, *, allow_private: bool, what: str = "input URL") -> IPAddress:
    """The address to connect to for `url`, after every address its host resolves to passed.

    `what` names the URL in messages (an extraction input, a webhook's URL).
    """
    check_scheme(url, what=what)
    port = url.port or (443 if url.scheme == "https" else 80)
    addresses = await resolve(url.host, port, what=what)
    for ip in addresses:
        problem = address_problem(ip, allow_private=allow_private)
        if problem:
            raise BlockedURL(f"the {what}'s host {url.host!r} resolves to {problem}, which is not allowed")
    return addresses[0]


def pinned(url: httpx.URL, ip: IPAddress) -> tuple[httpx.URL, dict[str, str], dict[str, str]]:
    """The request URL that connects to `ip`, with the Host header and SNI of the original name."""
    host = f"[{ip}]" if isinstance(ip, ipaddress.IPv6Address) else str(ip)
    default_port = 443 if url.scheme == "https" else 80
    host_header = url.host if url.port in (None, default_port) else f"{url.host}:{url.port}"
    if ":" in url.host:  # an IPv6 literal keeps its brackets in the Host header
        host_header = f"[{url.host}]" if url.port in (None, default_port) else f"[{url.host}]:{url.port}"
    extensions = {"sni_hostname": url.host} if url.scheme == "https" else {}
    # Compressed bodies would be counted against the cap before inflating: ask for plain bytes.
    headers = {"Host": host_header, "Accept-Encoding": "identity"}
    return url.copy_with(host=host.strip("[]")), headers, extensions


async def fetch_url(
    url: str,
    *,
    max_bytes: int,
    allow_private: bool = False,
    timeout_seconds: float = FETCH_TIMEOUT_SECONDS,
    max_redirects: int = MAX_REDIRECTS,
) -> FetchedDocument:
    """Download `url` under the guard; 400 when refused or unreachable, 413 past `max_bytes`."""
    current = parse_url(url)
    timeout = httpx.Timeout(CONNECT_TIMEOUT_SECONDS)
    try:
        async with (
            asyncio.timeout(timeout_seconds),
            httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=timeout) as client,
        ):
            for _hop in range(max_redirects + 1):
                ip = await checked_address(current, allow_private=allow_private)
                target, headers, extensions = pinned(current, ip)
                request = client.build_request("GET", target, headers=headers, extensions=extensions)
                response = await client.send(request, stream=True)
                try:
                    if response.status_code in _REDIRECTS and "location" in response.headers:
                        current = current.join(response.headers["location"])
                        continue
                    if not response.is_success:
                        raise BadRequest(f"the input URL answered HTTP {response.status_code}")
                    data = await _read_capped(response, max_bytes)
                    return FetchedDocument(
                        data=data,
                        filename=_filename(response, current),
                        content_type=response.headers.get("content-type", "application/octet-stream"),
                        url=str(current),
                    )
                finally:
                    await response.aclose()
            raise BlockedURL(f"the input URL redirected more than {max_redirects} times")
    except TimeoutError:
        raise BadRequest(f"fetching the input URL took longer than {timeout_seconds:g} s") from None
    except httpx.HTTPError as exc:
        raise BadRequest(f"the input URL could not be fetched ({type(exc).__name__})") from None


async def _read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(_too_large(max_bytes))
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise PayloadTooLarge(_too_large(max_bytes))
        parts.append(chunk)
    return b"".join(parts)


def _too_large(max_bytes: int) -> str:
    return f"the document at the input URL is larger than the upload limit of {max_bytes // 2**20} MB"


def _filename(response: httpx.Response, url: httpx.URL) -> str:
    disposition = response.headers.get("content-disposition")
    if disposition:
        message = Message()
        message["content-disposition"] = disposition
        name = message.get_filename()
        if name:
            return _FILENAME_CHARS.sub("_", name).strip() or "download"
    last = unquote(url.path.rsplit("/", 1)[-1])
    return _FILENAME_CHARS.sub("_", last).strip() or "download"
