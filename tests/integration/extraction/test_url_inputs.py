"""URL inputs: fetched under the SSRF guard, redirects checked and counted, size and time capped.

The session service runs with AGENTRY_ALLOW_PRIVATE_URLS=true, so it may reach the loopback site;
metadata addresses stay refused whatever that setting says.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from core.infra.errors import BadRequest, PayloadTooLarge
from extraction.jobs.fetch import fetch_url
from tests.integration.extraction.conftest import LocalSite, settle
from tests.support import documents

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module", autouse=True)
def _pages(site: LocalSite) -> None:
    site.pages["/doc.pdf"] = documents.pdf_text([["Fetched from the web"]])


def test_parse_a_url_input(api: httpx.Client, site: LocalSite) -> None:
    body = settle(api, api.post("/api/v2/parse/sync", json={"input": site.url("/doc.pdf")}))
    assert body["status"] == "completed", body
    assert "Fetched from the web" in body["result"]["content"]
    assert body["filename"] == "doc.pdf" and body["file_id"].startswith("file://")
    stored = api.get(f"/api/v2/files/{body['file_id']}").json()
    assert stored["format"] == "pdf"


def test_three_redirects_are_followed_a_fourth_is_refused(api: httpx.Client, site: LocalSite) -> None:
    ok = settle(api, api.post("/api/v2/parse/sync", json={"input": site.url("/hop/2")}))
    assert ok["status"] == "completed"
    too_many = api.post("/api/v2/parse/sync", json={"input": site.url("/hop/3")})
    assert too_many.status_code == 400 and "redirected more than 3 times" in too_many.json()["detail"]


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://[::ffff:169.254.169.254]/",
        "http://0.0.0.0/",
        "file:///etc/passwd",
    ],
)
def test_refused_addresses_are_400(api: httpx.Client, url: str) -> None:
    reply = api.post("/api/v2/parse/sync", json={"input": url})
    assert reply.status_code == 400, reply.text


def test_a_redirect_into_the_metadata_service_is_refused(api: httpx.Client, site: LocalSite) -> None:
    reply = api.post("/api/v2/parse/sync", json={"input": site.url("/to-metadata")})
    assert reply.status_code == 400 and "metadata" in reply.json()["detail"]


def test_missing_page_is_400(api: httpx.Client, site: LocalSite) -> None:
    reply = api.post("/api/v2/parse/sync", json={"input": site.url("/nothing-here.pdf")})
    assert reply.status_code == 400 and "404" in reply.json()["detail"]


def test_a_download_over_the_cap_is_413(api: httpx.Client, site: LocalSite) -> None:
    reply = api.post("/api/v2/parse/sync", json={"input": site.url("/huge")})
    assert reply.status_code == 413


def test_batch_with_a_refused_url_reports_it_per_item(api: httpx.Client, site: LocalSite) -> None:
    reply = api.post(
        "/api/v2/parse/async", json={"input": [site.url("/doc.pdf"), "http://169.254.169.254/x"]}
    ).json()
    assert reply["items"][0]["record_id"] and reply["items"][1]["status"] == "failed"
    assert "metadata" in reply["items"][1]["error"]


def test_fetch_keeps_the_host_name_and_caps_time(site: LocalSite) -> None:
    fetched = asyncio.run(
        fetch_url(site.url("/doc.pdf", host="localhost"), max_bytes=10**6, allow_private=True)
    )
    assert fetched.data.startswith(b"%PDF") and site.hosts[-1] == f"localhost:{site.port}"
    with pytest.raises(BadRequest, match="longer than 1 s"):
        asyncio.run(fetch_url(site.url("/slow"), max_bytes=10**6, allow_private=True, timeout_seconds=1))
    with pytest.raises(PayloadTooLarge):
        asyncio.run(fetch_url(site.url("/huge"), max_bytes=10**6, allow_private=True))
    with pytest.raises(BadRequest, match="loopback"):
        asyncio.run(fetch_url(site.url("/doc.pdf"), max_bytes=10**6, allow_private=False))
