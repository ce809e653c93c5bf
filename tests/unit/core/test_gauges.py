"""The store-backed gauges render as Prometheus text (core.infra.gauges)."""

from __future__ import annotations

from core.infra.gauges import GaugeSnapshot, render


def test_a_snapshot_renders_every_gauge_and_its_age() -> None:
    snapshot = GaugeSnapshot(
        at=100.0, tasks_live={"running": 3, "queued": 1, "pending": 0}, queue_depth={"g-1": 1}, task_actors=3
    )
    text = render(snapshot, now=112.5)
    samples = [line for line in text.splitlines() if not line.startswith("#")]
    assert samples == [
        "agentry_gauges_age_seconds 12.500",
        'agentry_tasks_live{status="pending"} 0',
        'agentry_tasks_live{status="queued"} 1',
        'agentry_tasks_live{status="running"} 3',
        'agentry_agent_queue_depth{agent_id="g-1"} 1',
        "agentry_task_actors 3",
    ]
    assert "# TYPE agentry_tasks_live gauge" in text and text.endswith("\n")


def test_label_values_are_escaped() -> None:
    snapshot = GaugeSnapshot(at=0, tasks_live={}, queue_depth={'a"b\\c': 2}, task_actors=0)
    assert 'agentry_agent_queue_depth{agent_id="a\\"b\\\\c"} 2' in render(snapshot, now=0)


def test_without_a_snapshot_only_the_help_is_there() -> None:
    assert [line for line in render(None, now=0).splitlines() if not line.startswith("#")] == []
