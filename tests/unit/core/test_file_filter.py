"""Which uploaded files a source batch covers (core.stores.file_filter), and the per-call children limit."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from core.infra.errors import BadRequest
from core.infra.settings import Settings
from core.stores.file_filter import FileFilter, check_tag
from core.tasks.delegation import children_limit
from tools.context import ToolContext
from tools.delegate_guards import check_count
from tools.errors import ToolError

pytestmark = pytest.mark.unit


def file(name: str, at: str, tag: str | None = None) -> dict[str, object]:
    return {"filename": name, "created_at": at} | ({"tag": tag} if tag else {})


def test_every_condition_given_must_hold() -> None:
    selected = FileFilter.of({"name": "intake-*.pdf", "tag": "p1", "uploaded_after": "2026-11-25"})
    assert selected.matches(file("Intake-7.PDF", "2026-11-25T09:00:00.000Z", "p1"))
    assert not selected.matches(file("intake-7.pdf", "2026-11-25T09:00:00.000Z", "p2"))
    assert not selected.matches(file("notes.pdf", "2026-11-25T09:00:00.000Z", "p1"))
    assert not selected.matches(file("intake-7.pdf", "2026-11-24T23:59:59.000Z", "p1"))
    assert FileFilter.of({}).matches(file("anything", "2020-01-01T00:00:00Z"))


def test_time_bounds_are_inclusive_and_end_the_listing() -> None:
    selected = FileFilter.of(
        {"uploaded_after": "2026-11-25T10:00:00Z", "uploaded_before": "2026-11-25T11:00:00Z"}
    )
    assert selected.matches(file("a", "2026-11-25T10:00:00.000Z"))
    assert selected.matches(file("a", "2026-11-25T11:00:00.000Z"))
    assert not selected.matches(file("a", "2026-11-25T11:00:00.001Z"))
    assert selected.past_range(file("a", "2026-11-25T09:59:59.999Z"))
    assert not selected.past_range(file("a", "2026-11-25T12:00:00Z"))
    assert not FileFilter.of({}).past_range(file("a", "2000-01-01T00:00:00Z"))


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"folder": "x"}, "unknown"),
        ({"name": ""}, "name"),
        ({"name": 3}, "name"),
        ({"tag": "has space"}, "tag"),
        ({"uploaded_after": "yesterday"}, "uploaded_after"),
        ({"uploaded_before": 5}, "uploaded_before"),
        ({"uploaded_after": "2026-11-26", "uploaded_before": "2026-11-25"}, "later"),
    ],
)
def test_unusable_arguments_are_refused_by_name(arguments: dict[str, object], named: str) -> None:
    with pytest.raises(BadRequest, match=named):
        FileFilter.of(arguments)


def test_tags() -> None:
    assert check_tag("packet-2026-11-25") == "packet-2026-11-25"
    for bad in ("", "-lead", "a" * 65, "x/y", "é"):
        with pytest.raises(BadRequest):
            check_tag(bad)


def test_max_children_per_call_is_a_setting_up_to_the_hard_cap() -> None:
    assert children_limit(250) == 250 and children_limit(1000) == 1000 and children_limit(0) == 1000
    assert Settings.model_validate({"AGENTRY_MAX_CHILDREN_PER_CALL": "1000"}).max_children_per_call == 1000
    assert Settings.model_validate({}).max_children_per_call == 250
    with pytest.raises(ValueError):
        Settings.model_validate({"AGENTRY_MAX_CHILDREN_PER_CALL": "1001"})
    ctx = ToolContext(
        workspace_id="w",
        task_id="t",
        step_id="t:0",
        call_id="c",
        settings=SimpleNamespace(max_children_per_call=600),
    )
    check_count(600, ctx)
    with pytest.raises(ToolError, match="at most 600"):
        check_count(601, ctx)
