"""Intake-form designs kept back for `bench/examples.py`: written for it, never tuned on.

Unlike `bench.synthetic_forms`, whose designs draw their style and wording per document, each
design here is one fixed form (one style, one wording, one layout) that many people fill in, as a
clinic's own form is: the setting examples are for. Values vary per person; nothing else does.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bench.synthetic_forms.canvas import PAGE_HEIGHT, PAGE_WIDTH, Canvas, Style, pymupdf
from bench.synthetic_forms.designs import colon_row, under_row
from bench.synthetic_forms.people import Patient, make_patient


def _dob(p: Patient, form: str) -> str:
    year, month, day = p.dob
    return {"mdy": f"{month:02d}/{day:02d}/{year}", "digits": f"{month:02d}{day:02d}{year}"}[form]


def two_columns(c: Canvas, p: Patient) -> None:
    """Colon labels two to a row, sex ticked in boxes, the doctor at the foot."""
    c.text(c.left, c.y, "Lakeshore Family Practice", size=16, bold=True)
    c.y += 22
    c.text(c.left, c.y, "New patient registration - please print", size=9)
    c.y += 26
    colon_row(c, [("First Name", p.first), ("Last Name", p.last)])
    colon_row(c, [("Middle Name", p.middle or ""), ("Date of Birth", _dob(p, "mdy"))])
    c.text(c.left, c.y, "Sex:")
    c.choice(c.left + 40, c.y, ["Male", "Female"], p.gender, "cross")
    c.y += c.style.line_gap
    colon_row(c, [("Mobile Phone", p.cell), ("Email", p.email)])
    colon_row(c, [("Street Address", p.address.street)])
    colon_row(c, [("City", p.address.city), ("State", p.address.state), ("ZIP", p.address.zip)])
    c.heading("Insurance")
    colon_row(c, [("Insurance Company", p.insurer)])
    colon_row(c, [("Member ID", p.policy), ("Group No", p.group or "")])
    colon_row(c, [("Primary Care Doctor", f"Dr. {p.pcp.first} {p.pcp.last}")])
    c.y += 30
    c.text(c.left, c.y, "I authorize release of information needed to process claims.", size=8)


def captions_under(c: Canvas, p: Patient) -> None:
    """Values on ruled lines with captions under them; the name as `Last, First`; the birth date
    one digit per box; sex as M or F."""
    c.text(c.left, c.y, "NORTHGATE ORTHOPEDIC CENTER", size=14, bold=True)
    c.y += 30
    c.heading("Patient")
    under_row(c, [("Name (Last, First)", f"{p.last}, {p.first}", 0.6), ("Middle", p.middle or "", 0.4)])
    c.text(c.left, c.y, "Birth date (MMDDYYYY)")
    c.boxes(c.left + 120, c.y, _dob(p, "digits"), c.style.size * 1.4)
    c.text(c.left + 320, c.y, "Sex")
    c.choice(c.left + 350, c.y, ["M", "F"], p.gender[0], "cross")
    c.y += c.style.line_gap * 1.3
    under_row(
        c,
        [
            ("Home address", p.address.street, 0.5),
            ("City", p.address.city, 0.3),
            ("State", p.address.state, 0.2),
        ],
    )
    under_row(
        c, [("ZIP code", p.address.zip, 0.25), ("Cell", p.cell, 0.35), ("E-mail address", p.email, 0.4)]
    )
    c.heading("Coverage")
    under_row(
        c, [("Carrier", p.insurer, 0.5), ("Policy number", p.policy, 0.3), ("Group", p.group or "", 0.2)]
    )
    under_row(c, [("Referring or family physician", f"{p.pcp.first} {p.pcp.last}, {p.pcp.credential}", 1.0)])


def header_grid(c: Canvas, p: Patient) -> None:
    """A ruled grid: a header row of labels over a row of values, three grids down the page."""

    def grid(labels: list[str], values: list[str], widths: list[float]) -> None:
        x = c.left
        top = c.y
        for label, value, width in zip(labels, values, widths, strict=True):
            w = (c.right - c.left) * width
            c.rect(x, top, x + w, top + 34)
            c.text(x + 3, top + 10, label, size=7)
            c.text(x + 3, top + 27, c.value(value))
            x += w
        c.y = top + 44

    c.text(c.left, c.y, "Summit Pediatrics and Adult Care", size=15, bold=True)
    c.y += 28
    grid(
        ["PATIENT LAST NAME", "FIRST NAME", "MIDDLE", "SEX (M/F)"],
        [p.last, p.first, p.middle or "", p.gender[0]],
        [0.35, 0.3, 0.2, 0.15],
    )
    grid(["DATE OF BIRTH", "CELL PHONE", "EMAIL"], [_dob(p, "mdy"), p.cell, p.email], [0.25, 0.3, 0.45])
    grid(
        ["ADDRESS", "CITY", "ST", "ZIP"],
        [p.address.street, p.address.city, p.address.state, p.address.zip],
        [0.4, 0.3, 0.1, 0.2],
    )
    grid(
        ["INSURANCE PLAN", "SUBSCRIBER ID", "GROUP #"],
        [p.insurer, p.policy, p.group or ""],
        [0.45, 0.35, 0.2],
    )
    grid(["PRIMARY PHYSICIAN"], [f"{p.pcp.last}, {p.pcp.first}"], [1.0])


def _widget(c: Canvas, name: str, rect: tuple[float, float, float, float], value: str | bool) -> None:
    widget = pymupdf.Widget()
    widget.field_name = name
    widget.rect = pymupdf.Rect(*rect)
    if isinstance(value, bool):
        widget.field_type = pymupdf.PDF_WIDGET_TYPE_CHECKBOX
        widget.field_value = value
    else:
        widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
        widget.field_value = value
        widget.text_fontsize = 9
    c.page.add_widget(widget)


def fillable_claim(c: Canvas, p: Patient) -> None:
    """A fillable claim form: labels left of boxed widgets, the name `Last, First` in one widget
    and `City, ST ZIP` in another, sex as two check boxes. Kept fillable, flattened, or printed
    and scanned: the setting of a real insurer's form."""
    c.text(c.left, c.y, "Meridian Mutual Health - Member Claim Form", size=14, bold=True)
    c.y += 24
    c.text(c.left, c.y, "Part A. Member information (type or print)", size=9)
    c.y += 22
    x = c.left + 130
    right = c.right

    def row(label: str, name: str, value: str, x1: float = right) -> None:
        c.text(c.left, c.y, label)
        c.rect(x, c.y - 12, x1, c.y + 4)
        _widget(c, name, (x, c.y - 12, x1, c.y + 4), value)
        c.y += 26

    row("Member name (Last, First)", "name", f"{p.last}, {p.first}")
    row("Middle name", "middle", p.middle or "")
    row("Date of birth", "dob", _dob(p, "mdy"), x + 120)
    c.text(c.left, c.y, "Sex")
    for i, option in enumerate(("Male", "Female")):
        left = x + 70 * i
        _widget(c, f"sex_{option.lower()}", (left, c.y - 10, left + 10, c.y), p.gender == option)
        c.text(left + 14, c.y, option)
    c.y += 26
    row("Street address", "street", p.address.street)
    row("City, State ZIP", "csz", f"{p.address.city}, {p.address.state} {p.address.zip}")
    row("Daytime phone", "phone", p.cell, x + 160)
    row("Email", "email", p.email)
    c.heading("Part B. Coverage")
    row("Plan name", "plan", p.insurer)
    row("Member ID", "member", p.policy, x + 160)
    row("Group number", "group", p.group or "", x + 160)
    row("Treating provider", "provider", f"Dr. {p.pcp.first} {p.pcp.last}")
    c.y += 20
    c.text(c.left, c.y, "I certify that the information above is true and complete.", size=8)


