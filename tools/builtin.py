"""The registry of every native tool the runtime can offer an agent."""

from __future__ import annotations

from tools.ask_user import ASK_USER
from tools.delegate import DELEGATE_TASKS
from tools.practice.patient_tools import PRACTICE_GET_PATIENT, PRACTICE_SAVE_PATIENT
from tools.registry import ToolRegistry, ToolSpec


def native_tools() -> list[ToolSpec]:
    return [ASK_USER, DELEGATE_TASKS, PRACTICE_SAVE_PATIENT, PRACTICE_GET_PATIENT]


def build_registry() -> ToolRegistry:
    return ToolRegistry(native_tools())
