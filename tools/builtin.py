"""The registry of every native tool the runtime can offer an agent."""

from __future__ import annotations

from extraction.jobs.model import ModelFactory
from tools.ask_user import ASK_USER
from tools.delegate import DELEGATE_TASKS
from tools.documents.specs import document_tools
from tools.practice.patient_tools import PRACTICE_GET_PATIENT, PRACTICE_SAVE_PATIENT
from tools.read_result import READ_RESULT_TOOL
from tools.registry import ToolRegistry, ToolSpec


def native_tools(model_factory: ModelFactory) -> list[ToolSpec]:
    """Every native tool; `model_factory` builds the extraction model the document tools' jobs use."""
    return [
        ASK_USER,
        DELEGATE_TASKS,
        *document_tools(model_factory),
        PRACTICE_SAVE_PATIENT,
        PRACTICE_GET_PATIENT,
        READ_RESULT_TOOL,
    ]


def build_registry(model_factory: ModelFactory) -> ToolRegistry:
    return ToolRegistry(native_tools(model_factory))
