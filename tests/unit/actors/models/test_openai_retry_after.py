from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from actors.models.errors import retry_after_seconds as _retry_after_seconds

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "3"}, 3.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"Retry-After": "-4"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ({"retry-after-ms": "x", "Retry-After": "9"}, 9.0),
    ],
)
def test_retry_after_forms(headers: dict[str, str], expected: float | None) -> None:
    assert _retry_after_seconds(httpx.Headers(headers)) == expected


def test_retry_after_as_an_http_date() -> None:
    when = datetime.now(UTC) + timedelta(seconds=30)
    seconds = _retry_after_seconds(httpx.Headers({"Retry-After": format_datetime(when, usegmt=True)}))
    assert seconds is not None and 28 <= seconds <= 30
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    assert _retry_after_seconds(httpx.Headers({"Retry-After": past})) == 0.0


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_retry_after_is_ignored(value: str) -> None:
    assert _retry_after_seconds(httpx.Headers({"Retry-After": value})) is None
