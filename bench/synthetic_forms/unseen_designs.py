"""Unseen designs: written before the extraction rules were read, to test whether they generalise.

Each is an ordinary intake form unlike the dev and held-out designs. Three are tuned on
(`UNSEEN_TUNE` in `generate.py`); the other three never are, and only their aggregate is looked at.

`stacked_labels`: a small label above each value, no box and no rule, in columns; labels from
common synonyms ("Birthdate", "Mobile", "Postal Code", "Member ID", "PCP").
`underscore_typed`: `Label ____value____` as a word processor types it, or the value laid over a
run of underscores. `bilingual`: English and Spanish labels, inline (`City / Ciudad:`) or stacked.
`shaded_table`: a ruled table, shaded label cells beside value cells, the name in one cell
(First, Middle, Last). `split_dob_pages`: the birth date as separate Month / Day / Year boxes, sex
as filled squares, the insurance and doctors on a second page. `numbered_items`: numbered
questions with the label above a box, choices typed as `[X]`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.synthetic_forms.canvas import PAGE_HEIGHT, PAGE_WIDTH, Canvas, pymupdf
from bench.synthetic_forms.designs import date_text, doctor_text, letterhead, person_text
from bench.synthetic_forms.people import Patient

#: Shade of a label cell in a ruled table (light grey, as printed forms use).
SHADE = (0.85, 0.85, 0.85)


def _holder(p: Patient) -> str:
    return "Self" if p.subscriber is None else person_text(p.subscriber)


def _stacked(c: Canvas, items: Sequence[tuple[str, str, float]]) -> None:
    """Each label small above its value, across one row; no box, no rule."""
    x = c.left
    span = c.right - c.left
    label_size = c.style.caption_size + 1
    for label, value, share in items:
        c.text(x, c.y, label, size=label_size, bold=c.rng.random() < 0.5)
        if value:
            c.text(x, c.y + c.style.size * 1.25, c.value(value))
        x += span * share
    c.y += c.style.size * 1.25 + c.style.line_gap


def stacked_labels(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading(rng.choice(("New Patient Information", "Patient Registration")))
    a = p.address
    _stacked(
        c,
        [
            (rng.choice(("Legal First Name", "First Name", "Given Name")), p.first, 0.35),
            ("Middle Name", p.middle or "", 0.25),
            (rng.choice(("Legal Last Name", "Last Name", "Family Name")), p.last, 0.4),
        ],
    )
    _stacked(
        c,
        [
            (rng.choice(("Birthdate", "D.O.B.", "Date of Birth")), date_text(p.dob, rng), 0.35),
            (rng.choice(("Sex", "Sex Assigned at Birth", "Gender")), p.gender, 0.25),
            ("Preferred Language", "English", 0.4),
        ],
    )
    _stacked(c, [(rng.choice(("Street Address", "Address Line 1", "Home Address")), a.street, 1.0)])
    _stacked(
        c,
        [
            ("City", a.city, 0.4),
            (rng.choice(("State", "State/Province")), a.state, 0.25),
            (rng.choice(("Postal Code", "ZIP", "Zip Code")), a.zip, 0.35),
        ],
    )
    phones = [(rng.choice(("Mobile", "Mobile Phone", "Cell")), p.cell, 0.35), ("Home Phone", p.home, 0.3)]
    rng.shuffle(phones)
    _stacked(c, [*phones, ("Email", p.email, 0.35)])
    c.heading(rng.choice(("Insurance", "Coverage")))
    _stacked(
        c,
        [
            (rng.choice(("Carrier", "Insurance Plan", "Health Plan")), p.insurer, 0.4),
            (rng.choice(("Member ID", "Subscriber ID #", "ID Number")), p.policy, 0.35),
            (rng.choice(("Group No.", "Group #", "Group")), p.group or "", 0.25),
        ],
    )
    s = p.subscriber
    _stacked(
        c,
        [
            ("Subscriber Name", _holder(p), 0.4),
            ("Subscriber Date of Birth", date_text(s.dob, rng) if s else "", 0.35),
            ("Relationship", s.relationship if s else "Self", 0.25),
        ],
    )
    c.heading("Physicians")
    doctors = [
        (rng.choice(("PCP", "Primary Care Provider")), doctor_text(p.pcp, rng), 0.5),
        ("Referring Physician", doctor_text(p.referring, rng), 0.5),
    ]
    rng.shuffle(doctors)
    _stacked(c, doctors)
    e = p.emergency
    _stacked(c, [("Emergency Contact", person_text(e), 0.5), ("Contact Phone", e.phone, 0.5)])


def _underscored(c: Canvas, items: Sequence[tuple[str, str]], overlay: bool) -> None:
    """`Label ____value____` pairs across one row: one typed string, or the value over a rule."""
    x = c.left
    share = (c.right - c.left) / len(items)
    for label, value in items:
        value = c.value(value)
        room = share - c.width(label + " ") - 10
        if overlay:
            end = c.text(x, c.y, label + " ")
            count = max(int(room / c.width("_")), 4)
            c.text(end, c.y, "_" * count)
            if value:
                c.text(end + 6, c.y - 1.5, value)
        else:
            pad = max(int((room - c.width(value)) / c.width("_") / 2), 2)
            c.text(x, c.y, f"{label} {'_' * pad}{value}{'_' * pad}")
        x += share
    c.y += c.style.line_gap


def underscore_typed(c: Canvas, p: Patient) -> None:
    rng = c.rng
    overlay = rng.random() < 0.5
    if rng.random() < 0.7:
        letterhead(c, p)
    c.heading(rng.choice(("PATIENT INFORMATION", "Registration Form")))
    _underscored(
        c, [("First Name", p.first), ("Middle Name", p.middle or ""), ("Last Name", p.last)], overlay
    )
    _underscored(c, [(rng.choice(("D.O.B.", "DOB", "Birth Date")), date_text(p.dob, rng))], overlay)
    end = c.text(c.left, c.y, "Sex:")
    c.choice(end + 8, c.y, ["M", "F"], p.gender[0], rng.choice(("filled", "circle", "xtext")))
    c.y += c.style.line_gap
    a = p.address
    _underscored(c, [("Address", a.street)], overlay)
    _underscored(c, [("City", a.city), ("State", a.state), ("Zip", a.zip)], overlay)
    phones = [(rng.choice(("Cell #", "Mobile #", "Cell Phone")), p.cell), ("Home #", p.home)]
    rng.shuffle(phones)
    _underscored(c, phones, overlay)
    _underscored(c, [("E-mail", p.email)], overlay)
    c.heading("INSURANCE")
    _underscored(c, [(rng.choice(("Insurance", "Plan", "Carrier")), p.insurer)], overlay)
    _underscored(
        c,
        [(rng.choice(("Subscriber ID #", "Member ID", "Policy #")), p.policy), ("Group #", p.group or "")],
        overlay,
    )
    _underscored(c, [("Insured's Name", _holder(p))], overlay)
    _underscored(c, [("Primary Care Physician", doctor_text(p.pcp, rng))], overlay)
    _underscored(c, [("Referring Physician", doctor_text(p.referring, rng))], overlay)
    e = p.emergency
    _underscored(c, [("Emergency Contact", person_text(e)), ("Phone", e.phone)], overlay)


#: English and Spanish labels, as clinics serving both print them.
SPANISH = {
    "Last Name": "Apellido",
    "First Name": "Nombre",
    "Middle Name": "Segundo nombre",
    "Date of Birth": "Fecha de nacimiento",
    "Sex": "Sexo",
    "Cell Phone": "Teléfono celular",
    "Home Phone": "Teléfono de casa",
    "Email": "Correo electrónico",
    "Address": "Dirección",
    "City": "Ciudad",
    "State": "Estado",
    "Zip Code": "Código postal",
    "Insurance Company": "Compañía de seguro",
    "Policy Number": "Número de póliza",
    "Group Number": "Número de grupo",
    "Policy Holder": "Titular de la póliza",
    "Primary Doctor": "Médico primario",
    "Emergency Contact": "Contacto de emergencia",
}


def _bilingual(c: Canvas, items: Sequence[tuple[str, str]], stacked: bool) -> None:
    """`English / Spanish: value` pairs, or the Spanish label in small type under the English."""
    x = c.left
    share = (c.right - c.left) / len(items)
    for english, value in items:
        spanish = SPANISH[english]
        if stacked:
            end = c.text(x, c.y, f"{english}:")
            c.text(x, c.y + c.style.caption_size + 2, spanish, size=c.style.caption_size)
        else:
            end = c.text(x, c.y, f"{english} / {spanish}:")
        if value:
            c.text(end + 6, c.y, c.value(value))
        x += share
    c.y += c.style.line_gap + (c.style.caption_size if stacked else 0)


def bilingual(c: Canvas, p: Patient) -> None:
    rng = c.rng
    stacked = rng.random() < 0.5
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading("Patient Information / Información del paciente")
    _bilingual(c, [("Last Name", p.last), ("First Name", p.first)], stacked)
    _bilingual(c, [("Middle Name", p.middle or ""), ("Date of Birth", date_text(p.dob, rng))], stacked)
    end = c.text(c.left, c.y, "Sex / Sexo:")
    options = ["Male / Masculino", "Female / Femenino"]
    chosen = options[0] if p.gender == "Male" else options[1]
    c.choice(end + 10, c.y, options, chosen, rng.choice(("tick", "cross", "filled")))
    c.y += c.style.line_gap
    _bilingual(c, [("Address", p.address.street)], stacked)
    a = p.address
    _bilingual(c, [("City", a.city), ("State", a.state), ("Zip Code", a.zip)], stacked)
    phones = [("Cell Phone", p.cell), ("Home Phone", p.home)]
    rng.shuffle(phones)
    _bilingual(c, phones, stacked)
    _bilingual(c, [("Email", p.email)], stacked)
    c.heading("Insurance / Seguro médico")
    _bilingual(c, [("Insurance Company", p.insurer)], stacked)
    _bilingual(c, [("Policy Number", p.policy), ("Group Number", p.group or "")], stacked)
    _bilingual(c, [("Policy Holder", _holder(p))], stacked)
    _bilingual(c, [("Primary Doctor", doctor_text(p.pcp, rng))], stacked)
    e = p.emergency
    _bilingual(c, [("Emergency Contact", f"{person_text(e)} {e.phone}")], stacked)


def _shaded_row(c: Canvas, cells: Sequence[tuple[str, str]], shares: Sequence[tuple[float, float]]) -> None:
    """A table row of (label, value) pairs: each label in a shaded cell, its value in the next."""
    h = c.style.size * 2.0
    size = c.style.size * 0.85
    x = c.left
    span = c.right - c.left
    for (label, value), (label_share, value_share) in zip(cells, shares, strict=True):
        x1 = x + span * label_share
        c.page.draw_rect(pymupdf.Rect(x, c.y, x1, c.y + h), color=(0, 0, 0), fill=SHADE, width=0.5)
        c.text(x + 3, c.y + h * 0.65, label, size=size, bold=True)
        x2 = x1 + span * value_share
        c.rect(x1, c.y, x2, c.y + h, width=0.5)
        if value:
            c.text(x1 + 4, c.y + h * 0.65, c.value(value), size=size)
        x = x2
    c.y += h


def shaded_table(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading(rng.choice(("PATIENT DEMOGRAPHICS", "Patient Intake")))
    four = ((0.22, 0.28), (0.22, 0.28))
    two = ((0.4, 0.6),)
    name = " ".join(part for part in (p.first, p.middle, p.last) if part)
    _shaded_row(c, [("Patient Name (First, Middle, Last)", name)], two)
    _shaded_row(c, [(rng.choice(("Birthdate", "DOB")), date_text(p.dob, rng)), ("Sex", p.gender)], four)
    _shaded_row(c, [("Mobile Phone", p.cell), ("Home Phone", p.home)], four)
    _shaded_row(c, [("E-mail", p.email)], two)
    a = p.address
    _shaded_row(c, [("Street", a.street)], two)
    _shaded_row(c, [("City", a.city), ("State", a.state)], four)
    _shaded_row(c, [("Postal Code", a.zip), ("Country", "USA")], four)
    c.y += c.style.line_gap * 0.5
    c.heading("INSURANCE")
    _shaded_row(c, [("Carrier", p.insurer), ("Plan Type", rng.choice(("PPO", "HMO", "EPO")))], four)
    _shaded_row(c, [("Member ID", p.policy), ("Group", p.group or "")], four)
    relation = p.subscriber.relationship if p.subscriber else "Self"
    _shaded_row(c, [("Subscriber", _holder(p)), ("Relationship", relation)], four)
    c.y += c.style.line_gap * 0.5
    c.heading("CARE TEAM")
    _shaded_row(
        c, [("PCP", doctor_text(p.pcp, rng)), ("Referring Physician", doctor_text(p.referring, rng))], four
    )
    e = p.emergency
    _shaded_row(c, [("Emergency Contact", person_text(e)), ("Phone", e.phone)], four)


def _boxed_after(c: Canvas, x: float, label: str, value: str, width: float) -> float:
    """`label` then a box of `width` holding the value; returns where the box ends."""
    size = c.style.size
    end = c.text(x, c.y, label)
    c.rect(end + 4, c.y - size * 1.1, end + 4 + width, c.y + size * 0.4, width=0.5)
    if value:
        c.text(end + 7, c.y, c.value(value))
    return end + 4 + width


def split_dob_pages(c: Canvas, p: Patient) -> None:
    """Page one: the patient; the birth date as Month / Day / Year boxes. Page two: insurance."""
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading("Patient Registration - Page 1 of 2")
    gap = c.style.line_gap * 1.1
    x = _boxed_after(c, c.left, "Last Name", p.last, 150)
    x = _boxed_after(c, x + 12, "First Name", p.first, 110)
    c.y += gap
    _boxed_after(c, c.left, "Middle Name", p.middle or "", 120)
    c.y += gap
    year, month, day = p.dob
    end = c.text(c.left, c.y, "Date of Birth:")
    x = _boxed_after(c, end + 8, "Month", f"{month:02d}", 28)
    x = _boxed_after(c, x + 8, "Day", f"{day:02d}", 28)
    _boxed_after(c, x + 8, "Year", str(year), 44)
    c.y += gap
    end = c.text(c.left, c.y, "Sex:")
    c.choice(end + 10, c.y, ["Male", "Female"], p.gender, "filled")
    c.y += gap
    a = p.address
    _boxed_after(c, c.left, "Street Address", a.street, 300)
    c.y += gap
    x = _boxed_after(c, c.left, "City", a.city, 140)
    x = _boxed_after(c, x + 10, "State", a.state, 30)
    _boxed_after(c, x + 10, "Zip", a.zip, 60)
    c.y += gap
    x = _boxed_after(c, c.left, "Mobile", p.cell, 120)
    _boxed_after(c, x + 10, "Work", p.work, 120)
    c.y += gap
    _boxed_after(c, c.left, "Email", p.email, 300)
    c.y += gap
    e = p.emergency
    x = _boxed_after(c, c.left, "In case of emergency notify", person_text(e), 150)
    _boxed_after(c, x + 10, "Phone", e.phone, 110)
    c.page = c.page.parent.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
    c.y = c.style.margin
    c.heading("Insurance Information - Page 2 of 2")
    c.text(c.left, c.y, f"Patient: {p.last}, {p.first}", size=c.style.size * 0.9)
    c.y += gap
    _boxed_after(c, c.left, "Primary Insurance Carrier", p.insurer, 220)
    c.y += gap
    x = _boxed_after(c, c.left, "Subscriber ID #", p.policy, 130)
    _boxed_after(c, x + 10, "Group #", p.group or "", 90)
    c.y += gap
    _boxed_after(c, c.left, "Policy Holder", _holder(p), 200)
    c.y += gap
    _boxed_after(c, c.left, "Secondary Insurance", p.secondary_insurer, 200)
    c.y += gap
    _boxed_after(c, c.left, "Referring Physician", doctor_text(p.referring, rng), 200)
    c.y += gap
    _boxed_after(c, c.left, "Primary Care Physician", doctor_text(p.pcp, rng), 200)
    c.y += gap


def _question(c: Canvas, number: int, items: Sequence[tuple[str, str, float]]) -> None:
    """`n. label` above a box holding the value, several across one row."""
    size = c.style.size
    x = c.left
    span = c.right - c.left
    for k, (label, value, share) in enumerate(items):
        prefix = f"{number}{'abcd'[k]}. " if len(items) > 1 else f"{number}. "
        c.text(x, c.y, prefix + label, size=size * 0.9)
        top = c.y + 3
        c.rect(x, top, x + span * share - 8, top + size * 1.7, width=0.5)
        if value:
            c.text(x + 4, top + size * 1.25, c.value(value))
        x += span * share
    c.y += size * 1.7 + c.style.line_gap


def _typed_choice(c: Canvas, x: float, options: list[str], chosen: str) -> None:
    """Choices as an EHR prints them: `[X] Female  [ ] Male`."""
    for option in options:
        mark = "X" if option == chosen else "  "
        x = c.text(x, c.y, f"[{mark}] {option}") + c.style.size * 1.5


def numbered_items(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.7:
        letterhead(c, p)
    c.heading("Patient Questionnaire")
    _question(
        c, 1, [("Last name", p.last, 0.4), ("First name", p.first, 0.35), ("Middle", p.middle or "", 0.25)]
    )
    year, month, day = p.dob
    _question(c, 2, [("Date of birth (mm/dd/yyyy)", f"{month:02d}/{day:02d}/{year}", 0.5)])
    end = c.text(c.left, c.y, "3. Sex:", size=c.style.size * 0.9)
    options = ["Female", "Male"] if rng.random() < 0.5 else ["Male", "Female"]
    _typed_choice(c, end + 10, options, p.gender)
    c.y += c.style.line_gap
    a = p.address
    _question(c, 4, [("Home address", a.street, 1.0)])
    _question(c, 5, [("City", a.city, 0.45), ("State", a.state, 0.2), ("ZIP", a.zip, 0.35)])
    _question(c, 6, [("Mobile phone", p.cell, 0.5), ("Other phone", p.home, 0.5)])
    _question(c, 7, [("E-mail", p.email, 1.0)])
    _question(
        c,
        8,
        [
            ("Health plan", p.insurer, 0.4),
            ("Subscriber ID", p.policy, 0.35),
            ("Group no.", p.group or "", 0.25),
        ],
    )
    end = c.text(c.left, c.y, "9. Patient is the subscriber:", size=c.style.size * 0.9)
    _typed_choice(c, end + 10, ["Yes", "No"], "Yes" if p.subscriber is None else "No")
    c.y += c.style.line_gap
    _question(
        c,
        10,
        [
            ("Referring physician", doctor_text(p.referring, rng), 0.5),
            ("Primary care physician", doctor_text(p.pcp, rng), 0.5),
        ],
    )
