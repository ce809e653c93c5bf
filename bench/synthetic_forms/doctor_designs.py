"""Dev designs on how forms name the patient's own doctor (and a few other presentations).

`doctor_sections`: the doctor in a section of its own ("Primary Care Physician", "Physician
Information") whose "Last Name" / "First Name" fields are the doctor's, not the patient's; or
one line after "Physician's name (Last, First)", "Family doctor", "Name of physician", "PCP"
with dot leaders or a colon, a referring or dental doctor beside; the patient's birth date as
"Birthdate", the sex as words ticked, the insurer as "Name of insurance company".
`doctor_table`: a table of doctors (rows Primary care / Referring / Specialist, columns Name /
Phone), the patient's name and birth date with captions under the line, "Gender" circled.
"""

from __future__ import annotations

from bench.synthetic_forms.canvas import Canvas
from bench.synthetic_forms.designs import _table, date_text, letterhead, person_text, under_row
from bench.synthetic_forms.people import FIRST_FEMALE, FIRST_MALE, LAST, Doctor, Patient

#: What forms call the patient's own doctor on a line of its own.
DOCTOR_LABELS = (
    "Family doctor", "Your doctor", "Doctor's name", "Name of physician", "PCP", "Primary physician",
    "Physician", "Primary care provider",
)  # fmt: skip
#: Headings of a section holding only the doctor's facts.
DOCTOR_HEADINGS = (
    "Primary Care Physician",
    "Physician Information",
    "Your Primary Doctor",
    "PCP Information",
)


NAME_STYLES = 6


def _name_of(doctor: Doctor, style: int) -> str:
    """The doctor's name as forms write it: titles and credentials around it, either order."""
    if style == 0:
        return f"Dr. {doctor.first} {doctor.last}"
    if style == 1:
        return f"{doctor.first} {doctor.last}, {doctor.credential}"
    if style == 2:
        return f"{doctor.last}, {doctor.first}, {doctor.credential}"
    if style == 3:
        return f"Dr. {doctor.last}"
    if style == 4:
        dotted = ".".join(doctor.credential) + "." if doctor.credential in ("MD", "DO") else doctor.credential
        return f"{doctor.first} {doctor.last}, {dotted}"
    return f"{doctor.first} {doctor.last} ({doctor.credential})"


def _leader_row(c: Canvas, label: str, value: str, dots: bool) -> None:
    """`label ........ value` (dot leaders to a fixed column) or `label: value`."""
    if dots:
        end = c.text(c.left, c.y, label + " ")
        column = c.left + 190
        dot_w = c.width(".")
        count = max(int((column - end) / dot_w), 4)
        end = c.text(end, c.y, "." * count)
        c.text(end + 4, c.y, c.value(value))
    else:
        end = c.text(c.left, c.y, f"{label}:")
        c.text(end + 6, c.y, c.value(value))
    c.y += c.style.line_gap


def _pairs(c: Canvas, items: list[tuple[str, str]]) -> None:
    """`Label: value` pairs across one line."""
    x = c.left
    share = (c.right - c.left) / len(items)
    for label, value in items:
        end = c.text(x, c.y, f"{label}:")
        if value:
            c.text(end + 5, c.y, c.value(value))
        x += share
    c.y += c.style.line_gap


def _ticked(c: Canvas, label: str, options: list[str], chosen: str) -> None:
    end = c.text(c.left, c.y, f"{label}:")
    c.choice(end + 10, c.y, options, chosen, c.rng.choice(("tick", "cross", "xtext")))
    c.y += c.style.line_gap


def _patient_block(c: Canvas, p: Patient) -> None:
    rng = c.rng
    c.heading(rng.choice(("Patient Information", "About You", "PATIENT")))
    _pairs(c, [("Last Name", p.last), ("First Name", p.first), ("Middle Name", p.middle or "")])
    _pairs(c, [(rng.choice(("Birthdate", "Birth Date", "Date of Birth")), date_text(p.dob, rng)),
               ("Email", p.email)])  # fmt: skip
    _ticked(c, rng.choice(("Sex", "Gender", "Sex at birth")), ["Male", "Female"], p.gender)
    _pairs(c, [("Address", p.address.street), ("City", p.address.city)])
    _pairs(c, [("State", p.address.state), ("Zip", p.address.zip), ("Cell Phone", p.cell)])


