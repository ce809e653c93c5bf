"""Metric recording: the right kind and tags, gauges that drop to 0, outcomes of timed blocks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.infra import metrics

pytestmark = pytest.mark.unit


class FakeMetric:
    def __init__(self) -> None:
        self.calls: list[tuple[str, float, dict[str, str]]] = []

    def inc(self, value: float, tags: dict[str, str]) -> None:
        self.calls.append(("inc", value, tags))

    def set(self, value: float, tags: dict[str, str]) -> None:
        self.calls.append(("set", value, tags))

    def observe(self, value: float, tags: dict[str, str]) -> None:
        self.calls.append(("observe", value, tags))


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, FakeMetric]]:
    made = {spec.name: FakeMetric() for spec in metrics.ALL_METRICS}
    monkeypatch.setattr(metrics, "_instances", dict(made))
    monkeypatch.setattr(metrics, "_reported", {})
    yield made


def test_every_metric_has_a_unique_prometheus_name_and_histograms_have_buckets() -> None:
    names = [spec.name for spec in metrics.ALL_METRICS]
    assert len(set(names)) == len(names)
    for spec in metrics.ALL_METRICS:
        assert spec.name.startswith("agentry_") and spec.name.replace("_", "").isalnum()
        assert (spec.kind == "counter") == spec.name.endswith("_total")
        if spec.kind == "histogram":
            assert list(spec.boundaries) == sorted(spec.boundaries) and spec.boundaries[0] > 0


def test_wrong_kind_or_tags_are_refused(fakes: dict[str, FakeMetric]) -> None:
    with pytest.raises(TypeError):
        metrics.observe(metrics.TASK_TRANSITIONS, 1.0, status="running")
    with pytest.raises(ValueError):
        metrics.inc(metrics.TASK_TRANSITIONS, 1, state="running")
    with pytest.raises(ValueError):
        metrics.set_gauge(metrics.TASK_ACTORS, 1, status="x")
    assert all(not fake.calls for fake in fakes.values())


def test_counters_skip_zero(fakes: dict[str, FakeMetric]) -> None:
    metrics.inc(metrics.EXTRACTION_PAGES, 0, format="pdf")
    metrics.inc(metrics.EXTRACTION_PAGES, 3, format="pdf")
    assert fakes[metrics.EXTRACTION_PAGES.name].calls == [("inc", 3, {"format": "pdf"})]


def test_a_gauge_family_reports_vanished_values_as_zero(fakes: dict[str, FakeMetric]) -> None:
    depth = fakes[metrics.QUEUE_DEPTH.name]
    metrics.set_gauges(metrics.QUEUE_DEPTH, {"a": 2, "b": 1})
    depth.calls.clear()
    metrics.set_gauges(metrics.QUEUE_DEPTH, {"b": 4})
    assert sorted(depth.calls, key=str) == [
        ("set", 0, {"agent_id": "a"}),
        ("set", 4, {"agent_id": "b"}),
    ]
    depth.calls.clear()
    metrics.set_gauges(metrics.QUEUE_DEPTH, {})
    assert depth.calls == [("set", 0, {"agent_id": "b"})]
    with pytest.raises(ValueError):
        metrics.set_gauges(metrics.TASK_ACTORS, {"x": 1})


def test_timed_blocks_record_their_outcome(fakes: dict[str, FakeMetric]) -> None:
    tool = fakes[metrics.TOOL_CALL_SECONDS.name]
    with metrics.timed(metrics.TOOL_CALL_SECONDS, tool="ask_user"):
        pass

    class PauseForInput(Exception):
        pass

    with pytest.raises(PauseForInput), metrics.timed(metrics.TOOL_CALL_SECONDS, tool="ask_user"):
        raise PauseForInput
    outcomes = [(call[2]["tool"], call[2]["outcome"]) for call in tool.calls]
    assert outcomes == [("ask_user", "ok"), ("ask_user", "PauseForInput")]
    assert all(call[0] == "observe" and call[1] >= 0 for call in tool.calls)


def test_recording_outside_ray_is_harmless() -> None:
    # A process that never joined Ray (the CLI, unit tests) records into nothing.
    spec = metrics.MetricSpec("agentry_unit_probe_total", "counter", "probe", ("k",))
    metrics.inc(spec, 1, k="v")
    instance: Any = metrics._instances.pop(spec.name)
    assert instance is not None
