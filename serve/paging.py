"""The `cursor` and `limit` of every list route: cursors are signed going out and checked coming in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from core.infra.cursors import cursor_key, list_scope, open_cursor, sign_cursor
from core.infra.models import PageOf
from serve.deps import PrincipalDep, SettingsDep
from serve.openapi_responses import CursorQuery, LimitQuery


@dataclass(frozen=True)
class Paging:
    #: The position to page from (the opened cursor), None for the first page.
    cursor: str | None
    limit: int | None
    key: bytes
    #: The list the cursor belongs to (`core.infra.cursors.list_scope`).
    scope: str

    def signed(self, page: PageOf) -> PageOf:
        """The page with its `next_cursor` signed for this list."""
        page.next_cursor = sign_cursor(page.next_cursor, key=self.key, scope=self.scope)
        return page


def paging(
    request: Request,
    settings: SettingsDep,
    principal: PrincipalDep,
    cursor: CursorQuery = None,
    limit: LimitQuery = None,
) -> Paging:
    key = cursor_key(settings.resolved_secret())
    route = request.scope.get("route")
    scope = list_scope(
        getattr(route, "path_format", request.url.path),
        workspace_id=principal.workspace_id,
        path_ids=request.path_params,
        query=request.query_params.multi_items(),
    )
    position = open_cursor(cursor, key=key, scope=scope) if cursor else None
    return Paging(cursor=position, limit=limit, key=key, scope=scope)


PagingDep = Annotated[Paging, Depends(paging)]
