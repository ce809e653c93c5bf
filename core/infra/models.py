"""Stored records and the resources the API returns (pydantic at the boundaries)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

AgentStatus = Literal["draft", "published", "archived"]


class Record(BaseModel):
    """A record kept as JSON in Redis; unknown keys from newer versions are kept, not dropped."""

    model_config = ConfigDict(extra="allow")


class Workspace(Record):
    id: str
    name: str
    created_at: str


class ApiKeyRecord(Record):
    key_id: str
    workspace_id: str
    #: SHA-256 of the secret part; the secret itself is never stored.
    secret_hash: str
    label: str = ""
    created_at: str
    revoked_at: str | None = None
    #: Overrides AGENTRY_RATE_LIMIT for this key (a tier), e.g. "60/minute".
    rate_limit: str | None = None


class AgentVersion(Record):
    """One published version of an agent; `id` changes with every publish."""

    id: str
    agent_group_id: str
    version_number: int
    status: AgentStatus
    config: dict[str, Any]
    created_at: str
    updated_at: str


class AgentGroup(Record):
    """The logical agent: fields that belong to every version at once."""

    id: str
    workspace_id: str
    name: str
    is_active: bool = True
    is_public: bool = False
    latest_version_id: str
    latest_version_number: int
    created_at: str
    updated_at: str
    deleted_at: str | None = None
    #: Its member in the workspace's group index, so deletion removes exactly that entry.
    index_member: str


class Agent(BaseModel):
    """The Agent resource of docs/spec.md."""

    id: str
    agent_group_id: str
    version_number: int
    status: AgentStatus
    name: str
    config: dict[str, Any]
    is_active: bool
    is_public: bool
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, version: AgentVersion, group: AgentGroup) -> Agent:
        return cls(
            id=version.id,
            agent_group_id=group.id,
            version_number=version.version_number,
            status=version.status,
            name=group.name,
            config=version.config,
            is_active=group.is_active,
            is_public=group.is_public,
            created_at=version.created_at,
            updated_at=max(version.updated_at, group.updated_at),
        )


class PageOf(BaseModel):
    """Every list endpoint's envelope (docs/contract.md section 1)."""

    data: list[Any]
    has_more: bool
    next_cursor: str = Field("", description="Empty at the end of the list.")


class AuditEntry(Record):
    id: str
    action: str
    created_at: str
    key_id: str | None = None
    task_ids: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
