"""The review binding's pure parts: the arguments' digest and the recorded call it is taken from."""

from __future__ import annotations

import pytest

from actors.review_binding import arguments_digest, preview_of, recorded_arguments, runs_as_approved

pytestmark = pytest.mark.unit


def test_the_digest_ignores_key_order_but_not_values() -> None:
    assert arguments_digest({"a": 1, "b": [1, 2]}) == arguments_digest({"b": [1, 2], "a": 1})
    assert arguments_digest({"a": 1}) != arguments_digest({"a": 2})
    assert arguments_digest({"a": "1"}) != arguments_digest({"a": 1})


def test_the_recorded_arguments_are_those_of_the_call_id() -> None:
    steps = {
        "s2:model": {
            "tool_calls": [
                {"id": "c1", "name": "x", "arguments": {"n": 1}},
                {"id": "c2", "name": "x", "arguments": {"n": 2}},
            ]
        }
    }
    assert recorded_arguments(steps, 2, "c2") == {"n": 2}
    assert recorded_arguments(steps, 1, "c2") is None
    assert recorded_arguments(steps, 2, "c3") is None


def test_a_preview_is_the_call_id_and_its_digest() -> None:
    digest = arguments_digest({"n": 1})
    shown = {"call_id": "c1", "arguments_sha256": digest, "binding": {"arguments_sha256": digest}}
    assert preview_of(shown) == {"call_id": "c1", "arguments_sha256": digest}
    # Paused before the digest was shown beside the call id: it is read from the binding.
    assert (
        preview_of({"call_id": "c1", "binding": {"arguments_sha256": digest}})["arguments_sha256"] == digest
    )


def test_only_the_approved_arguments_run() -> None:
    approval = {"decision": "approve", "arguments_sha256": arguments_digest({"n": 1})}
    assert runs_as_approved(approval, {"n": 1})
    assert not runs_as_approved(approval, {"n": 2})
