"""A slow local Ray start: the longer wait, the one retry, the plain message; and the start banner."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from core.infra.settings import Settings
from serve.cli import start_banner
from serve.ray_start import RayStartError, patient_node_lookup, poll_until, start_local_ray
from serve.service import RunningService

pytestmark = pytest.mark.unit

#: What Ray 2.60 raises when a new node does not register within its 30 s.
RAY_SLOW_NODE = Exception(
    "The current node timed out during startup. This could happen because some of the raylet failed "
    "to startup or the GCS has become overloaded."
)


class FakeRay:
    """`ray.init` and `ray.shutdown` of a Ray whose first `fail` starts raise `error`."""

    def __init__(self, fail: int, error: Exception = RAY_SLOW_NODE) -> None:
        self.fail, self.error = fail, error
        self.inits: list[dict[str, Any]] = []
        self.shutdowns = 0

    def init(self, **kwargs: Any) -> str:
        self.inits.append(kwargs)
        if len(self.inits) <= self.fail:
            raise self.error
        return "context"

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_a_slow_node_is_started_once_more_after_cleaning_up() -> None:
    ray = FakeRay(fail=1)
    assert start_local_ray(ray.init, ray.shutdown, {"address": "local"}) == "context"
    assert ray.inits == [{"address": "local"}] * 2
    assert ray.shutdowns == 1


def test_a_second_slow_start_is_a_plain_message_saying_what_to_do() -> None:
    ray = FakeRay(fail=2)
    with pytest.raises(RayStartError) as raised:
        start_local_ray(ray.init, ray.shutdown, {}, node_start_seconds=90)
    assert len(ray.inits) == 2 and ray.shutdowns == 2
    message = raised.value.message
    assert "did not come up within 90 s, 2 times" in message
    assert "make run" in message and "busy" in message
    # Reported without the Ray traceback as its cause.
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_any_other_start_failure_is_not_retried() -> None:
    ray = FakeRay(fail=1, error=ValueError("bad resources"))
    with pytest.raises(ValueError, match="bad resources"):
        start_local_ray(ray.init, ray.shutdown, {})
    assert len(ray.inits) == 1 and ray.shutdowns == 0


def test_the_node_lookup_keeps_trying_until_the_node_answers() -> None:
    answers: list[Any] = [RuntimeError("not yet"), RuntimeError("not yet"), {"node_id": "n"}]

    def lookup() -> Any:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert poll_until(lookup, time.monotonic() + 10, interval=0.01) == {"node_id": "n"}
    assert answers == []


def test_the_node_lookup_gives_up_at_its_deadline() -> None:
    def never() -> Any:
        raise RuntimeError("not found")

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="not found"):
        poll_until(never, started + 0.2, interval=0.05)
    assert time.monotonic() - started < 5


def test_rays_lookup_is_patched_only_while_ray_starts() -> None:
    import ray._private.services as services

    original = services.get_node
    with patient_node_lookup(1.0):
        assert services.get_node is not original
    assert services.get_node is original


def _service(dashboard_url: str | None) -> RunningService:
    return RunningService(
        url="http://127.0.0.1:8123",
        redis_url="unix:///tmp/x.sock",
        dev_key=None,
        embedded=None,
        started_ray=True,
        dashboard_url=dashboard_url,
    )


def test_the_banner_gives_the_dashboard_and_the_command_for_its_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    banner = start_banner(_service("http://127.0.0.1:8265"), Settings(AGENTRY_DATA_DIR=tmp_path))
    assert "http://127.0.0.1:8123/console" in banner
    assert "Ray dashboard: http://127.0.0.1:8265" in banner
    assert "dashboard-token`" in banner
    # Without token authentication there is nothing to sign in with; without a dashboard, no line.
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    assert "dashboard-token" not in start_banner(_service("http://127.0.0.1:8265"), Settings())
    assert "dashboard" not in start_banner(_service(None), Settings()).lower()


def test_agentry_up_reports_a_failed_ray_start_in_one_plain_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import serve.service
    from serve.cli import main
    from serve.ray_start import slow_start_message

    def ray_does_not_start(settings: Settings, **_: Any) -> RunningService:
        raise RayStartError(slow_start_message(120, 2))

    monkeypatch.setenv("AGENTRY_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(serve.service, "start_service", ray_does_not_start)
    assert main(["up"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("agentry: Ray did not start") and "make run" in err
    assert "Traceback" not in err and err.count("\n") == 1
