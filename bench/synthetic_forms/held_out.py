"""Held-out intake-form designs: never looked at while rules are tuned (see `designs.py`).

They use the same kinds of structure as the dev designs in other arrangements and words:
a guarantor section before the insurance, boxed cells with captions on top, a phone whose kind
is ticked beside it, dot leaders, and a caption-under line holding a combined value.
"""

from __future__ import annotations

from bench.synthetic_forms.canvas import Canvas
from bench.synthetic_forms.designs import (
    colon_row,
    date_text,
    doctor_text,
    letterhead,
    person_text,
    under_row,
)
from bench.synthetic_forms.people import Patient


def guarantor_first(c: Canvas, p: Patient) -> None:
    """Patient, then a responsible party with the same labels, then a policy holder section."""
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading("Patient")
    colon_row(c, [("First Name", p.first), ("M.I.", (p.middle or "")[:1]), ("Last Name", p.last)])
    colon_row(c, [("Birth Date", date_text(p.dob, rng)), ("Sex", p.gender)])
    colon_row(c, [("Mailing Address", p.address.street)])
    colon_row(c, [("City", p.address.city), ("State", p.address.state), ("Zip Code", p.address.zip)])
    colon_row(c, [("Cell Phone", p.cell), ("E-mail", p.email)])
    g = p.guarantor
    c.heading("Responsible Party / Guarantor")
    colon_row(c, [("First Name", g.first), ("Last Name", g.last)])
    colon_row(c, [("Birth Date", date_text(g.dob, rng)), ("Relationship", g.relationship)])
    colon_row(c, [("Mailing Address", g.address.street)])
    colon_row(c, [("City", g.address.city), ("State", g.address.state), ("Zip Code", g.address.zip)])
    colon_row(c, [("Phone", g.phone)])
    c.heading("Insurance")
    colon_row(c, [("Insurance Carrier", p.insurer)])
    colon_row(c, [("Policy #", p.policy), ("Group #", p.group or "")])
    holder = "Self" if p.subscriber is None else person_text(p.subscriber)
    colon_row(
        c,
        [
            ("Policy Holder", holder),
            ("Holder DOB", date_text(p.subscriber.dob if p.subscriber else p.dob, rng)),
        ],
    )
    colon_row(c, [("Primary Physician", doctor_text(p.pcp, rng))])


def boxed_cells(c: Canvas, p: Patient) -> None:
    """A bordered form: each value in a box whose caption sits at its top left."""
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading("Patient Information")
    h = c.style.size * 2.8
    span = c.right - c.left

    def row(items: list[tuple[str, str | None, float]]) -> None:
        x = c.left
        for caption, value, share in items:
            x1 = x + span * share
            c.cell(x, c.y, x1, c.y + h, caption, c.value(value) if value else None)
            x = x1
        c.y += h

    row([("Patient Last Name", p.last, 0.4), ("First Name", p.first, 0.4), ("Middle", p.middle or "", 0.2)])
    row(
        [("Date of Birth", date_text(p.dob, rng), 0.35), ("Sex", p.gender, 0.2), ("Cell Phone", p.cell, 0.45)]
    )
    row([("Home Address", p.address.street, 0.5), ("City", p.address.city, 0.25), ("State", p.address.state, 0.1),
         ("Zip", p.address.zip, 0.15)])  # fmt: skip
    row([("Email Address", p.email, 0.6), ("Work Phone", p.work, 0.4)])
    c.y += 10
    c.heading("Physicians and Pharmacy")
    row(
        [
            ("Primary Care Doctor", doctor_text(p.pcp, rng), 0.5),
            ("Referring Doctor", doctor_text(p.referring, rng), 0.5),
        ]
    )
    row([("Preferred Pharmacy", p.pharmacy, 0.5), ("Pharmacy Phone", p.pharmacy_phone, 0.5)])
    c.y += 10
    c.heading("Insurance")
    row(
        [
            ("Primary Insurance", p.insurer, 0.4),
            ("Member ID", p.policy, 0.35),
            ("Group Number", p.group or "", 0.25),
        ]
    )
    row(
        [
            ("Secondary Insurance", p.secondary_insurer, 0.4),
            ("Member ID", p.secondary_policy, 0.35),
            ("Group Number", "", 0.25),
        ]
    )
    e = p.emergency
    c.y += 10
    c.heading("In Case of Emergency")
    row(
        [
            ("Contact Name", person_text(e), 0.5),
            ("Relationship", e.relationship, 0.2),
            ("Phone", e.phone, 0.3),
        ]
    )


