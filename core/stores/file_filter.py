"""Which uploaded files a source batch covers: the `list_files` source tool's arguments.

A workspace keeps every file it ever uploaded, so a batch over "the files" must be able to say which
ones: today's packet by the tag given at upload, by a file name pattern, or by an upload time range.
Every condition given must hold. The checks are pure, so the source tool and its tests share them.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import re
from dataclasses import dataclass
from typing import Any

from core.infra.errors import BadRequest

#: A tag given at upload (`POST /api/v2/files?tag=`): short, and safe in a URL and a Redis key.
TAG_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")
#: The arguments `list_files` understands.
FILTER_ARGUMENTS = ("name", "tag", "uploaded_after", "uploaded_before")


def check_tag(tag: str) -> str:
    """The tag, or 400 naming the rule."""
    if not TAG_PATTERN.fullmatch(tag):
        raise BadRequest(
            "tag must be 1 to 64 characters of letters, digits and . _ : - (starting with a letter or digit)"
        )
    return tag


def _moment(value: Any, name: str) -> dt.datetime:
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be an ISO 8601 date or time")
    try:
        moment = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise BadRequest(f"{name} must be an ISO 8601 date or time, not {value!r}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class FileFilter:
    """`name` is a shell pattern (`*.pdf`, `intake-*`), matched case-insensitively; the time bounds
    are inclusive; `tag` must equal the tag the file was uploaded with."""

    name: str | None = None
    tag: str | None = None
    uploaded_after: dt.datetime | None = None
    uploaded_before: dt.datetime | None = None

    @classmethod
    def of(cls, arguments: dict[str, Any]) -> FileFilter:
        """The filter the arguments describe; 400 (naming the argument) for anything it cannot use."""
        unknown = sorted(set(arguments) - set(FILTER_ARGUMENTS))
        if unknown:
            raise BadRequest(f"unknown list_files arguments {unknown}; known: {', '.join(FILTER_ARGUMENTS)}")
        name, tag = arguments.get("name"), arguments.get("tag")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise BadRequest("name must be a non-empty file name pattern")
        if tag is not None and not isinstance(tag, str):
            raise BadRequest("tag must be a string")
        after, before = arguments.get("uploaded_after"), arguments.get("uploaded_before")
        selected = cls(
            name=name.strip() if name is not None else None,
            tag=check_tag(tag) if tag is not None else None,
            uploaded_after=_moment(after, "uploaded_after") if after is not None else None,
            uploaded_before=_moment(before, "uploaded_before") if before is not None else None,
        )
        if (
            selected.uploaded_after
            and selected.uploaded_before
            and selected.uploaded_after > selected.uploaded_before
        ):
            raise BadRequest("uploaded_after is later than uploaded_before")
        return selected

    def matches(self, file: dict[str, Any]) -> bool:
        """Whether a file (its `FileRecord.resource()`) is covered."""
        if self.tag is not None and file.get("tag") != self.tag:
            return False
        if self.name is not None and not fnmatch.fnmatchcase(
            str(file.get("filename", "")).lower(), self.name.lower()
        ):
            return False
        created = _moment(file.get("created_at"), "created_at")
        if self.uploaded_after is not None and created < self.uploaded_after:
            return False
        return not (self.uploaded_before is not None and created > self.uploaded_before)

    def past_range(self, file: dict[str, Any]) -> bool:
        """Whether a file and every older one fall before `uploaded_after` (files list newest first)."""
        return (
            self.uploaded_after is not None
            and _moment(file.get("created_at"), "created_at") < self.uploaded_after
        )