def stacked_boxes(c: Canvas, p: Patient) -> None:
    """Written after every fix of the example reading and measured once (held back): a caption
    over each boxed value, the whole name `First Middle Last` on one line, `City ST ZIP` with no
    commas, the birth date in words, the sex as a typed word, a landscape-ish two-box layout."""
    year, month, day = p.dob
    months = ["January", "February", "March", "April", "May", "June", "July", "August"]
    months += ["September", "October", "November", "December"]

    def box(x0: float, x1: float, caption: str, value: str) -> None:
        c.rect(x0, c.y, x1, c.y + 30)
        c.text(x0 + 3, c.y + 9, caption, size=6.5)
        c.text(x0 + 4, c.y + 24, c.value(value))

    mid = (c.left + c.right) / 2
    c.text(c.left, c.y, "Cedar Ridge Sleep & Lung Institute", size=15, bold=True)
    c.y += 20
    c.text(c.left, c.y, "Patient demographic sheet - office use: chart no. ________", size=8)
    c.y += 16
    box(
        c.left,
        c.right,
        "PATIENT FULL NAME (FIRST MIDDLE LAST)",
        " ".join(n for n in (p.first, p.middle, p.last) if n),
    )
    c.y += 38
    box(c.left, mid - 4, "BIRTH DATE", f"{months[month - 1]} {day}, {year}")
    box(mid + 4, c.right, "SEX", p.gender)
    c.y += 38
    box(c.left, c.right, "HOME STREET", p.address.street)
    c.y += 38
    box(c.left, c.right, "CITY STATE ZIP", f"{p.address.city} {p.address.state} {p.address.zip}")
    c.y += 38
    box(c.left, mid - 4, "MOBILE", p.cell)
    box(mid + 4, c.right, "E-MAIL", p.email)
    c.y += 38
    box(c.left, mid - 4, "HEALTH PLAN", p.insurer)
    box(mid + 4, c.right, "PLAN MEMBER NUMBER", p.policy)
    c.y += 38
    box(c.left, mid - 4, "PLAN GROUP", p.group or "")
    box(mid + 4, c.right, "REFERRED BY", f"{p.pcp.first} {p.pcp.last}, {p.pcp.credential}")
    c.y += 50
    c.text(c.left, c.y, "Bring this sheet and a photo ID to every sleep study appointment.", size=8)


DESIGNS: dict[str, Callable[[Canvas, Patient], None]] = {
    "two_columns": two_columns,
    "captions_under": captions_under,
    "header_grid": header_grid,
    "fillable_claim": fillable_claim,
    "stacked_boxes": stacked_boxes,
}
#: Designs written after the reading was last changed, to judge it on: measured, never tuned on.
HELD_BACK = frozenset({"stacked_boxes"})
#: Designs whose documents are fillable PDFs: their later documents also come flattened.
FILLABLE = frozenset({"fillable_claim"})


def render(design: str, person: int) -> tuple[Any, Patient]:
    """The design filled for person number `person`: an open PyMuPDF document and the patient."""
    patient = make_patient(random.Random(f"examples:{design}:{person}"))
    pdf = pymupdf.open()
    page = pdf.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
    # One style per design: the same form every time.
    style_rng = random.Random(f"style:{design}")
    DESIGNS[design](Canvas(page, Style.draw(style_rng), style_rng), patient)
    return pdf, patient
