"""Signed page cursors: what this service issued opens; anything else is a 400."""

from __future__ import annotations

import base64

import pytest

from core.infra.cursors import cursor_key, list_scope, open_cursor, sign_cursor
from core.infra.errors import BadRequest
from core.infra.ids import encode_cursor

KEY = cursor_key("the service secret")
LIST = "/api/v1/agents"
POSITION = encode_cursor("00001700000000000000:3f1c2a4e-0000-4000-8000-000000000001")


def test_a_signed_cursor_opens_to_its_position() -> None:
    cursor = sign_cursor(POSITION, key=KEY, scope=LIST)
    assert cursor != POSITION
    assert open_cursor(cursor, key=KEY, scope=LIST) == POSITION


def test_the_end_of_a_list_stays_empty() -> None:
    assert sign_cursor("", key=KEY, scope=LIST) == ""


@pytest.mark.parametrize(
    "cursor",
    [
        # Decodes to a plausible position, but was never issued (the forged cursor).
        base64.urlsafe_b64encode(b'{"a":1}').decode(),
        POSITION,
        POSITION + ".",
        "." + "A" * 22,
        POSITION + "." + "A" * 22,
        "%%bad",
        "é.é",
    ],
)
def test_forged_cursors_are_refused(cursor: str) -> None:
    with pytest.raises(BadRequest, match="previous page"):
        open_cursor(cursor, key=KEY, scope=LIST)


def test_a_cursor_changed_by_one_character_is_refused() -> None:
    cursor = sign_cursor(POSITION, key=KEY, scope=LIST)
    position, tag = cursor.rsplit(".", 1)
    altered = position[:-1] + ("A" if position[-1] != "A" else "B")
    with pytest.raises(BadRequest):
        open_cursor(f"{altered}.{tag}", key=KEY, scope=LIST)


def test_a_cursor_of_another_list_or_secret_is_refused() -> None:
    cursor = sign_cursor(POSITION, key=KEY, scope=LIST)
    with pytest.raises(BadRequest):
        open_cursor(cursor, key=KEY, scope="/api/v1/tasks")
    with pytest.raises(BadRequest):
        open_cursor(cursor, key=cursor_key("a rotated secret"), scope=LIST)


def test_keys_differ_per_secret_and_need_one() -> None:
    assert cursor_key("a") != cursor_key("b")
    with pytest.raises(ValueError):
        cursor_key("")


def test_the_list_scope_is_the_route_its_ids_the_workspace_and_the_filters() -> None:
    def scope(ws: str = "ws-1", ids: dict[str, str] | None = None, **query: str) -> str:
        return list_scope("/api/v1/tasks", workspace_id=ws, path_ids=ids or {}, query=query.items())

    base = scope(status="running", title="a")
    # Filter order and the page parameters do not change the list.
    assert scope(title="a", status="running", limit="5", cursor="x") == base
    assert scope(ws="ws-2", status="running", title="a") != base
    assert scope(ids={"task_id": "t1"}, status="running", title="a") != base
    assert scope(status="running") != base
    assert scope(status="running", title="b") != base
    cursor = sign_cursor(POSITION, key=KEY, scope=base)
    with pytest.raises(BadRequest, match="same workspace and filters"):
        open_cursor(cursor, key=KEY, scope=scope(ws="ws-2", status="running", title="a"))
