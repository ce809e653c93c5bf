from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from core.infra.errors import BadRequest
from core.infra.ids import decode_cursor, encode_cursor, iso, parse_iso, parse_uuid, sort_key

pytestmark = pytest.mark.unit


def test_parse_uuid_canonicalises_and_rejects() -> None:
    value = uuid.uuid4()
    assert parse_uuid(str(value).upper()) == str(value)
    with pytest.raises(BadRequest):
        parse_uuid("not-a-uuid")


def test_cursor_round_trip_and_garbage() -> None:
    member = sort_key(datetime(2026, 1, 2, tzinfo=UTC), "abc")
    assert decode_cursor(encode_cursor(member)) == member
    with pytest.raises(BadRequest):
        decode_cursor("%%%")
    with pytest.raises(BadRequest):
        decode_cursor(encode_cursor("no-separator"))


def test_sort_keys_order_by_time() -> None:
    early = sort_key(datetime(2026, 1, 1, tzinfo=UTC), "zzz")
    late = sort_key(datetime(2026, 1, 2, tzinfo=UTC), "aaa")
    assert early < late


def test_iso_round_trip() -> None:
    moment = datetime(2026, 11, 21, 10, 0, 0, 123000, tzinfo=UTC)
    assert iso(moment) == "2026-11-21T10:00:00.123Z"
    assert parse_iso(iso(moment)) == moment
    assert parse_iso("2026-11-21") == datetime(2026, 11, 21, tzinfo=UTC)
    with pytest.raises(BadRequest):
        parse_iso("yesterday")
