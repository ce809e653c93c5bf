"""Fuzzing every operation of /openapi.json with schemathesis, as workspace A beside a seeded workspace B.

For each operation, schemathesis generates requests from the document (valid and invalid ones) and
each answer must: not be a 5xx, have a status, content type and body that the document declares for
it, carry its API's error envelope when it is a 4xx, and never contain an id of workspace B. Path ids
are drawn from three pools: generated, A's own seeded objects (so the success paths run), and B's
(which must be refused, never read or changed). A stateful run then follows the document's links:
it creates agents, tasks, webhooks, files, configs and jobs, and uses the ids the replies hold.

`AGENTRY_FUZZ_EXAMPLES` (default 6) bounds the generated requests per operation and mode: 12 per
operation (and the stateful run to 6 scenarios of at most `STATEFUL_STEPS` calls), about 45 s of requests plus 10-20 s of seeding on top of a running service (2 cores,
load average 6); 85 s of requests at a load average of 20. `AGENTRY_FUZZ_EXAMPLES=60` took 4 min.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from serve.app import build_app
from tests.integration.conftest import Service
from tests.support.agents import scripted, wait_status
from tests.support.documents import intake_form
from tests.support.service import wait_for

pytestmark = pytest.mark.integration

EXAMPLES = int(os.environ.get("AGENTRY_FUZZ_EXAMPLES", "6"))
#: Calls per stateful scenario: create, then two or three uses of what was created.
STATEFUL_STEPS = 5


def error_envelope(ctx: Any, response: Any, case: Any) -> bool | None:
    """A 4xx carries its API's envelope (`{error}` on /api/v1, `{detail}` on /api/v2), and never
    the "safe to retry" hint of a 500: a retry of the same bad request cannot succeed."""
    if not 400 <= response.status_code < 500:
        return None
    label = f"{case.operation.label} answered {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        raise AssertionError(f"{label} without a JSON body: {response.text[:200]!r}") from None
    if case.operation.path.startswith("/api/v1"):
        assert isinstance(body, dict) and set(body) == {"error"}, f"{label} without {{error}}: {body}"
        message = body["error"]
        assert isinstance(message, str) and message, f"{label} with an empty error: {body}"
    else:
        assert isinstance(body, dict) and set(body) == {"detail"}, f"{label} without {{detail}}: {body}"
        message = body["detail"]
        assert isinstance(message, str | list) and message, f"{label} with an empty detail: {body}"
    assert "safe to retry" not in str(message), f"{label} and says a retry could help: {body}"
    return None


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    error_envelope,
]
#: Every URL the service could be made to fetch (extraction `input`, the practice `base_url`) is
#: pointed here: the discard port on loopback, closed, so the fetch fails at once and nothing
#: leaves this machine.
CLOSED_URL = "http://127.0.0.1:9/fuzz"
_URL_RE = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.\-]*://")
_OWN_SCHEMES = ("file://", "config://")

#: Which seeded object a path parameter names.
KIND_OF_PARAM = {
    "agent_id": "agent",
    "task_id": "task",
    "file_id": "file",
    "config_id": "config",
    "record_id": "job",
    "batch_id": "batch",
    "webhook_id": "webhook",
    "example_id": "example",
}


def _operations() -> list[tuple[str, str]]:
    """(METHOD, path) of every operation, reads first and deletes last, so deletes lose no coverage."""
    order = {"get": 0, "post": 1, "put": 1, "patch": 1, "delete": 2}
    found = [
        (method, path)
        for path, operations in build_app().openapi()["paths"].items()
        for method, operation in operations.items()
        # Streams hold the connection for as long as the stream runs; their own tests cover them.
        if "text/event-stream" not in str(operation.get("responses", {}))
    ]
    return [(m.upper(), p) for m, p in sorted(found, key=lambda mp: (order.get(mp[0], 1), mp[1], mp[0]))]


@dataclass
class Seeded:
    """One workspace's key and what was created in it: ids by kind, in every form a path takes."""

    key: str
    ids: dict[str, list[str]] = field(default_factory=dict)
    #: The bare uuids: every form of an id (`file://<uuid>`, URL-encoded) contains one.
    uuids: list[str] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def _forms(prefixed: str) -> list[str]:
    """`scheme://<uuid>` and the bare uuid: the path forms docs/contract.md section 7 accepts."""
    return [prefixed, prefixed.split("://", 1)[1]]