def _insurance_block(c: Canvas, p: Patient) -> None:
    rng = c.rng
    c.heading(rng.choice(("Insurance", "Insurance Information")))
    label = rng.choice(("Name of insurance company", "Primary insurance", "Insurance carrier", "Health plan"))
    _pairs(c, [(label, p.insurer)])
    _pairs(c, [("Member ID", p.policy), ("Group No.", p.group or "")])
    holder = person_text(p.subscriber) if p.subscriber else "Self"
    _pairs(c, [("Policy holder", holder)])


def _other_doctor(c: Canvas, p: Patient) -> tuple[str, Doctor]:
    rng = c.rng
    if rng.random() < 0.5:
        return "Referring physician", p.referring
    return "Dentist", Doctor(rng.choice(FIRST_MALE + FIRST_FEMALE), rng.choice(LAST), "DDS")


def doctor_sections(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.6:
        letterhead(c, p)
    c.heading(rng.choice(("New Patient Registration", "Patient Intake")))
    _patient_block(c, p)
    _insurance_block(c, p)
    style = rng.randrange(3)
    other_label, other = _other_doctor(c, p)
    if style == 0:
        # A section of the doctor's own: its plain "Last Name" is the doctor's.
        c.heading(rng.choice(DOCTOR_HEADINGS))
        fields = [("Last Name", p.pcp.last), ("First Name", p.pcp.first)]
        if rng.random() < 0.5:
            fields.reverse()
        if rng.random() < 0.4:
            fields = [("Name", _name_of(p.pcp, rng.randrange(NAME_STYLES)))]
        _pairs(c, fields)
        _pairs(c, [("Phone", p.clinic_phone)])
        c.heading(rng.choice(("Other Providers", "Referral")))
        _pairs(c, [(other_label, _name_of(other, rng.randrange(NAME_STYLES)))])
    elif style == 1:
        # One combined line: "Physician's name (Last, First)".
        c.heading(rng.choice(("Physicians", "Care Team")))
        label = rng.choice(
            ("Physician's name (Last, First)", "Doctor (Last, First)", "PCP Name (Last, First)")
        )
        _pairs(c, [(label, f"{p.pcp.last}, {p.pcp.first}")])
        _pairs(c, [(other_label, _name_of(other, rng.randrange(NAME_STYLES)))])
    else:
        # One line each, with dot leaders or a colon.
        c.heading(rng.choice(("Physicians", "Medical Care")))
        dots = rng.random() < 0.6
        rows = [(rng.choice(DOCTOR_LABELS), _name_of(p.pcp, rng.randrange(NAME_STYLES))),
                (other_label, _name_of(other, rng.randrange(NAME_STYLES)))]  # fmt: skip
        if rng.random() < 0.4:
            rows.reverse()
        for label, value in rows:
            _leader_row(c, label, value, dots)
    e = p.emergency
    c.heading("Emergency Contact")
    _pairs(c, [("Name", person_text(e)), ("Phone", e.phone)])


def doctor_table(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.7:
        letterhead(c, p)
    c.heading(rng.choice(("PATIENT REGISTRATION", "Registration Form")))
    middle = p.middle or ""
    under_row(c, [("Last Name", p.last, 0.4), ("First Name", p.first, 0.35), ("Middle Name", middle, 0.25)])
    under_row(c, [("Birth Date", date_text(p.dob, rng), 0.35), ("Cell Phone", p.cell, 0.3),
                  ("Email", p.email, 0.35)])  # fmt: skip
    end = c.text(c.left, c.y, "Gender:")
    c.choice(end + 10, c.y, ["Male", "Female", "Other"], p.gender, "circle")
    c.y += c.style.line_gap
    under_row(c, [("Street", p.address.street, 0.45), ("City", p.address.city, 0.25),
                  ("State", p.address.state, 0.1), ("Zip", p.address.zip, 0.2)])  # fmt: skip
    c.heading("Insurance")
    under_row(c, [("Insurance Company Name", p.insurer, 0.45), ("ID Number", p.policy, 0.3),
                  ("Group", p.group or "", 0.25)])  # fmt: skip
    c.heading(rng.choice(("Your Doctors", "Physicians", "Care Providers")))
    if rng.random() < 0.5:
        _doctor_under(c, p)
    else:
        _doctor_rows(c, p)
    e = p.emergency
    c.heading("Emergency Contact")
    under_row(c, [("Name", person_text(e), 0.5), ("Phone", e.phone, 0.5)])


def _doctor_under(c: Canvas, p: Patient) -> None:
    """The doctor typed on a line, captioned under it: the parts apart or one combined caption."""
    rng = c.rng
    d = p.pcp
    if rng.random() < 0.5:
        caption = rng.choice(("Physician Last Name", "Doctor's Last Name", "PCP Last Name"))
        under_row(c, [(caption, d.last, 0.35), (caption.replace("Last", "First"), d.first, 0.35),
                      ("Phone", p.clinic_phone, 0.3)])  # fmt: skip
    else:
        caption = rng.choice(
            ("Primary Physician (Last, First)", "Family Doctor (Last, First)", "PCP (Last, First)")
        )
        value = f"{d.last}, {d.first}" if rng.random() < 0.6 else f"{d.last} {d.first}"
        under_row(c, [(caption, value, 0.6), ("Phone", p.clinic_phone, 0.4)])
    r = p.referring
    under_row(c, [("Referring Physician", _name_of(r, rng.randrange(NAME_STYLES)), 0.6),
                  ("Phone", p.pharmacy_phone, 0.4)])  # fmt: skip


def _doctor_rows(c: Canvas, p: Patient) -> None:
    """A table of doctors: rows of their kinds, columns Name and Phone."""
    rng = c.rng
    dentist = Doctor(rng.choice(FIRST_MALE + FIRST_FEMALE), rng.choice(LAST), "DDS")
    rows: list[tuple[str, Doctor, str]] = [
        ("Primary care", p.pcp, p.clinic_phone), ("Referring", p.referring, p.pharmacy_phone),
        ("Dentist", dentist, p.home),
    ]  # fmt: skip
    rng.shuffle(rows)
    body = [[kind, _name_of(doctor, rng.randrange(NAME_STYLES)), phone] for kind, doctor, phone in rows]
    _table(c, ["Doctor", "Name", "Phone"], [0.25, 0.45, 0.3], body, size=c.style.size * 0.9)


#: Ways a form asks for the patient's own doctor in a line of its own, question or label.
DOCTOR_QUESTIONS = (
    "Who is your primary care doctor?", "General Practitioner", "GP", "Primary Care Doctor",
    "Personal physician", "Family Physician", "Physician's Name",
)  # fmt: skip


def doctor_variants(c: Canvas, p: Patient) -> None:
    """A guarantor's section before the patient's, then the doctors in one of several ways: two on
    one line, a question, grid cells with captions, or a section with the doctor's name and phone."""
    rng = c.rng
    if rng.random() < 0.5:
        letterhead(c, p)
    c.heading(rng.choice(("Registration", "Patient Intake Form")))
    g = p.guarantor
    c.heading(rng.choice(("Guarantor Information", "Responsible Party")))
    _pairs(c, [("Last Name", g.last), ("First Name", g.first)])
    year, month, day = g.dob
    _pairs(c, [("Date of Birth", f"{month:02d}/{day:02d}/{year}"), ("Phone", g.phone)])
    c.heading(rng.choice(("Patient Information", "Patient")))
    middle = p.middle or ""
    _pairs(
        c, [("Last Name", p.last), ("First Name", p.first), ("MI" if len(middle) == 1 else "Middle", middle)]
    )
    _pairs(c, [("DOB", date_text(p.dob, rng)), ("Email", p.email)])
    _ticked(c, "Sex", ["M", "F"], p.gender[0])
    _pairs(c, [("Address", p.address.street), ("City", p.address.city)])
    _pairs(c, [("State", p.address.state), ("Zip", p.address.zip), ("Mobile", p.cell)])
    c.heading("Insurance")
    _pairs(c, [("Carrier", p.insurer), ("Policy #", p.policy)])
    _pairs(
        c, [("Group #", p.group or ""), ("Insured", person_text(p.subscriber) if p.subscriber else "Self")]
    )
    style = rng.randrange(4)
    pcp = _name_of(p.pcp, rng.randrange(NAME_STYLES))
    ref = _name_of(p.referring, rng.randrange(NAME_STYLES))
    if style == 0:
        c.heading(rng.choice(("Physicians", "Your Doctors")))
        items = [("Primary", pcp), ("Referring", ref)]
        if rng.random() < 0.4:
            items.reverse()
        _pairs(c, items)
    elif style == 1:
        c.heading("Medical")
        _leader_row(c, rng.choice(DOCTOR_QUESTIONS), pcp, rng.random() < 0.5)
        _leader_row(c, "Referred by", ref, False)
    elif style == 2:
        c.heading("Care Providers")
        h = c.style.size * 2.8
        mid = (c.left + c.right) / 2
        cells = [("Primary Care Physician", pcp), ("Referring Physician", ref)]
        if rng.random() < 0.5:
            cells.reverse()
        for (caption, value), (x0, x1) in zip(cells, ((c.left, mid), (mid, c.right)), strict=True):
            c.cell(x0, c.y, x1, c.y + h, caption, c.value(value))
        c.y += h + c.style.line_gap
    else:
        c.heading(rng.choice(("Primary Care", "Primary Care Provider")))
        _pairs(c, [("Physician's Name", pcp), ("Phone", p.clinic_phone)])
        c.heading("Referring Provider")
        _pairs(c, [("Name", ref), ("Phone", p.pharmacy_phone)])
    e = p.emergency
    c.heading("Emergency Contact")
    _pairs(c, [("Name", person_text(e)), ("Relationship", e.relationship), ("Phone", e.phone)])


def leaders_under(c: Canvas, p: Patient) -> None:
    """Every field after dot leaders, or typed on a line over a caption that combines parts
    ("Name (Last, First, Middle)", "Sex (M/F)"); a guarantor's block among them."""
    rng = c.rng
    if rng.random() < 0.6:
        letterhead(c, p)
    c.heading(rng.choice(("Patient Registration", "New Patient Information")))
    middle = p.middle or ""
    dob = date_text(p.dob, rng)
    holder = person_text(p.subscriber) if p.subscriber else "Self"
    pcp = _name_of(p.pcp, rng.randrange(NAME_STYLES))
    if rng.random() < 0.5:
        dots = rng.random() < 0.7
        rows = [
            ("Last name", p.last), ("First name", p.first), ("Middle name", middle),
            ("Date of birth (mm/dd/yyyy)", dob), ("Sex (M/F)", p.gender[0] if rng.random() < 0.5 else p.gender),
            ("Street address", p.address.street), ("City", p.address.city), ("State", p.address.state),
            ("Zip code", p.address.zip), ("Cell phone", p.cell), ("E-mail", p.email),
            ("Insurance company", p.insurer), ("Member ID", p.policy), ("Group number", p.group or ""),
            ("Policy holder", holder), (rng.choice(("Primary care physician", "Family doctor")), pcp),
            ("Referring physician", _name_of(p.referring, rng.randrange(NAME_STYLES))),
        ]  # fmt: skip
        for label, value in rows:
            _leader_row(c, label, value, dots)
            c.y -= c.style.line_gap * 0.3
        return
    name = f"{p.last}, {p.first}" + (f" {middle}" if middle else "")
    under_row(c, [("Name (Last, First, Middle)", name, 0.65), ("Sex (M/F)", p.gender[0], 0.35)])
    under_row(
        c, [("Date of Birth (MM/DD/YYYY)", dob, 0.4), ("Cell Phone", p.cell, 0.3), ("Email", p.email, 0.3)]
    )
    a = p.address
    under_row(c, [("Street", a.street, 0.45), ("City, State ZIP", f"{a.city}, {a.state} {a.zip}", 0.55)])
    g = p.guarantor
    c.heading("Guarantor")
    year, month, day = g.dob
    under_row(c, [("Name (Last, First)", f"{g.last}, {g.first}", 0.5),
                  ("Date of Birth", f"{month:02d}/{day:02d}/{year}", 0.5)])  # fmt: skip
    c.heading("Insurance")
    under_row(
        c,
        [("Insurance Company", p.insurer, 0.4), ("Member ID", p.policy, 0.3), ("Group", p.group or "", 0.3)],
    )
    c.heading(rng.choice(("Physicians", "Care Team")))
    ref = p.referring
    under_row(c, [("Primary Care Physician (Last, First)", f"{p.pcp.last}, {p.pcp.first}", 0.5),
                  ("Referring Physician (Last, First)", f"{ref.last}, {ref.first}", 0.5)])  # fmt: skip
