"""Reading a Ray node's Prometheus endpoint, where our `ray.util.metrics` series are exported."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

#: Ray prefixes every custom metric with this.
RAY_PREFIX = "ray_"


def scrape(port: int, host: str = "127.0.0.1") -> list[tuple[str, dict[str, str], float]]:
    """Every sample the node exports now: (name, labels, value)."""
    text = httpx.get(f"http://{host}:{port}/metrics", timeout=10).text
    return [
        (sample.name, dict(sample.labels), float(sample.value))
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    ]


def total(samples: list[tuple[str, dict[str, str], float]], name: str, **labels: str) -> float | None:
    """The sum of `ray_<name>` over every process and label not named; None when no sample matches."""
    found = [
        value
        for sample_name, sample_labels, value in samples
        if sample_name == RAY_PREFIX + name and all(sample_labels.get(k) == v for k, v in labels.items())
    ]
    return sum(found) if found else None