def _seed(service: Service, workspace: str) -> Seeded:
    seeded = Seeded(key=service.key(workspace))
    with service.client(seeded.key) as api:
        config = scripted({"answer": "done"}, placement="pooled")
        agent = api.post("/api/v1/agents", json={"name": f"{workspace} agent", "config": config}).json()
        created = api.post(f"/api/v1/agents/{agent['id']}/run", json={"query": "hello"})
        assert created.status_code == 201, created.text
        task_id = created.json()["task_id"]
        wait_status(api, task_id)
        upload = api.post(
            "/api/v2/files", files={"file": ("notes.txt", b"Patient: Ada Lovelace\n", "text/plain")}
        )
        assert upload.status_code == 200, upload.text
        file_id = upload.json()["file_id"]
        saved = api.post(
            "/api/v2/configs",
            json={"name": f"{workspace} config", "type": "extract", "params": {"json_options": ["name"]}},
        )
        assert saved.status_code == 200, saved.text
        form = api.post(
            "/api/v2/files",
            files={
                "file": (
                    "intake.pdf",
                    intake_form("Ada Lovelace", "12/10/1815", "AL-1815"),
                    "application/pdf",
                )
            },
        )
        assert form.status_code == 200, form.text
        example = api.post(
            f"/api/v2/configs/{quote(saved.json()['config_id'], safe='')}/examples",
            json={"input": form.json()["file_id"], "values": {"name": "Ada Lovelace"}},
        )
        assert example.status_code == 201, example.text
        job = api.post("/api/v2/parse/async", json={"input": file_id})
        batch = api.post("/api/v2/parse/async", json={"input": [file_id]})
        assert job.status_code == 200 and batch.status_code == 200, (job.text, batch.text)
        record_id = job.json()["record_id"]

        def parsed() -> bool:
            return api.get(f"/api/v2/jobs/{record_id}").json()["status"] in ("completed", "failed")

        wait_for(parsed, timeout=60, what="the seeded parse job")
        # A delivery, if any event ever matches, goes to the closed loopback port.
        hook = api.post("/api/v1/webhooks", json={"url": CLOSED_URL, "events": ["task.awaiting_review"]})
        assert hook.status_code == 201, hook.text
        seeded.ids = {
            "agent": [agent["id"]],
            "task": [task_id],
            "file": _forms(file_id),
            "config": _forms(saved.json()["config_id"]),
            "job": [record_id],
            "batch": [batch.json()["batch_id"]],
            "webhook": [hook.json()["id"]],
            "example": [example.json()["example_id"]],
        }
        seeded.uuids = [agent["agent_group_id"]] + [forms[-1] for forms in seeded.ids.values()]
    return seeded


@dataclass
class World:
    url: str
    schema: Any
    a: Seeded
    b: Seeded


@pytest.fixture(scope="module")
def world(service: Service) -> World:
    a, b = _seed(service, "fuzz-a"), _seed(service, "fuzz-b")
    schema = schemathesis.openapi.from_url(f"{service.url}/openapi.json")
    return World(url=service.url, schema=schema, a=a, b=b)


