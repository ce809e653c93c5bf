"""Fetch a document named by a URL `input`, without letting the URL reach inside the network.

docs/contract.md section 7: http and https only; private, loopback, link-local and metadata addresses
are refused (400) after DNS resolution and again on each redirect; size and time are capped. The
guard itself is `core.infra.url_guard` (shared with webhooks, the practice connector and model base URLs);
redirects are followed by hand so every hop is checked and connected to the address that was checked.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from email.message import Message
from urllib.parse import unquote

import httpx

from core.infra.errors import BadRequest, PayloadTooLarge
from core.infra.url_guard import BlockedURL, checked_address, parse_url, pinned

#: Redirects followed before the fetch is refused.
MAX_REDIRECTS = 3
#: Whole fetch, every redirect included.
FETCH_TIMEOUT_SECONDS = 30.0
#: Connecting, and each read of the response.
CONNECT_TIMEOUT_SECONDS = 10.0

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_FILENAME_CHARS = re.compile(r"[^\w.\- ]+")
#: Compressed bodies would be counted against the cap before inflating: ask for plain bytes.
_IDENTITY = {"Accept-Encoding": "identity"}


@dataclass(frozen=True)
class FetchedDocument:
    data: bytes
    filename: str
    content_type: str
    url: str


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
                request = client.build_request(
                    "GET", target, headers=headers | _IDENTITY, extensions=extensions
                )
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
