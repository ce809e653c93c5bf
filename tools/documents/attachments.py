"""Which stored file a document tool's `input` names: a `file://` id, or an attachment's file name.

docs/contract.md section 2: the tools take the body of the extraction endpoints, whose `input` is a
`file://` id, or the file name of one of the task's attachments. A task's attachments are the files
of its user messages: those of the run (`spec.files`) and those sent with replies.
"""

from __future__ import annotations

from typing import Any

from core import tasks
from core.stores import files
from tools.errors import ToolError


async def task_attachments(redis: Any, workspace_id: str, task_id: str) -> list[dict[str, Any]]:
    """The task's attachments `[{file, file_id, content_type, file_size}]`, oldest first."""
    feed = await tasks.read_feed(redis, workspace_id, task_id)
    return [
        dict(file)
        for item in feed
        if item.get("type") == "user_message"
        for file in item.get("files") or []
        if isinstance(file, dict) and file.get("file_id")
    ]


def resolve_input(value: str, attachments: list[dict[str, Any]]) -> str:
    """The `file://` id that `value` names.

    A `file://` id is taken as it is (any file of the workspace). Anything else is the name of an
    attachment: matched exactly, else ignoring case; when several attachments share the name, the
    newest one. An unknown name is a `ToolError` that lists the attachments the model can name.
    """
    text = value.strip()
    if text.lower().startswith(files.FILE_SCHEME):
        return text
    found = [a for a in attachments if a.get("file") == text] or [
        a for a in attachments if str(a.get("file") or "").casefold() == text.casefold()
    ]
    if found:
        return str(found[-1]["file_id"])
    names = sorted({str(a.get("file")) for a in attachments if a.get("file")})
    if not names:
        raise ToolError(
            f"there is no attachment named {text!r}: this task has no attachments. "
            "Give the file:// id of an uploaded file instead."
        )
    listed = ", ".join(repr(name) for name in names)
    raise ToolError(
        f"there is no attachment named {text!r}; this task's attachments are: {listed}. "
        "Give one of these names, or the file:// id of an uploaded file."
    )
