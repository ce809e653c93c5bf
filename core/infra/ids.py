"""Ids, timestamps and opaque cursors."""

from __future__ import annotations

import base64
import binascii
import uuid
from datetime import UTC, datetime

from core.infra.errors import BadRequest


def new_id() -> str:
    return str(uuid.uuid4())


def parse_uuid(value: str, *, what: str = "id") -> str:
    """The canonical form of a uuid, or 400 naming what was malformed."""
    try:
        return str(uuid.UUID(value))
    except (ValueError, AttributeError, TypeError):
        raise BadRequest(f"{what} is not a valid UUID: {value!r}") from None


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """UTC ISO 8601 with a `Z`, millisecond precision."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    return iso(utcnow())


def parse_iso(value: str, *, what: str = "date") -> datetime:
    """Parse an ISO 8601 date or date-time; a naive value is taken as UTC. 400 when malformed."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadRequest(f"{what} is not an ISO 8601 date or date-time: {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def sort_key(moment: datetime, item_id: str) -> str:
    """A member for a lexicographically ordered index: time first, the id breaks ties."""
    micros = int(moment.timestamp()) * 1_000_000 + moment.microsecond
    return f"{micros:017d}:{item_id}"


def encode_cursor(member: str) -> str:
    return base64.urlsafe_b64encode(member.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        member = base64.urlsafe_b64decode(padded.encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadRequest("cursor is not a value returned by a previous page") from None
    if ":" not in member:
        raise BadRequest("cursor is not a value returned by a previous page")
    return member
