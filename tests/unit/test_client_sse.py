"""The client's server-sent events decoder and the reconnecting stream state (pure)."""

from __future__ import annotations

import pytest
from agentry_client.errors import ConnectionFailed, NotFound
from agentry_client.events import EventStream, stream_id_after
from agentry_client.protocol import Context
from agentry_client.retry import RetryPolicy
from agentry_client.sse import ServerSentEvent, SSEDecoder, parse_events
from hypothesis import given
from hypothesis import strategies as st

pytestmark = pytest.mark.unit

STREAM = (
    ": ping\n\n"
    'id: 1700000000000-0\nevent: status\ndata: {"status": "running"}\n\n'
    ": ping\n"
    'id: 1700000000000-1\nevent: feed\ndata: {"seq": 1}\n\n'
    'id: 1700000000001-0\nevent: feed\ndata: {"seq": 2}\n\n'
    # `end` repeats the id of the last entry (the events endpoint, docs/contract.md section 3).
    'id: 1700000000001-0\nevent: end\ndata: {"status": "completed"}\n\n'
)


def decode_in_chunks(text: str, cuts: list[int]) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    start = 0
    for cut in [*sorted(cuts), len(text)]:
        events += decoder.feed(text[start:cut])
        start = cut
    return events


def test_events_with_ids_types_and_keepalive_comments() -> None:
    events = parse_events(STREAM)
    assert [(e.id, e.event, e.data) for e in events] == [
        ("1700000000000-0", "status", '{"status": "running"}'),
        ("1700000000000-1", "feed", '{"seq": 1}'),
        ("1700000000001-0", "feed", '{"seq": 2}'),
        ("1700000000001-0", "end", '{"status": "completed"}'),
    ]


def test_multi_line_data_is_joined_with_newlines() -> None:
    [event] = parse_events("data: first\ndata:second\ndata:  third\ndata\n\n")
    # One leading space is dropped, a second one is data; a bare `data` line is an empty line.
    assert event.data == "first\nsecond\n third\n" and event.event == "message"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_line_ending(newline: str) -> None:
    assert parse_events(STREAM.replace("\n", newline)) == parse_events(STREAM)


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    text = "data: a\r\n\r\ndata: b\r\n\r\n"
    at_cr = [text.index("\r") + 1, text.index("\r\n\r\n") + 3]
    assert decode_in_chunks(text, at_cr) == parse_events(text)
    assert [e.data for e in parse_events(text)] == ["a", "b"]


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_chunking_gives_the_same_events(cuts: list[int]) -> None:
    crlf = STREAM.replace("\n", "\r\n")
    assert decode_in_chunks(STREAM, cuts) == parse_events(STREAM)
    assert decode_in_chunks(crlf, [min(c * 2, len(crlf)) for c in cuts]) == parse_events(STREAM)


def test_a_byte_order_mark_is_dropped_and_fields_without_colon_or_unknown_are_handled() -> None:
    events = parse_events("\ufeffevent: x\nfoo: bar\nid\ndata: 1\n\n")
    assert [(e.event, e.id, e.data) for e in events] == [("x", "", "1")]


def test_events_without_data_and_an_unterminated_tail_are_not_dispatched() -> None:
    assert parse_events("event: status\nid: 5\n\n: ping\n\ndata: partial") == []
    decoder = SSEDecoder()
    assert decoder.feed("id: 5\nevent: status\n\n") == []
    # The id persists for later events, as the format says.
    assert decoder.feed("data: x\n\n") == [ServerSentEvent(event="message", data="x", id="5", retry=None)]


def test_retry_field_and_ids_with_nul_are_ignored_unless_valid() -> None:
    decoder = SSEDecoder()
    decoder.feed("retry: 1500\nretry: soon\nid: a\x00b\ndata: x\n\n")
    assert decoder.retry == 1500 and decoder.last_event_id is None


def test_stream_ids_compare_as_redis_stream_ids() -> None:
    assert stream_id_after("1700000000000-10", "1700000000000-9")
    assert stream_id_after("1700000000001-0", "1700000000000-99")
    assert not stream_id_after("1700000000000-1", "1700000000000-1")
    assert not stream_id_after("5", "6")
    assert stream_id_after("opaque-b", "opaque-a") and not stream_id_after("x", "x")


def test_stream_resumes_skips_duplicates_and_stops_after_end() -> None:
    stream = EventStream(Context(), "t-1", None)
    assert stream.path == "/api/v1/tasks/t-1/events" and "Last-Event-ID" not in stream.headers()
    stream.connected()
    first = stream.receive(STREAM[: STREAM.index("id: 1700000000001-0")])
    assert [e.type for e in first] == ["status", "feed"] and first[0].data == {"status": "running"}
    assert stream.headers()["Last-Event-ID"] == "1700000000000-1"
    # The connection dropped; the service resumes from an older point, so one event comes again.
    assert stream.dropped("reset") > 0
    stream.connected()
    again = stream.receive(
        STREAM[STREAM.index("id: 1700000000000-1") :] + "id: 1700000000002-0\ndata: {}\n\n"
    )
    assert [(e.id, e.type) for e in again] == [("1700000000001-0", "feed"), ("1700000000001-0", "end")]
    assert stream.done


def test_a_resume_from_the_last_entry_still_gets_end() -> None:
    stream = EventStream(Context(), "t-1", "1700000000001-0")
    stream.connected()
    events = stream.receive('id: 1700000000001-0\nevent: end\ndata: {"status": "completed"}\n\n')
    assert [e.type for e in events] == ["end"] and events[0].data == {"status": "completed"} and stream.done


def test_stream_gives_up_after_repeated_empty_connections_and_raises_refusals() -> None:
    stream = EventStream(Context(retry=RetryPolicy(max_attempts=3)), "t-1", "1-0")
    assert stream.headers()["Last-Event-ID"] == "1-0"
    stream.dropped("closed")
    stream.dropped("closed")
    with pytest.raises(ConnectionFailed):
        stream.dropped("closed")
    with pytest.raises(NotFound):
        EventStream(Context(), "t-2", None).refused(404, {}, b'{"error": "task not found"}')
    assert EventStream(Context(), "t-3", None).refused(503, {"retry-after": "2"}, b"") >= 2


def test_server_retry_field_sets_the_reconnect_delay() -> None:
    stream = EventStream(Context(), "t-1", None)
    stream.connected()
    stream.receive("retry: 250\nid: 1-0\nevent: status\ndata: {}\n\n")
    assert stream.dropped("closed") == 0.25
