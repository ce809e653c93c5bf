"""Examples of saved extract configs over HTTP on the real stack (issue 37): teach a filled form once,
list, get and delete its examples, and read later documents of its design with the config."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import redis

from tests.integration.conftest import Service
from tests.integration.extraction.conftest import settle, upload
from tests.support.documents import intake_form, pdf_text
from tests.support.service import wait_for

pytestmark = pytest.mark.integration

FIELDS = ["patient_name", "birth_date", "chart_ref", "phone"]


TAUGHT = {"patient_name": "Maria Okafor", "birth_date": "1987-03-14", "chart_ref": "QX-48213", "phone": None}


def _config(api: httpx.Client, **params: object) -> str:
    body = {
        "name": "intake",
        "type": "extract",
        "params": {"json_options": FIELDS, "prompt_mode": "rules", **params},
    }
    reply = api.post("/api/v2/configs", json=body)
    assert reply.status_code == 200, reply.text
    config_id: str = reply.json()["config_id"]
    return config_id


def _examples(config_id: str) -> str:
    return f"/api/v2/configs/{quote(config_id, safe='')}/examples"


def _teach(api: httpx.Client, config_id: str, file_id: str, values: dict) -> httpx.Response:
    return api.post(_examples(config_id), json={"input": file_id, "values": values}, timeout=180)


def _store_keys(service: Service, config_id: str) -> list[str]:
    uuid = config_id.removeprefix("config://")
    client = redis.Redis.from_url(service.redis_url, decode_responses=True)
    try:
        return [k for k in client.scan_iter(match=f"ag:*:config:{uuid}*", count=1000) if ":example" in k]
    finally:
        client.close()


def test_teach_list_get_delete(api: httpx.Client, service: Service) -> None:
    config_id = _config(api)
    file_id = upload(api, intake_form("Maria Okafor", "03/14/1987", "QX-48213"), "intake.pdf")["file_id"]

    reply = _teach(api, config_id, file_id, TAUGHT)
    assert reply.status_code == 201, reply.text
    example = reply.json()
    assert example["success"] is True and example["config_id"] == config_id and example["file_id"] == file_id
    assert example["created_at"]
    fields = example["fields"]
    assert fields["phone"] is None
    for name in ("patient_name", "birth_date", "chart_ref"):
        assert fields[name]["value"] == TAUGHT[name]
        assert fields[name]["page"] == 1
        x0, y0, x1, y1 = fields[name]["bounding_box"]
        # Typed on the rule right of its label, each answer on its own line.
        assert 200 <= x0 < x1 <= 520 and y0 < y1
    assert fields["patient_name"]["bounding_box"][1] < fields["birth_date"]["bounding_box"][1]

    listed = api.get(_examples(config_id)).json()
    assert [e["example_id"] for e in listed["data"]] == [example["example_id"]]
    assert listed["has_more"] is False
    one = api.get(f"{_examples(config_id)}/{example['example_id']}")
    assert one.status_code == 200 and one.json() == example
    # The values are sealed at rest: the store holds no patient's name.
    raw = redis.Redis.from_url(service.redis_url, decode_responses=True)
    try:
        stored = [raw.get(k) or "" for k in _store_keys(service, config_id) if not k.endswith(":examples")]
    finally:
        raw.close()
    assert stored and all("Okafor" not in s for s in stored)

    deleted = api.delete(f"{_examples(config_id)}/{example['example_id']}")
    assert deleted.json() == {
        "success": True,
        "example_id": example["example_id"],
        "config_id": config_id,
        "message": "example deleted",
    }
    assert api.get(f"{_examples(config_id)}/{example['example_id']}").status_code == 404
    assert api.get(_examples(config_id)).json()["data"] == []
    assert _store_keys(service, config_id) == []


def test_a_value_not_on_the_document_is_422_and_nothing_is_stored(
    api: httpx.Client, service: Service
) -> None:
    config_id = _config(api)
    file_id = upload(api, intake_form("Maria Okafor", "03/14/1987", "QX-48213"))["file_id"]
    reply = _teach(api, config_id, file_id, {**TAUGHT, "patient_name": "Henrietta Vandersloot"})
    assert reply.status_code == 422, reply.text
    detail = reply.json()["detail"]
    assert "patient_name" in detail and "chart_ref" not in detail
    assert api.get(_examples(config_id)).json()["data"] == []
    assert _store_keys(service, config_id) == []


def test_bad_examples_are_refused(api: httpx.Client, service: Service) -> None:
    config_id = _config(api)
    file_id = upload(api, intake_form("Maria Okafor", "03/14/1987", "QX-48213"))["file_id"]
    unknown = _teach(api, config_id, file_id, {"patient_name": "Maria Okafor", "ssn": "1", "mrn": "2"})
    assert unknown.status_code == 422 and "ssn, mrn" in unknown.json()["detail"]
    assert _teach(api, config_id, file_id, {}).status_code == 422
    parse_config = api.post("/api/v2/configs", json={"name": "p", "type": "parse", "params": {}}).json()
    assert _teach(api, parse_config["config_id"], file_id, {"x": "y"}).status_code == 400
    missing_file = "file://00000000-0000-4000-8000-000000000000"
    assert _teach(api, config_id, missing_file, {"patient_name": "Maria Okafor"}).status_code == 404
    assert api.get(f"{_examples(config_id)}/not-a-uuid").status_code == 400
    assert api.get(f"{_examples(config_id)}/00000000-0000-4000-8000-000000000000").status_code == 404
    gone = "config://00000000-0000-4000-8000-000000000000"
    assert api.get(_examples(gone)).status_code == 404
    assert _store_keys(service, config_id) == []


def test_another_workspace_cannot_reach_the_examples(api: httpx.Client, service: Service) -> None:
    config_id = _config(api)
    file_id = upload(api, intake_form("Maria Okafor", "03/14/1987", "QX-48213"))["file_id"]
    example = _teach(api, config_id, file_id, TAUGHT).json()
    path = f"{_examples(config_id)}/{example['example_id']}"
    with service.client(service.key()) as other:
        # The same answers as the other config routes give another workspace's config.
        status = other.get(f"/api/v2/configs/{config_id}").status_code
        assert status == 403
        assert other.get(_examples(config_id)).status_code == status
        assert other.get(path).status_code == status
        assert other.delete(path).status_code == status
        their_file = upload(other, intake_form("Maria Okafor", "03/14/1987", "QX-48213"))["file_id"]
        assert _teach(other, config_id, their_file, TAUGHT).status_code == status
        # Their own config cannot be taught from our file.
        theirs = _config(other)
        assert _teach(other, theirs, file_id, TAUGHT).status_code == 403
    assert api.get(path).status_code == 200


def test_deleting_the_config_deletes_its_examples(api: httpx.Client, service: Service) -> None:
    config_id = _config(api)
    file_id = upload(api, intake_form("Maria Okafor", "03/14/1987", "QX-48213"))["file_id"]
    example = _teach(api, config_id, file_id, TAUGHT).json()
    assert _store_keys(service, config_id)
    assert api.delete(f"/api/v2/configs/{quote(config_id, safe='')}").status_code == 200
    assert api.get(f"{_examples(config_id)}/{example['example_id']}").status_code == 404
    assert api.get(_examples(config_id)).status_code == 404
    assert _store_keys(service, config_id) == []


def test_later_documents_of_the_design_follow_the_example(api: httpx.Client) -> None:
    config_id = _config(api)
    taught_file = upload(api, intake_form("Maria Okafor", "03/14/1987", "QX-48213"))["file_id"]
    example = _teach(api, config_id, taught_file, TAUGHT).json()
    # The example keeps working once the file it was taught from is gone.
    assert api.delete(f"/api/v2/files/{quote(taught_file, safe='')}").status_code == 200

    later = upload(api, intake_form("Tobias Lindqvist", "11/02/1954", "ZK-90177"))["file_id"]
    result = settle(api, api.post("/api/v2/extract/sync", json={"input": later, "config_id": config_id}))[
        "result"
    ]
    assert result["data"]["patient_name"] == "Tobias Lindqvist"
    assert result["data"]["birth_date"] == "1954-11-02"
    assert result["data"]["chart_ref"] == "ZK-90177"
    for name in ("patient_name", "birth_date", "chart_ref"):
        assert result["fields"][name]["example_id"] == example["example_id"]

    # A document of another design is read as without the config's examples.
    other = upload(api, pdf_text([["Invoice 4411", "Total: 120.00 USD"]]))["file_id"]
    plain = settle(api, api.post("/api/v2/extract/sync", json={"input": other, "config_id": config_id}))[
        "result"
    ]
    assert all("example_id" not in f for f in plain["fields"].values())

    # Async and batch jobs carry the examples too.
    third = upload(api, intake_form("Ana Pereira", "07/30/2001", "MB-55120"))["file_id"]
    batch = api.post("/api/v2/extract/async", json={"input": [later, third], "config_id": config_id}).json()

    def ended() -> list[dict] | None:
        items = api.get(f"/api/v2/batches/{batch['batch_id']}").json()["items"]
        return items if all(i["status"] != "processing" for i in items) else None

    items = wait_for(ended, timeout=180, interval=0.25, what="batch")
    results = [api.get(f"/api/v2/jobs/{i['record_id']}").json()["result"] for i in items]
    assert [r["data"]["chart_ref"] for r in results] == ["ZK-90177", "MB-55120"]
    assert all(r["fields"]["chart_ref"]["example_id"] == example["example_id"] for r in results)


def test_a_config_without_examples_reads_as_before(api: httpx.Client) -> None:
    config_id = _config(api)
    later = upload(api, intake_form("Tobias Lindqvist", "11/02/1954", "ZK-90177"))["file_id"]
    result = settle(api, api.post("/api/v2/extract/sync", json={"input": later, "config_id": config_id}))[
        "result"
    ]
    inline = settle(
        api,
        api.post(
            "/api/v2/extract/sync",
            json={"input": later, "extraction_config": {"json_options": FIELDS, "prompt_mode": "rules"}},
        ),
    )["result"]
    assert result["fields"] == inline["fields"]
    assert all("example_id" not in f for f in result["fields"].values())


def test_notebook_paths_read_with_the_config_and_its_examples(
    api: httpx.Client, key: str, service: Service, tmp_path: Path
) -> None:
    from core.infra.errors import Forbidden
    from extraction.jobs.batch import extract_many
    from extraction.jobs.dataset import extract_dataset, read_documents

    config_id = _config(api)
    file_id = upload(api, intake_form("Maria Okafor", "03/14/1987", "QX-48213"))["file_id"]
    example_id = _teach(api, config_id, file_id, TAUGHT).json()["example_id"]
    (tmp_path / "later.pdf").write_bytes(intake_form("Tobias Lindqvist", "11/02/1954", "ZK-90177"))

    records = extract_many(str(tmp_path / "*.pdf"), config_id=config_id, api_key=key, progress=False)
    assert records[0]["data"]["chart_ref"] == "ZK-90177"
    assert records[0]["fields"]["chart_ref"]["example_id"] == example_id

    rows = extract_dataset(read_documents(str(tmp_path)), config_id=config_id, api_key=key, workers=1)
    row = rows.to_pandas().iloc[0]
    assert row["chart_ref"] == "ZK-90177" and row["chart_ref_example_id"] == example_id

    # The config is read in the key's workspace only.
    with pytest.raises(Forbidden):
        extract_many(str(tmp_path / "*.pdf"), config_id=config_id, api_key=service.key(), progress=False)
    with pytest.raises(ValueError, match="not both"):
        extract_many(str(tmp_path / "*.pdf"), ["chart_ref"], config_id=config_id, api_key=key)


def _text_intake(name: str, born: str, chart: str) -> bytes:
    return (
        "LAKEVIEW CLINIC - PATIENT INTAKE (plain text export)\n"
        "Complete every line before the visit.\n"
        "\n"
        f"Patient name:  {name}\n"
        f"Date of birth: {born}\n"
        f"Chart ref:     {chart}\n"
        "\n"
        "Signature of the patient or guardian\n"
    ).encode()


def test_a_plain_text_form_is_taught_and_later_ones_follow_it(api: httpx.Client) -> None:
    config_id = _config(api)
    taught = upload(api, _text_intake("Maria Okafor", "03/14/1987", "QX-48213"), "intake.txt")["file_id"]
    reply = _teach(api, config_id, taught, TAUGHT)
    assert reply.status_code == 201, reply.text
    assert reply.json()["fields"]["chart_ref"]["page"] == 1

    later = upload(api, _text_intake("Tobias Lindqvist", "11/02/1954", "ZK-90177"), "later.txt")["file_id"]
    result = settle(api, api.post("/api/v2/extract/sync", json={"input": later, "config_id": config_id}))[
        "result"
    ]
    assert result["data"]["patient_name"] == "Tobias Lindqvist"
    assert result["data"]["birth_date"] == "1954-11-02"
    assert result["data"]["chart_ref"] == "ZK-90177"
    assert result["fields"]["chart_ref"]["example_id"] == reply.json()["example_id"]
    assert result["fields"]["chart_ref"]["citations"][0]["line_start"] == 6
