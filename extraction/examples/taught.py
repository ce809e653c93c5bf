"""What teaching a document keeps: each field's value and place, and the design it was found on.

An example must keep working after its file is deleted, so it holds everything matching and
reading need: each page's size and printed words with their boxes (the anchors of its design), and
for each field where its value sat, the free space around it (its slot) and how it was printed.
It holds patient data (the values and the page's words): it is stored only in its workspace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from extraction.examples.kinds import ValueKind
from extraction.examples.words import normal_word

#: Most landmarks a page is first tested on: enough to be sure, few enough to be cheap.
MAX_LANDMARKS = 24
#: Bumped when the stored shape changes; `from_json` refuses other versions.
VERSION = 1


class ValuesNotFound(Exception):
    """Some given values are nowhere on the document (`fields` names them)."""

    def __init__(self, fields: list[str]) -> None:
        super().__init__(f"values not found on the document: {', '.join(fields)}")
        self.fields = fields


@dataclass
class Option:
    """One option of a choice: its word, and where its box (or check box widget) sits."""

    label: str
    box: list[float]


@dataclass
class TaughtField:
    value: Any
    page: int
    #: Page pixels x0, y0, x1, y1 (`Box.as_list`): where the value was found.
    bounding_box: list[float]
    kind: ValueKind = "text"
    #: The free space around the value on its row (up to the nearest printed word each side):
    #: where another document's value of any length is read.
    slot: list[float] = field(default_factory=list)
    #: The text read in the slot on the taught document (a whole name the value is part of).
    slot_text: str = ""
    #: Dates: the order the printed date was read in. Names: the part of the slot's name the
    #: value is (`first`, `middle`, `last`), or None for all of it.
    detail: str | None = None
    #: Choices: every option of the group, the taught one included.
    options: list[Option] = field(default_factory=list)
    #: When the value is only part of its slot's text: where (`parts.Part.to_json`).
    part: list[int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "page": self.page,
            "bounding_box": self.bounding_box,
            "kind": self.kind,
            "slot": self.slot,
            "slot_text": self.slot_text,
            "detail": self.detail,
            "options": [{"label": o.label, "box": o.box} for o in self.options],
            "part": self.part,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaughtField:
        return cls(
            value=data["value"],
            page=int(data["page"]),
            bounding_box=[float(v) for v in data["bounding_box"]],
            kind=data.get("kind", "text"),
            slot=[float(v) for v in data.get("slot", [])],
            slot_text=str(data.get("slot_text", "")),
            detail=data.get("detail"),
            options=[Option(o["label"], [float(v) for v in o["box"]]) for o in data.get("options", [])],
            part=[int(v) for v in data["part"]] if data.get("part") else None,
        )


@dataclass
class Anchor:
    """A printed word of the design (a label, a heading): not a value."""

    text: str
    box: list[float]


@dataclass
class TaughtPage:
    page: int
    width: float
    height: float
    anchors: list[Anchor] = field(default_factory=list)

    @cached_property
    def keys(self) -> list[str]:
        """Each anchor's text as matching compares it (`words.normal_word`)."""
        return [normal_word(a.text) for a in self.anchors]

    @cached_property
    def landmarks(self) -> dict[str, int]:
        """Anchors printed once on the page, of four letters or more, longest first (at most
        `MAX_LANDMARKS`), by text: what a document is first tested on."""
        counts: dict[str, int] = {}
        for key in self.keys:
            counts[key] = counts.get(key, 0) + 1
        once = [i for i, key in enumerate(self.keys) if counts[key] == 1 and len(key) >= 4]
        return {self.keys[i]: i for i in sorted(once, key=lambda i: -len(self.keys[i]))[:MAX_LANDMARKS]}


@dataclass
class Taught:
    """An example: the values one document holds and the design they were found on."""

    fields: dict[str, TaughtField | None]
    pages: list[TaughtPage] = field(default_factory=list)

    def page(self, number: int) -> TaughtPage | None:
        return next((p for p in self.pages if p.page == number), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "fields": {name: f.to_json() if f else None for name, f in self.fields.items()},
            "pages": [
                {
                    "page": p.page,
                    "width": p.width,
                    "height": p.height,
                    "anchors": [[a.text, *a.box] for a in p.anchors],
                }
                for p in self.pages
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Taught:
        if data.get("version") != VERSION:
            raise ValueError(f"unknown example version {data.get('version')!r}")
        return cls(
            fields={
                name: TaughtField.from_json(f) if f is not None else None
                for name, f in data["fields"].items()
            },
            pages=[
                TaughtPage(
                    page=int(p["page"]),
                    width=float(p["width"]),
                    height=float(p["height"]),
                    anchors=[Anchor(str(a[0]), [float(v) for v in a[1:5]]) for a in p["anchors"]],
                )
                for p in data["pages"]
            ],
        )
