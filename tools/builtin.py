"""The registry of every native tool the runtime can offer an agent."""

from __future__ import annotations

from tools.ask_user import ASK_USER
from tools.registry import ToolRegistry, ToolSpec


def native_tools() -> list[ToolSpec]:
    return [ASK_USER]


def build_registry() -> ToolRegistry:
    return ToolRegistry(native_tools())
