"""/api/v2/configs through HTTP: validation per type, pages, ownership, deletion."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest

from tests.integration.conftest import Service

pytestmark = pytest.mark.integration

VALID = [
    {"name": "markdown", "type": "parse", "params": {"output_format": "markdown", "include_metadata": True}},
    {"name": "defaults", "type": "parse", "params": {}},
    {
        "name": "invoice",
        "type": "extract",
        "params": {
            "output_format": "csv",
            "json_options": ["invoice_number", "total"],
            "prompt_mode": "rules",
        },
    },
    {
        "name": "sorter",
        "type": "classify",
        "params": {
            "categories": ["invoice", {"name": "receipt", "description": "a till slip"}],
            "mode": "split",
        },
    },
]

INVALID = [
    {"name": "x", "type": "parse", "params": {"output_format": "pdf"}},
    {"name": "x", "type": "parse", "params": {"unknown_key": 1}},
    {"name": "x", "type": "extract", "params": {"output_format": "json"}},
    {"name": "x", "type": "extract", "params": {"json_options": []}},
    {"name": "x", "type": "extract", "params": {"json_options": ["a", "A"]}},
    {"name": "x", "type": "extract", "params": {"json_options": ["a"], "prompt_mode": "magic"}},
    {"name": "x", "type": "classify", "params": {"categories": []}},
    {"name": "x", "type": "classify", "params": {"categories": ["a"], "mode": "pages"}},
    {"name": "x", "type": "classify", "params": {"categories": [{"description": "no name"}]}},
    {"name": "x", "type": "summarise", "params": {}},
    {"name": "", "type": "parse", "params": {}},
    {"type": "parse", "params": {}},
]


@pytest.mark.parametrize("body", VALID, ids=[b["name"] for b in VALID])
def test_create_get_delete(api: httpx.Client, body: dict) -> None:
    created = api.post("/api/v2/configs", json=body)
    assert created.status_code == 200, created.text
    saved = created.json()
    assert saved["success"] is True and saved["config_id"].startswith("config://")
    assert (saved["name"], saved["type"]) == (body["name"], body["type"])
    assert body["params"].items() <= saved["params"].items() or body["type"] == "classify"
    assert saved["created_at"] == saved["updated_at"]
    for form in (
        saved["config_id"],
        saved["config_id"].removeprefix("config://"),
        quote(saved["config_id"], safe=""),
    ):
        assert api.get(f"/api/v2/configs/{form}").json() == saved
    deleted = api.delete(f"/api/v2/configs/{quote(saved['config_id'], safe='')}")
    assert deleted.json() == {"success": True, "config_id": saved["config_id"], "message": "config deleted"}
    assert api.get(f"/api/v2/configs/{saved['config_id']}").status_code == 404


def test_classify_categories_are_kept_as_given(api: httpx.Client) -> None:
    saved = api.post("/api/v2/configs", json=VALID[3]).json()
    assert saved["params"]["categories"] == ["invoice", {"name": "receipt", "description": "a till slip"}]
    assert saved["params"]["mode"] == "split"


@pytest.mark.parametrize("body", INVALID)
def test_bad_params_are_422_with_the_validation_body(api: httpx.Client, body: dict) -> None:
    reply = api.post("/api/v2/configs", json=body)
    assert reply.status_code == 422, reply.text
    detail = reply.json()["detail"]
    assert isinstance(detail, list) and detail
    assert {"loc", "msg", "type"} <= detail[0].keys() and isinstance(detail[0]["loc"], list)


def test_list_pages_newest_first(service: Service) -> None:
    with service.client(service.key()) as api:
        ids = [
            api.post("/api/v2/configs", json={"name": f"c{i}", "type": "parse", "params": {}}).json()[
                "config_id"
            ]
            for i in range(5)
        ]
        first = api.get("/api/v2/configs", params={"limit": 3}).json()
        assert [c["config_id"] for c in first["data"]] == ids[::-1][:3] and first["has_more"] is True
        rest = api.get("/api/v2/configs", params={"limit": 3, "cursor": first["next_cursor"]}).json()
        assert [c["config_id"] for c in rest["data"]] == ids[::-1][3:]
        assert rest["has_more"] is False and rest["next_cursor"] == ""
        assert api.get("/api/v2/configs", params={"limit": 0}).status_code == 400


def test_configs_of_another_workspace_are_403(service: Service, api: httpx.Client) -> None:
    config_id = api.post("/api/v2/configs", json=VALID[0]).json()["config_id"]
    with service.client(service.key()) as other:
        assert other.get(f"/api/v2/configs/{config_id}").status_code == 403
        assert other.delete(f"/api/v2/configs/{config_id}").status_code == 403
        assert all(c["config_id"] != config_id for c in other.get("/api/v2/configs").json()["data"])
    assert api.get(f"/api/v2/configs/{config_id}").status_code == 200
