"""Cursor pagination over lexicographically ordered Redis indexes, newest first."""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis

from core.infra.errors import BadRequest
from core.infra.ids import decode_cursor, encode_cursor

#: docs/spec.md, Limits: page size default 20, maximum 100.
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


def check_limit(limit: int | None) -> int:
    if limit is None:
        return DEFAULT_PAGE_SIZE
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise BadRequest(f"limit must be between 1 and {MAX_PAGE_SIZE}")
    return limit


@dataclass
class Slice:
    members: list[str]
    has_more: bool
    next_cursor: str


async def newest_first(
    redis: aioredis.Redis, index: str, *, cursor: str | None, limit: int, scan: int | None = None
) -> Slice:
    """One page of an index whose members sort by time (see `core.infra.ids.sort_key`).

    `scan` reads more members than `limit` for callers that filter after reading; they pass the
    last member they looked at to `Slice.from_last`.
    """
    upper = f"({decode_cursor(cursor)}" if cursor else "+"
    count = scan or limit
    members: list[str] = await redis.zrevrangebylex(index, upper, "-", start=0, num=count + 1)
    has_more = len(members) > count
    members = members[:count]
    next_cursor = encode_cursor(members[-1]) if has_more and members else ""
    return Slice(members, has_more, next_cursor)


def member_id(member: str) -> str:
    return member.split(":", 1)[1]


def cursor_after(member: str) -> str:
    return encode_cursor(member)
