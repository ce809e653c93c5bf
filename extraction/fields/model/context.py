"""What field extraction knows of one document, worked out once and shared by every field."""

from dataclasses import dataclass, field

from extraction.fields.reading.captions import CaptionIndex
from extraction.fields.reading.date_text import DateOrder
from extraction.fields.reading.question_places import Occurrence
from extraction.fields.reading.text_lines import TextUnit
from extraction.formats.document import Box, Document


@dataclass
class FieldContext:
    doc: Document
    #: The document's visual lines, and the same split into cells where words stand apart.
    lines: list[TextUnit]
    units: list[TextUnit]
    skews: dict[int, float]
    order: DateOrder
    #: (page, box) of the cells inside sections about someone other than the patient.
    other_places: set[tuple[int, Box | None]]
    #: (page, box) of the cells inside sections about a doctor, with the section's heading.
    provider_places: dict[tuple[int, Box | None], str]
    #: The labels printed beside or above each form widget (by `id` of its element).
    widget_labels: dict[int, list[str]]
    file_name: str
    #: Which unit is printed as the caption under which value (`reading.captions`).
    captions: CaptionIndex
    #: Every field asked of the document: a name the vocabulary does not know is a printed question.
    field_names: list[str] = field(default_factory=list)
    #: Per page, where each asked question is printed (`questions.answer`), found once.
    questions_seen: dict[int, dict[str, list[Occurrence]]] = field(default_factory=dict)
