import json

import pytest

from actors.context_budget import ELIDED, MAX_TOOL_RESULT_CHARS, compact, fit_window, tool_content
from actors.conversation import build_messages

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


def test_a_long_result_is_cut_with_a_note() -> None:
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
    assert elided == 1
    assert [m["content"][:1] for m in fitted[2:]] == [ELIDED[:1], "B", "C"]
    assert len(json.dumps(fitted)) <= (8192 - 1024) * 3
    assert messages[2]["content"].startswith("A")  # the caller's list is left as it was
    assert fit_window(messages, None) == (messages, 0)
