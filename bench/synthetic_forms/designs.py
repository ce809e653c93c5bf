"""Intake-form designs beyond the corpus's: each draws one patient's form on a `Canvas`.

Every design is a layout a real clinic uses: captions printed under the line the value is typed
on, combined fields ("Name (Last, First MI)"), one character per box, circled or ticked choices,
a claim form's grid of captioned cells, an insurance table with primary and secondary rows, an
EHR print-out, guarantor and spouse sections, two doctors. What each draws varies with the
document's random stream (which decoys, which order, which date and phone styles).

`DEV_DESIGNS` may be looked at and tuned on; `HELD_OUT_DESIGNS` never are: their figures are
reported apart, as a test of rules on designs nobody tuned them for.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bench.synthetic_forms.canvas import Canvas
from bench.synthetic_forms.people import Doctor, Other, Patient

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def date_text(ymd: tuple[int, int, int], rng: random.Random) -> str:
    year, month, day = ymd
    style = rng.randrange(4)
    if style == 0:
        return f"{month:02d}/{day:02d}/{year}"
    if style == 1:
        return f"{month}/{day}/{year}"
    if style == 2:
        return f"{month:02d}-{day:02d}-{year}"
    return f"{MONTHS[month - 1]} {day}, {year}"


def doctor_text(doctor: Doctor, rng: random.Random) -> str:
    style = rng.randrange(3)
    if style == 0:
        return f"Dr. {doctor.first} {doctor.last}"
    if style == 1:
        return f"{doctor.first} {doctor.last}, {doctor.credential}"
    return f"{doctor.last}, {doctor.first} {doctor.credential}"


def person_text(other: Other) -> str:
    return f"{other.first} {other.last}"


def letterhead(c: Canvas, p: Patient) -> None:
    """The clinic's own name, address and phone: decoys for the patient's."""
    size = c.style.size * c.rng.uniform(1.4, 1.8)
    c.text(c.left, c.y + size * 0.4, p.clinic, size=size, bold=True)
    c.y += size * 1.2
    a = p.clinic_address
    c.text(c.left, c.y, f"{a.street}, {a.city}, {a.state} {a.zip}", size=c.style.size * 0.9)
    c.y += c.style.size * 1.3
    c.text(
        c.left,
        c.y,
        f"Tel {p.clinic_phone}    Fax {p.clinic_phone[:-2]}{c.rng.randint(10, 99)}",
        size=c.style.size * 0.9,
    )
    c.y += c.style.line_gap * 1.2


def under_row(c: Canvas, items: Sequence[tuple[str, str | None, float]]) -> None:
    """Values typed on one ruled line, each with its caption printed under its part of the line."""
    x = c.left
    span = c.right - c.left
    baseline = c.y
    for caption, value, share in items:
        width = span * share
        if value:
            c.text(x + 2, baseline, c.value(value))
        c.hline(x, x + width - 8, baseline + 3)
        c.text(x, baseline + 4 + c.style.caption_size, caption, size=c.style.caption_size)
        x += width
    c.y += c.style.line_gap + c.style.caption_size


def colon_row(c: Canvas, items: list[tuple[str, str]]) -> None:
    """`Label: value` pairs spread over one line."""
    x = c.left
    share = (c.right - c.left) / len(items)
    for label, value in items:
        end = c.text(x, c.y, f"{label}:")
        c.text(end + 5, c.y, c.value(value))
        x += share
    c.y += c.style.line_gap


def _middle(p: Patient) -> str:
    return p.middle or ""


def caption_under(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading(rng.choice(("PATIENT REGISTRATION", "Patient Information", "New Patient Intake")))
    under_row(c, [("Last", p.last, 0.4), ("First", p.first, 0.4), ("MI", _middle(p)[:1], 0.2)])
    c.text(c.left, c.y, "Sex:")
    c.choice(c.left + 30, c.y, ["M", "F"], p.gender[0], rng.choice(("circle", "cross", "tick")))
    c.y += c.style.line_gap
    under_row(
        c, [("Date of Birth (MM/DD/YYYY)", date_text(p.dob, rng), 0.5), ("Social Security No.", "", 0.5)]
    )
    under_row(
        c,
        [("Street Address", p.address.street, 0.45), ("City", p.address.city, 0.25),
         ("State", p.address.state, 0.1), ("ZIP", p.address.zip, 0.2)],
    )  # fmt: skip
    phones = [("Home Phone", p.home, 0.33), ("Cell Phone", p.cell, 0.33), ("Work Phone", p.work, 0.34)]
    rng.shuffle(phones)
    under_row(c, phones)
    under_row(c, [("E-mail Address", p.email, 1.0)])
    c.heading("Insurance")
    under_row(
        c,
        [
            ("Insurance Company", p.insurer, 0.45),
            ("Policy / ID Number", p.policy, 0.3),
            ("Group No.", p.group or "", 0.25),
        ],
    )
    holder = person_text(p.subscriber) if p.subscriber else "Self"
    relation = p.subscriber.relationship if p.subscriber else "Self"
    under_row(c, [("Subscriber Name", holder, 0.5), ("Relationship to Patient", relation, 0.5)])
    c.heading("Physicians")
    under_row(
        c,
        [
            ("Primary Care Physician", doctor_text(p.pcp, rng), 0.5),
            ("Referring Physician", doctor_text(p.referring, rng), 0.5),
        ],
    )
    if rng.random() < 0.7:
        c.heading("Emergency Contact")
        e = p.emergency
        under_row(
            c,
            [("Name", person_text(e), 0.4), ("Relationship", e.relationship, 0.25), ("Phone", e.phone, 0.35)],
        )


def combined_fields(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.7:
        letterhead(c, p)
    c.heading(rng.choice(("Patient Intake Form", "REGISTRATION")))
    middle = f" {p.middle}" if p.middle else ""
    colon_row(c, [("Name (Last, First MI)", f"{p.last}, {p.first}{middle}")])
    c.text(c.left, c.y, "Date of Birth:")
    c.text(c.left + c.width("Date of Birth:") + 5, c.y, date_text(p.dob, rng))
    x = c.left + (c.right - c.left) / 2
    end = c.text(x, c.y, "Sex (M/F):")
    c.text(end + 5, c.y, p.gender[0] if rng.random() < 0.6 else p.gender)
    c.y += c.style.line_gap
    colon_row(c, [("Address", p.address.street)])
    a = p.address
    colon_row(c, [("City, State ZIP", f"{a.city}, {a.state} {a.zip}")])
    phones = [("Phone (Cell)", p.cell), ("Phone (Home)", p.home)]
    rng.shuffle(phones)
    colon_row(c, phones)
    colon_row(c, [("E-mail", p.email)])
    c.heading("Insurance")
    colon_row(c, [("Carrier", p.insurer)])
    colon_row(c, [("ID #", p.policy), ("Grp #", p.group or "")] if p.group else [("ID #", p.policy)])
    holder = "Self" if p.subscriber is None else f"{p.subscriber.last}, {p.subscriber.first}"
    colon_row(c, [("Insured (Last, First)", holder)])
    c.heading("Care Team")
    colon_row(c, [("PCP (Last, First)", f"{p.pcp.last}, {p.pcp.first}")])
    colon_row(c, [("Referred by", doctor_text(p.referring, rng))])
    e = p.emergency
    colon_row(c, [("Emergency contact (Name / Phone)", f"{person_text(e)} / {e.phone}")])


def digit_boxes(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.6:
        letterhead(c, p)
    c.heading("PATIENT DATA SHEET")
    side = c.style.size * 1.3
    label_x = c.left
    value_x = c.left + rng.uniform(120, 150)
    for label, text in (("Last Name", p.last), ("First Name", p.first), ("Middle Initial", _middle(p)[:1])):
        c.text(label_x, c.y, label)
        c.boxes(value_x, c.y, c.value(text).upper().ljust(len(text) + 2) if text else "  ", side)
        c.y += side + 8
    year, month, day = p.dob
    c.text(label_x, c.y, "Date of Birth")
    end = c.boxes(value_x, c.y, f"{month:02d}/{day:02d}/{year}", side)
    c.text(end + 6, c.y, "(MM/DD/YYYY)", size=c.style.caption_size)
    c.y += side + 8
    c.text(label_x, c.y, "Gender")
    c.choice(value_x, c.y, ["Male", "Female"], p.gender, rng.choice(("filled", "cross", "xtext")))
    c.y += side + 8
    c.text(label_x, c.y, "Street")
    c.text(value_x, c.y, c.value(p.address.street))
    c.y += side + 8
    c.text(label_x, c.y, "City")
    c.text(value_x, c.y, c.value(p.address.city))
    c.text(value_x + 150, c.y, "State")
    c.boxes(value_x + 185, c.y, p.address.state, side)
    c.text(value_x + 240, c.y, "ZIP")
    c.boxes(value_x + 265, c.y, p.address.zip, side)
    c.y += side + 8
    c.text(label_x, c.y, "Mobile")
    c.text(value_x, c.y, p.cell)
    c.text(value_x + 150, c.y, "Home")
    c.text(value_x + 190, c.y, p.home)
    c.y += side + 8
    c.text(label_x, c.y, "Email")
    c.text(value_x, c.y, p.email)
    c.y += side + 8
    c.heading("Coverage")
    for label, text in (("Insurance Plan", p.insurer), ("Member ID", p.policy), ("Group", p.group or "")):
        c.text(label_x, c.y, label)
        c.text(value_x, c.y, c.value(text))
        c.y += side + 4
    c.text(label_x, c.y, "Primary Doctor")
    c.text(value_x, c.y, doctor_text(p.pcp, rng))
    c.y += side + 4


def claim_grid(c: Canvas, p: Patient) -> None:
    """A CMS-1500-like claim form: numbered cells with tiny captions, values typed in capitals."""
    rng = c.rng
    c.text(c.left, c.y, "HEALTH INSURANCE CLAIM FORM", size=c.style.size * 1.4, bold=True)
    c.y += c.style.line_gap
    h = c.style.size * 2.6
    mid = (c.left + c.right) / 2
    up = str.upper
    s = p.subscriber
    insured = f"{up(s.last)}, {up(s.first)}" if s else "SAME"
    year, month, day = p.dob
    middle = f", {up(p.middle[0])}" if p.middle else ""
    rows: list[list[tuple[str, str | None, float]]] = [
        [("1. MEDICARE  MEDICAID  GROUP HEALTH PLAN", "X GROUP", 0.5), ("1a. INSURED'S I.D. NUMBER", p.policy, 0.5)],
        [("2. PATIENT'S NAME (Last Name, First Name, Middle Initial)", f"{up(p.last)}, {up(p.first)}{middle}", 0.5),
         ("4. INSURED'S NAME (Last Name, First Name, Middle Initial)", insured, 0.5)],
        [("5. PATIENT'S ADDRESS (No., Street)", up(p.address.street), 0.5),
         ("7. INSURED'S ADDRESS (No., Street)", up(s.address.street) if s else "SAME", 0.5)],
        [("CITY", up(p.address.city), 0.38), ("STATE", p.address.state, 0.12),
         ("CITY", up(s.address.city) if s else "", 0.38), ("STATE", s.address.state if s else "", 0.12)],
        [("ZIP CODE", p.address.zip, 0.2), ("TELEPHONE (Include Area Code)", p.cell, 0.3),
         ("ZIP CODE", s.address.zip if s else "", 0.2), ("TELEPHONE (Include Area Code)", s.phone if s else "", 0.3)],
        [("11. INSURED'S POLICY GROUP OR FECA NUMBER", p.group or "", 0.5),
         ("11c. INSURANCE PLAN NAME OR PROGRAM NAME", up(p.insurer), 0.5)],
        [("17. NAME OF REFERRING PROVIDER OR OTHER SOURCE", f"DN {up(p.referring.first)} {up(p.referring.last)}", 0.5),
         ("17b. NPI", str(rng.randint(1000000000, 1999999999)), 0.5)],
        [("PATIENT E-MAIL", p.email, 0.5), ("PRIMARY CARE PROVIDER", f"{up(p.pcp.last)}, {up(p.pcp.first)}", 0.5)],
    ]  # fmt: skip
    for row in rows:
        x = c.left
        for caption, value, share in row:
            x1 = x + (c.right - c.left) * share
            c.cell(x, c.y, x1, c.y + h, caption, value)
            x = x1
        c.y += h
        if row is rows[1]:
            # 3. birth date in MM DD YYYY cells and sex check boxes, as the claim form sets them.
            c.cell(c.left, c.y, mid, c.y + h, "3. PATIENT'S BIRTH DATE   MM  DD  YY          SEX", None)
            c.text(c.left + 10, c.y + h - 4, f"{month:02d}  {day:02d}  {year}")
            c.choice(c.left + 130, c.y + h - 4, ["M", "F"], p.gender[0], rng.choice(("xtext", "cross")))
            c.cell(mid, c.y, c.right, c.y + h, "6. PATIENT RELATIONSHIP TO INSURED", None)
            rel = "Self" if s is None else ("Spouse" if s.relationship == "Spouse" else "Other")
            c.choice(mid + 10, c.y + h - 4, ["Self", "Spouse", "Child", "Other"], rel, "xtext")
            c.y += h


def insurance_table(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading("Patient Demographics")
    middle = p.middle or ""
    pairs = [("First Name", p.first), ("Middle", middle), ("Last Name", p.last), ("DOB", date_text(p.dob, rng)),
             ("Gender", p.gender), ("Cell", p.cell), ("Email", p.email), ("Address", p.address.street),
             ("City", p.address.city), ("State", p.address.state), ("Zip", p.address.zip)]  # fmt: skip
    pairs.append(("Home", p.home))
    for i in range(0, len(pairs), 2):
        colon_row(c, pairs[i : i + 2])
    c.heading("Insurance Coverage")
    headers = ["Coverage", "Insurance Company", "Policy / ID #", "Group #", "Subscriber", "Relationship"]
    widths = [0.12, 0.24, 0.18, 0.14, 0.18, 0.14]
    holder = person_text(p.subscriber) if p.subscriber else "Self"
    relation = p.subscriber.relationship if p.subscriber else "Self"
    body = [
        ["Primary", p.insurer, p.policy, p.group or "", holder, relation],
        ["Secondary", p.secondary_insurer, p.secondary_policy, str(rng.randint(10000, 999999)),
         person_text(p.guarantor), p.guarantor.relationship],
    ]  # fmt: skip
    if rng.random() < 0.3:
        body.reverse()
    _table(c, headers, widths, body, size=c.style.size * 0.8)
    c.heading("Providers")
    colon_row(c, [("Primary Care Provider", doctor_text(p.pcp, rng))])
    colon_row(c, [("Referring Provider", doctor_text(p.referring, rng))])
    colon_row(c, [("Pharmacy", p.pharmacy), ("Pharmacy Phone", p.pharmacy_phone)])


def _table(c: Canvas, headers: list[str], widths: list[float], body: list[list[str]], size: float) -> None:
    span = c.right - c.left
    h = size * 2.2
    for r, row in enumerate([headers, *body]):
        x = c.left
        for text, share in zip(row, widths, strict=True):
            x1 = x + span * share
            c.rect(x, c.y, x1, c.y + h, width=0.5)
            c.text(x + 3, c.y + h * 0.65, text, size=size, bold=r == 0)
            x = x1
        c.y += h
    c.y += c.style.line_gap


def ehr_banner(c: Canvas, p: Patient) -> None:
    """An EHR print-out: a `LAST, FIRST M` banner, then sections of `Label: value`."""
    rng = c.rng
    c.text(c.left, c.y, f"{p.clinic}  -  Patient Summary", size=c.style.size * 0.9)
    c.text(c.right - 120, c.y, f"Printed {date_text(p.visit, rng)}", size=c.style.size * 0.8)
    c.y += c.style.line_gap
    middle = f" {p.middle[0]}" if p.middle else ""
    banner = f"{p.last.upper()}, {p.first.upper()}{middle.upper()}"
    c.text(c.left, c.y, banner, size=c.style.size * 1.5, bold=True)
    c.y += c.style.line_gap
    year, month, day = p.dob
    c.text(
        c.left,
        c.y,
        f"DOB: {month:02d}/{day:02d}/{year}    Sex: {p.gender[0]}    MRN: {rng.randint(100000, 999999)}",
    )
    c.y += c.style.line_gap
    c.heading("Demographics")
    c.text(c.left, c.y, "Address:")
    c.text(c.left + 90, c.y, p.address.street)
    c.y += c.style.size * 1.4
    c.text(c.left + 90, c.y, f"{p.address.city}, {p.address.state} {p.address.zip}")
    c.y += c.style.line_gap
    colon_row(c, [("Mobile", p.cell), ("Home", p.home)])
    colon_row(c, [("Email", p.email)])
    c.heading("Care Team")
    colon_row(c, [("PCP", f"{p.pcp.last.upper()}, {p.pcp.first.upper()} {p.pcp.credential}")])
    colon_row(
        c,
        [("Referring", f"{p.referring.last.upper()}, {p.referring.first.upper()} {p.referring.credential}")],
    )
    c.heading("Coverage")
    colon_row(c, [("Payer", p.insurer)])
    colon_row(c, [("Member ID", p.policy), ("Group", p.group or "-")])
    holder = (
        "Self"
        if p.subscriber is None
        else f"{p.subscriber.last.upper()}, {p.subscriber.first.upper()} ({p.subscriber.relationship})"
    )
    colon_row(c, [("Subscriber", holder)])
    c.heading("Contacts")
    e = p.emergency
    colon_row(c, [("Emergency", f"{e.last.upper()}, {e.first.upper()} ({e.relationship}) {e.phone}")])


DesignFn = Callable[[Canvas, Patient], None]
