"""Request bodies of the agents API (pydantic at the edge)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AgentCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="Default: `Untitled Agent N`, counted per workspace.")
    config: dict[str, Any] | None = Field(None, description="Default: the default tool set, empty prompt.")
    is_active: bool = True
    is_public: bool = False


class AgentPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    config: dict[str, Any] | None = Field(None, description="Publishes a new version when present.")
    is_active: bool | None = None
    is_public: bool | None = None


class DeletedAgent(BaseModel):
    id: str
    deleted: bool
