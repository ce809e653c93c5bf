import json

import pytest

from actors.context_budget import (
    ELIDED,
    MAX_TOOL_RESULT_CHARS,
    compact,
    elision_note,
    fit_window,
    offered_tools,
    stored_results,
    tool_content,
)
from actors.conversation import build_messages
from tools.read_result import PAGE_CHARS, READ_RESULT, result_handle, result_marker

pytestmark = pytest.mark.unit

PARSE_RESULT = {
    "content": "# Page 1\nPatient: Ada Lovelace",
    "elements": [{"id": "e1", "text": "Patient: Ada Lovelace", "bounding_box": [1, 2, 3, 4]}],
    "pages": [{"page": 1, "width": 612, "height": 792}],
    "overall_confidence": 0.97,
}
EXTRACT_RESULT = {
    "fields": {
        "name": {
            "value": "Ada Lovelace",
            "confidence": 0.9,
            "citations": [{"page": 1, "bounding_box": [1, 2, 3, 4], "normalized_bounding_box": [0, 0, 1, 1]}],
        }
    }
}


def test_boxes_and_elements_beside_content_never_reach_the_model() -> None:
    assert compact(PARSE_RESULT) == {
        "content": "# Page 1\nPatient: Ada Lovelace",
        "pages": [{"page": 1, "width": 612, "height": 792}],
        "overall_confidence": 0.97,
    }
    assert compact(EXTRACT_RESULT)["fields"]["name"] == {
        "value": "Ada Lovelace",
        "confidence": 0.9,
        "citations": [{"page": 1}],
    }


def test_a_long_result_without_a_handle_is_cut_with_a_note() -> None:
    text = tool_content({"content": "x" * (MAX_TOOL_RESULT_CHARS * 2)})
    assert len(text) < MAX_TOOL_RESULT_CHARS + 100 and "more characters of this result are not shown" in text
    assert tool_content("short") == "short"


def test_the_feed_keeps_the_whole_result_while_the_model_sees_it_compact() -> None:
    feed = [
        {"type": "user_message", "text": "parse it"},
        {"type": "tool_call", "call_id": "c1", "tool_name": "parse_document", "arguments": {}},
        {
            "type": "tool_result",
            "call_id": "c1",
            "tool_name": "parse_document",
            "status": "ok",
            "output": PARSE_RESULT,
        },
    ]
    tool = build_messages("", feed)[-1]
    assert "bounding_box" not in tool["content"] and "Ada Lovelace" in tool["content"]
    assert feed[2]["output"]["elements"][0]["bounding_box"] == [1, 2, 3, 4]


def test_oldest_tool_outputs_are_elided_first_to_fit_the_window() -> None:
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "tool", "tool_call_id": "a", "content": "A" * 20_000},
        {"role": "tool", "tool_call_id": "b", "content": "B" * 5_000},
        {"role": "tool", "tool_call_id": "c", "content": "C" * 5_000},
    ]
    fitted, elided = fit_window(messages, 8192)
    assert elided == ["a"]
    assert [m["content"][:1] for m in fitted[2:]] == [ELIDED[:1], "B", "C"]
    assert len(json.dumps(fitted)) <= (8192 - 1024) * 3
    assert messages[2]["content"].startswith("A")  # the caller's list is left as it was
    assert fit_window(messages, None) == (messages, [])


def test_a_long_result_is_stored_and_the_model_sees_a_summary_with_its_handle() -> None:
    output = {"content": "Ada Lovelace " * 2_000, "pages": [{"page": n} for n in range(20)]}
    handle = result_handle(3, "c1")
    stored = stored_results("parse_document", 3, "c1", output)
    assert list(stored) == [result_marker(handle)]
    text = stored[result_marker(handle)]
    assert json.loads(text)["content"] == output["content"]
    summary = tool_content(output, handle)
    pages = -(-len(text) // PAGE_CHARS)
    assert len(summary) < 2_000 and repr(handle) in summary and f"page from 1 to {pages}" in summary
    assert "pages (20 items)" in summary and summary.endswith(text[:1_500])
    assert stored_results("parse_document", 3, "c2", {"content": "short"}) == {}
    assert stored_results(READ_RESULT, 4, "c3", output) == {}  # a page is never stored again
    assert tool_content({"content": "short"}, handle) == '{"content": "short"}'


def test_read_result_is_offered_only_while_a_summary_names_a_handle() -> None:
    short = [{"role": "tool", "tool_call_id": "a", "content": "{}"}]
    long = [{"role": "tool", "tool_call_id": "a", "content": tool_content("x" * 20_000, "s0.a")}]
    assert offered_tools(["ask_user"], short) == ["ask_user"]
    assert offered_tools(["ask_user"], long) == ["ask_user", READ_RESULT]


def test_the_feed_is_told_once_which_steps_outputs_were_elided() -> None:
    feed = [
        {"type": "tool_result", "call_id": "a", "step": 0, "status": "ok", "output": {}},
        {"type": "tool_result", "call_id": "b", "step": 1, "status": "ok", "output": {}},
    ]
    note = elision_note(feed, ["a"], 2)
    assert note is not None and note["kind"] == "context_elided" and note["steps"] == [0]
    assert "step 0" in note["text"]
    feed.append(note)
    assert elision_note(feed, ["a"], 3) is None
    assert elision_note(feed, ["a", "b"], 3)["steps"] == [1]  # type: ignore[index]
    assert elision_note(feed, [], 3) is None
