"""The one SSRF guard: where a URL that a caller chose may make the service connect.

Used by every outgoing request to a caller-chosen host: URL inputs of the extraction API, webhook
deliveries, the practice connector's `base_url` (at connect and at each call) and model base URLs.
http and https only, no credentials in the URL; the host is resolved here and every address it
resolves to must be public: private, loopback, link-local, metadata, multicast, reserved and
IPv4-mapped (or otherwise embedded) inner addresses are refused. `allow_private`
(AGENTRY_ALLOW_PRIVATE_URLS, for tests) lets loopback and private ranges through, never the rest.

The connection then goes to the address that was checked, with the original name kept in the Host
header and in TLS SNI (so certificates still verify). Connecting by name instead would let a DNS
server answer differently the second time (DNS rebinding). `GuardedTransport` does this for every
request an httpx client sends, redirect hops included, since each hop is a new request (the model
SDKs' clients are `httpx2`'s, the same interface: the transport is built over either library).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from types import ModuleType
from typing import Any

import httpx

from core.infra.errors import BadRequest

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


class BlockedURL(BadRequest):
    """The URL may not be fetched; the message says why."""


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
    return url.copy_with(host=host.strip("[]")), {"Host": host_header}, extensions


class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport that sends each request only to a checked address of its host.

    Every request (so every redirect hop a client follows) is resolved and checked, then connected
    to the checked address with the name's Host header and SNI. A refused host raises BlockedURL
    before any connection is made; a host that does not resolve is a `ConnectError`, as an
    unreachable one would be. `http` is the client library the transport serves (`httpx` or
    `httpx2`): its requests, headers, errors and inner transport are that library's.
    """

    def __init__(
        self,
        *,
        allow_private: bool,
        what: str,
        inner: Any = None,
        http: ModuleType = httpx,
    ) -> None:
        self._allow_private = allow_private
        self._what = what
        self._http = http
        self._inner = inner or http.AsyncHTTPTransport()

    async def handle_async_request(self, request: Any) -> Any:
        try:
            ip = await checked_address(request.url, allow_private=self._allow_private, what=self._what)
        except BlockedURL:
            raise
        except BadRequest as exc:
            raise self._http.ConnectError(exc.message, request=request) from None
        target, pin_headers, extensions = pinned(request.url, ip)
        headers = self._http.Headers(request.headers)
        headers["Host"] = pin_headers["Host"]
        pinned_request = self._http.Request(
            request.method,
            target,
            headers=headers,
            stream=request.stream,
            extensions=dict(request.extensions) | extensions,
        )
        return await self._inner.handle_async_request(pinned_request)

    async def aclose(self) -> None:
        await self._inner.aclose()