def _no_outbound(value: Any, key: str = "") -> Any:
    """The value with every URL the service might fetch pointed at `CLOSED_URL`."""
    if isinstance(value, dict):
        return {k: _no_outbound(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_outbound(v, key) for v in value]
    if isinstance(value, str):
        if key == "base_url" or (_URL_RE.match(value) and not value.strip().startswith(_OWN_SCHEMES)):
            return CLOSED_URL
        # A model named in a fuzzed agent config must not be a hosted one.
        if value.strip().lower().startswith("openai"):
            return "scripted"
    return value


#: RFC 9110 field-name characters (`token`); HAProxy refuses any other name, and any control
#: character in a value, with its own 400 before a route sees the request.
_FIELD_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_FIELD_VALUE = re.compile(r"^[^\x00-\x08\x0a-\x1f\x7f]*$")


def _http_level_headers(headers: dict[str, Any]) -> dict[str, Any]:
    """The generated headers that reach the API: not `Host` (the client's own address; RFC 9112
    section 3.2 has the HTTP layer answer a malformed one 400 before any route, which
    test_haproxy_answers.py checks) and none that is not valid HTTP syntax."""
    return {
        name: value
        for name, value in headers.items()
        if name.lower() != "host" and _FIELD_NAME.match(name) and _FIELD_VALUE.match(str(value))
    }


def _constrain(case: Any) -> None:
    """Keep a generated request from leaving the machine or stalling the session, and to what the
    API sees: HTTP syntax errors are the ingress's (test_haproxy_answers.py)."""
    if case.headers:
        case.headers = _http_level_headers(case.headers)
    if isinstance(case.body, dict | list):
        case.body = _no_outbound(case.body)
    if case.query:
        case.query = _no_outbound(case.query)
        # async=false holds the request for up to the sync budget (45 s here) when the run does not end
        # at once; test_sync_runs.py covers that path, the fuzzer only needs its validation.
        if case.operation.path.endswith("/run") and str(case.query.get("async", "")).lower() in (
            "false",
            "0",
        ):
            case.query["async"] = "true"


def _leaked(world: World, text: str, sent: str) -> list[str]:
    """B's ids in an answer to A, besides those A sent (a 403 names the id it refuses)."""
    return [i for i in world.b.uuids if i in text and i not in sent]


def _cross_workspace_refused(world: World, case: Any, status: int, text: str, used_b: bool) -> None:
    sent = f"{case.path_parameters} {case.query} {case.body!r}"
    leaked = _leaked(world, text, sent)
    assert not leaked, f"{case.operation.label} answered workspace B's ids {leaked} to A: {text[:500]}"
    if used_b:
        assert not 200 <= status < 300, (
            f"{case.operation.label} with B's id answered {status} to A: {text[:500]}"
        )


@pytest.mark.parametrize(("method", "path"), _operations(), ids=[f"{m} {p}" for m, p in _operations()])
def test_operation_conforms(world: World, method: str, path: str) -> None:
    operation = world.schema[path][method]
    modes = st.sampled_from([GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
    names = [p.name for p in operation.path_parameters]

    @settings(
        max_examples=EXAMPLES * 2,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        mode = data.draw(modes, label="mode")
        case = data.draw(operation.as_strategy(generation_mode=mode), label="case")
        used_b = False
        for name in names:
            kind = KIND_OF_PARAM.get(name)
            if kind is None:
                continue
            pool = data.draw(st.sampled_from(["generated", "a", "b"]), label=f"{name} pool")
            if pool != "generated":
                seeded = world.a if pool == "a" else world.b
                case.path_parameters[name] = data.draw(st.sampled_from(seeded.ids[kind]), label=name)
                used_b = used_b or pool == "b"
        _constrain(case)
        response = case.call(base_url=world.url, headers=world.a.headers, timeout=90)
        case.validate_response(response, checks=CHECKS, headers=world.a.headers)
        text = response.content.decode("utf-8", "replace")
        _cross_workspace_refused(world, case, response.status_code, text, used_b)

    fuzz()


#: Bodies that pass validation, so a refusal of B's id comes from the ownership check.
_VALID_BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/api/v1/agents/{agent_id}/run"): {"query": "hello"},
    ("PATCH", "/api/v1/agents/{agent_id}"): {"name": "renamed"},
    ("POST", "/api/v1/tasks/{task_id}/message"): {"message": "hello"},
    ("POST", "/api/v1/tasks/{task_id}/review"): {"decision": "approve"},
    ("PUT", "/api/v1/tasks/{task_id}/corrections"): {"paths": {"name": {"value": "Ada", "checked": True}}},
    ("PUT", "/api/v2/jobs/{record_id}/corrections"): {"fields": {"name": {"value": "Ada", "checked": True}}},
    ("POST", "/api/v2/configs/{config_id}/examples"): {
        "input": "file://00000000-0000-4000-8000-000000000000",
        "values": {"name": "Ada Lovelace"},
    },
}


def test_other_workspace_ids_are_refused(world: World) -> None:
    """Every operation that names an object answers 403 or 404 to A for B's object, and B's stays."""
    checked = []
    with httpx.Client(base_url=world.url, headers=world.a.headers, timeout=60) as api:
        for method, path in _operations():
            names = re.findall(r"{(\w+)}", path)
            if not names or any(n not in KIND_OF_PARAM for n in names):
                continue
            for index in range(max(len(world.b.ids[KIND_OF_PARAM[names[0]]]), 1)):
                url = path
                for name in names:
                    values = world.b.ids[KIND_OF_PARAM[name]]
                    url = url.replace(f"{{{name}}}", quote(values[min(index, len(values) - 1)], safe=""))
                response = api.request(method, url, json=_VALID_BODIES.get((method, path)))
                assert response.status_code in (403, 404), (method, url, response.status_code, response.text)
                assert not _leaked(world, response.text, url), (method, url, response.text)
                checked.append(f"{method} {path}")
    assert len(set(checked)) >= 15, checked
    with httpx.Client(base_url=world.url, headers=world.b.headers, timeout=60) as b_api:
        ids = world.b.ids
        assert b_api.get(f"/api/v1/agents/{ids['agent'][0]}").json()["name"] == "fuzz-b agent"
        assert b_api.get(f"/api/v1/tasks/{ids['task'][0]}").json()["status"] == "completed"
        assert b_api.get(f"/api/v2/files/{ids['file'][1]}/content").status_code == 200
        assert b_api.get(f"/api/v2/configs/{ids['config'][1]}").status_code == 200


def test_document_is_the_apps(world: World) -> None:
    """The served document is the one the app builds, and it declares no FastAPI 422 on /api/v1."""
    served = httpx.get(f"{world.url}/openapi.json", timeout=30).json()
    assert served == build_app().openapi()
    for path, operations in served["paths"].items():
        for method, operation in operations.items():
            if path.startswith("/api/v1"):
                assert "422" not in operation["responses"], (method, path)
                assert "400" in operation["responses"], (method, path)


def test_stateful_workflows(world: World) -> None:
    """Scenarios along the document's links: what a create returns is what the next calls use."""
    # Streams hold the connection as long as they run; their own tests cover them.
    workflow = world.schema.exclude(path_regex=r"/events$").as_state_machine()
    called: set[tuple[str, int]] = set()

    class Workflow(workflow):  # type: ignore[misc, valid-type]
        def before_call(self, case: Any) -> None:
            _constrain(case)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"base_url": world.url, "headers": world.a.headers, "timeout": 90}

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            called.add((f"{case.operation.method.upper()} {case.operation.path}", response.status_code))
            case.validate_response(response, checks=CHECKS, headers=world.a.headers)
            text = response.content.decode("utf-8", "replace")
            _cross_workspace_refused(world, case, response.status_code, text, used_b=False)

    Workflow.run(
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STATEFUL_STEPS,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
    )
    # The links were followed: a call on a path that names a resource succeeded with an id that a
    # create returned (A's seeded ids are not offered to the state machine).
    linked = {label for label, status in called if "{" in label and 200 <= status < 300}
    assert linked, f"no call followed a link to success; calls: {sorted(called)}"