def ticked_phones(c: Canvas, p: Patient) -> None:
    """Names with captions under in `First MI Last` order; each phone with its kind ticked."""
    rng = c.rng
    if rng.random() < 0.7:
        letterhead(c, p)
    c.heading("Registration")
    under_row(c, [("First", p.first, 0.4), ("MI", (p.middle or "")[:1], 0.15), ("Last", p.last, 0.45)])
    c.text(c.left, c.y, "Gender:")
    c.choice(c.left + 60, c.y, ["Male", "Female", "Other"], p.gender, rng.choice(("tick", "cross", "filled")))
    c.text(c.left + 300, c.y, "Birthdate:")
    c.text(c.left + 360, c.y, date_text(p.dob, rng))
    c.y += c.style.line_gap
    phones = [(p.cell, "Cell"), (rng.choice((p.home, p.work)), rng.choice(("Home", "Work")))]
    rng.shuffle(phones)
    for number, kind in phones:
        c.text(c.left, c.y, "Phone:")
        c.text(c.left + 50, c.y, number)
        c.choice(c.left + 190, c.y, ["Home", "Cell", "Work"], kind, rng.choice(("tick", "cross", "filled")))
        c.y += c.style.line_gap
    a = p.address
    under_row(
        c, [("Address", a.street, 0.45), ("City", a.city, 0.25), ("State", a.state, 0.1), ("Zip", a.zip, 0.2)]
    )
    under_row(c, [("Email", p.email, 1.0)])
    c.heading("Insurance")
    under_row(c, [("Plan", p.insurer, 0.45), ("ID Number", p.policy, 0.3), ("Group", p.group or "", 0.25)])
    c.text(c.left, c.y, "Policy holder:")
    chosen = (
        "Self" if p.subscriber is None else "Spouse" if p.subscriber.relationship == "Spouse" else "Other"
    )
    c.choice(c.left + 100, c.y, ["Self", "Spouse", "Other"], chosen, "tick")
    c.y += c.style.line_gap
    under_row(
        c,
        [
            ("Primary care provider", doctor_text(p.pcp, rng), 0.5),
            ("Referred by", doctor_text(p.referring, rng), 0.5),
        ],
    )


def dot_leaders(c: Canvas, p: Patient) -> None:
    """Labels followed by dot leaders to the value; a birth date in boxes; a circled sex."""
    rng = c.rng
    if rng.random() < 0.7:
        letterhead(c, p)
    c.heading("PERSONAL DETAILS")
    value_x = c.left + 170

    def lead(label: str, value: str) -> None:
        end = c.text(c.left, c.y, label)
        dots = max(int((value_x - end - 6) / c.width(".")), 3)
        c.text(end + 3, c.y, "." * dots)
        c.text(value_x, c.y, c.value(value))
        c.y += c.style.line_gap

    lead("Surname", p.last)
    lead("Given name(s)", f"{p.first} {p.middle}" if p.middle else p.first)
    year, month, day = p.dob
    c.text(c.left, c.y, "Birthdate (MM-DD-YYYY)")
    c.boxes(value_x, c.y, f"{month:02d}-{day:02d}-{year}", c.style.size * 1.3)
    c.y += c.style.line_gap
    c.text(c.left, c.y, "Sex (circle one)")
    c.choice(value_x, c.y, ["Male", "Female"], p.gender, "circle")
    c.y += c.style.line_gap
    lead("Address line 1", p.address.street)
    lead("Town / City", p.address.city)
    lead("State", p.address.state)
    lead("Postal code", p.address.zip)
    lead("Mobile number", p.cell)
    lead("Daytime number", p.work)
    lead("E-mail", p.email)
    c.heading("HEALTH COVER")
    lead("Health insurer", p.insurer)
    lead("Member number", p.policy)
    if p.group:
        lead("Group", p.group)
    lead("Your family doctor", doctor_text(p.pcp, rng))
    lead("Next of kin", f"{person_text(p.emergency)}, {p.emergency.phone}")


def combined_under(c: Canvas, p: Patient) -> None:
    """Combined values typed over a rule, their combined caption under it."""
    rng = c.rng
    if rng.random() < 0.8:
        letterhead(c, p)
    c.heading("Patient Registration Form")
    middle = f" {p.middle}" if p.middle else ""
    under_row(
        c,
        [
            ("Patient Name (Last, First, MI)", f"{p.last}, {p.first}{middle}", 0.65),
            ("Date of Birth", date_text(p.dob, rng), 0.35),
        ],
    )
    c.text(c.left, c.y, "Sex:")
    c.choice(c.left + 35, c.y, ["M", "F"], p.gender[0], rng.choice(("circle", "xtext", "filled")))
    c.y += c.style.line_gap
    a = p.address
    under_row(c, [("Street Address", a.street, 1.0)])
    under_row(c, [("City / State / ZIP", f"{a.city}, {a.state} {a.zip}", 0.6), ("Cell Phone", p.cell, 0.4)])
    under_row(c, [("Email", p.email, 0.6), ("Home Phone", p.home, 0.4)])
    c.heading("Insurance Information")
    under_row(
        c,
        [
            ("Insurance Company", p.insurer, 0.5),
            ("Subscriber ID", p.policy, 0.3),
            ("Group", p.group or "", 0.2),
        ],
    )
    s = p.subscriber
    holder = f"{s.last}, {s.first}" if s else "Self"
    under_row(
        c,
        [
            ("Subscriber (Last, First)", holder, 0.6),
            ("Subscriber DOB", date_text(s.dob, rng) if s else "", 0.4),
        ],
    )
    under_row(
        c,
        [
            ("Primary Care Physician (Last, First)", f"{p.pcp.last}, {p.pcp.first}", 0.6),
            ("Referring", doctor_text(p.referring, rng), 0.4),
        ],
    )
