"""Intake forms built in code for the examples' tests: one design, any person, placed on the page
with any shift, scale and small rotation, and with OCR-like slips in its printed words."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from extraction.formats.document import Box, Document, Element, Line, Page


@dataclass
class Person:
    first: str = "Jane"
    last: str = "Doe"
    dob: str = "03/14/1985"
    phone: str = "(555) 123-4567"
    sex: str = "F"
    email: str = "jane.doe@example.com"
    zip: str = "97201"
    copay: str = "$25.00"
    extra: list[tuple[str, float, float]] = field(default_factory=list)


@dataclass
class Placement:
    dx: float = 0.0
    dy: float = 0.0
    scale: float = 1.0
    #: Degrees, about the page's top left corner.
    turn: float = 0.0
    source: str = "text_layer"
    confidence: float = 1.0
    #: Printed word -> how OCR misread it.
    slips: dict[str, str] = field(default_factory=dict)


class FormCanvas:
    """Writes words at design coordinates (600 x 800) onto a page placed by `Placement`."""

    def __init__(self, placement: Placement) -> None:
        self.at = placement
        size = 800 * placement.scale
        self.doc = Document(
            "form.pdf", "pdf", [Page(1, size * 0.75, size, placement.confidence, placement.source)]
        )  # type: ignore[arg-type]

    def _point(self, x: float, y: float) -> tuple[float, float]:
        turn = math.radians(self.at.turn)
        s = self.at.scale
        return (
            s * (x * math.cos(turn) - y * math.sin(turn)) + self.at.dx,
            s * (x * math.sin(turn) + y * math.cos(turn)) + self.at.dy,
        )

    def word(self, text: str, x: float, y: float) -> None:
        text = self.at.slips.get(text, text)
        cx, cy = self._point(x + 4 * len(text), y + 7)
        half_w, half_h = 4 * len(text) * self.at.scale, 7 * self.at.scale
        box = Box(cx - half_w, cy - half_h, cx + half_w, cy + half_h)
        self.doc.elements.append(
            Element(
                id=f"e{len(self.doc.elements)}",
                type="text",
                page=1,
                text=text,
                box=box,
                confidence=self.at.confidence,
                source=self.at.source,  # type: ignore[arg-type]
                lines=[Line(text, box, self.at.confidence)],
            )
        )

    def words(self, text: str, x: float, y: float) -> None:
        for word in text.split():
            self.word(word, x, y)
            x += 8 * len(word) + 8

    def widget(self, name: str, value: str, x0: float, y0: float, x1: float, y1: float) -> None:
        a, b = self._point(x0, y0), self._point(x1, y1)
        self.doc.elements.append(
            Element(
                id=f"e{len(self.doc.elements)}",
                type="form_field",
                page=1,
                text=value,
                box=Box(a[0], a[1], b[0], b[1]),
                source="form_fields",
                field_name=name,
            )
        )


def intake(person: Person, placement: Placement | None = None) -> Document:
    """The intake form of design A filled for `person`."""
    canvas = FormCanvas(placement or Placement())
    canvas.words("Riverside Clinic Patient Intake Form", 50, 20)
    canvas.words("Please print clearly and complete every section", 50, 40)
    canvas.words("Last Name:", 50, 80)
    canvas.words(person.last, 150, 80)
    canvas.words("First Name:", 320, 80)
    canvas.words(person.first, 420, 80)
    canvas.words("Date of Birth:", 50, 120)
    canvas.words(person.dob, 170, 120)
    canvas.words("Home Phone:", 320, 120)
    canvas.words(person.phone, 420, 120)
    canvas.words("Sex:", 50, 160)
    canvas.word("\u2612" if person.sex == "M" else "\u2610", 100, 160)
    canvas.word("Male", 115, 160)
    canvas.word("\u2610" if person.sex == "M" else "\u2612", 170, 160)
    canvas.word("Female", 185, 160)
    canvas.words("Email Address:", 320, 160)
    canvas.words(person.email, 440, 160)
    canvas.words("ZIP Code:", 50, 200)
    canvas.words(person.zip, 130, 200)
    canvas.words("Copay Amount:", 320, 200)
    canvas.words(person.copay, 440, 200)
    canvas.words("Emergency contact and insurance details follow below", 50, 260)
    canvas.words("Insurance Company Policy Number Group Number", 50, 300)
    canvas.words("Signature of patient or guardian Date signed", 50, 700)
    for text, x, y in person.extra:
        canvas.words(text, x, y)
    return canvas.doc


def other_design(person: Person) -> Document:
    """A different design asking for the same things: other wording, other places."""
    canvas = FormCanvas(Placement())
    canvas.words("Valley Health Registration", 60, 30)
    canvas.words("Patient name (last, first)", 60, 90)
    canvas.words(f"{person.last}, {person.first}", 60, 110)
    canvas.words("Birth date", 330, 90)
    canvas.words(person.dob, 330, 110)
    canvas.words("Telephone", 60, 160)
    canvas.words(person.phone, 60, 180)
    canvas.words("Gender", 330, 160)
    canvas.words("Male" if person.sex == "M" else "Female", 330, 180)
    canvas.words("Responsible party and billing address", 60, 260)
    canvas.words("I certify the above is true and correct", 60, 650)
    return canvas.doc


TRUTH = {
    "first_name": "Jane",
    "last_name": "Doe",
    "date_of_birth": "1985-03-14",
    "phone": "555-123-4567",
    "gender": "F",
    "email": "jane.doe@example.com",
    "zip": "97201",
    "copay_amount": "25.00",
}
