"""More dev designs: layouts the first dev designs lack, to tune general rules on.

`right_aligned`: two columns of labels set flush right against boxed values, check boxes after
their option ("M ☐ F ☒"), the relationship to the insured ticked, three doctors (primary care,
referring, dentist) in any order. `caption_cells`: every field a ruled cell with its caption in
the top-left corner, values in an italic face as a hand or a typewriter fills them in, choices
(sex, the phone's kind, the relationship to the insured) circled; mostly scanned.
"""

from __future__ import annotations

from bench.synthetic_forms.canvas import Canvas, on_page
from bench.synthetic_forms.designs import date_text, doctor_text, letterhead, person_text
from bench.synthetic_forms.people import FIRST_FEMALE, FIRST_MALE, LAST, Doctor, Patient

#: Italic base-14 faces: the nearest thing to a hand the generator has without new fonts.
HAND_FONTS = ("tiit", "heit", "coit")


def _boxed(c: Canvas, label: str, value: str, x: float, label_w: float, end: float) -> None:
    """`label` set flush right at `x + label_w`, its value typed in a box from there to `end`."""
    size = c.style.size
    c.text(x + label_w - c.width(label), c.y, label)
    c.rect(x + label_w + 4, c.y - size * 1.05, end, c.y + size * 0.4, width=0.5)
    if value:
        c.text(x + label_w + 7, c.y, c.value(value))


def _ticks_after(c: Canvas, x: float, options: list[str], chosen: str) -> None:
    """Options each followed by its check box, the chosen one ticked or crossed."""
    size = c.style.size
    side = size * 0.8
    mark = c.rng.choice(("tick", "cross"))
    for option in options:
        x = c.text(x, c.y, option) + 3
        c.rect(x, c.y - side, x + side, c.y)
        if option == chosen and mark == "tick":
            c.page.draw_polyline(
                [(x + side * 0.15, c.y - side * 0.5), (x + side * 0.4, c.y - side * 0.1),
                 (x + side * 0.95, c.y - side * 0.95)],
                color=(0, 0, 0), width=1.1,
            )  # fmt: skip
        elif option == chosen:
            c.page.draw_line((x + 1, c.y - side + 1), (x + side - 1, c.y - 1), color=(0, 0, 0), width=1.0)
            c.page.draw_line((x + 1, c.y - 1), (x + side - 1, c.y - side + 1), color=(0, 0, 0), width=1.0)
        x += side + size * 1.2


def _relation(p: Patient) -> str:
    if p.subscriber is None:
        return "Self"
    return "Spouse" if p.subscriber.relationship == "Spouse" else "Other"


def right_aligned(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.7:
        letterhead(c, p)
    c.heading(rng.choice(("Patient Registration", "PATIENT INFORMATION")))
    mid = (c.left + c.right) / 2
    label_w = c.width("Relationship to Insured") * 0.75
    middle = p.middle or ""
    left = [("Last Name", p.last), ("First Name", p.first), ("Middle Name", middle),
            ("Date of Birth", date_text(p.dob, rng)), ("Sex", None), ("Street Address", p.address.street),
            ("City", p.address.city), ("State", p.address.state), ("Zip Code", p.address.zip)]  # fmt: skip
    holder = person_text(p.subscriber) if p.subscriber else "Self"
    right = [("Cell Phone", p.cell), ("Home Phone", p.home), ("Work Phone", p.work), ("E-mail", p.email),
             ("Insurance Carrier", p.insurer), ("Policy #", p.policy), ("Group #", p.group or ""),
             ("Subscriber", holder), ("Relationship", None)]  # fmt: skip
    top = c.y
    for column, x0, x1 in ((left, c.left, mid - 10), (right, mid + 4, c.right)):
        c.y = top
        for label, value in column:
            if value is None:
                c.text(x0 + label_w - c.width(label), c.y, label)
                if label == "Sex":
                    _ticks_after(c, x0 + label_w + 6, ["M", "F"], p.gender[0])
                else:
                    _ticks_after(c, x0 + label_w + 6, ["Self", "Spouse", "Other"], _relation(p))
            else:
                _boxed(c, label, value, x0, label_w, x1)
            c.y += c.style.line_gap
    c.heading(rng.choice(("Physicians", "Your Care Providers")))
    dentist = Doctor(rng.choice(FIRST_MALE + FIRST_FEMALE), rng.choice(LAST), "DDS")
    doctors = [("Primary care physician", p.pcp), ("Referring physician", p.referring), ("Dentist", dentist)]
    rng.shuffle(doctors)
    for label, doctor in doctors:
        _boxed(c, label, doctor_text(doctor, rng), c.left, label_w * 1.3, c.right - 150)
        c.y += c.style.line_gap


def _hand(c: Canvas, x: float, y: float, text: str, font: str) -> None:
    shown = c.value(text)
    c.page.insert_text((x, y), shown, fontname=font, fontsize=on_page(shown, x, c.style.size * 1.05, font))


def caption_cells(c: Canvas, p: Patient) -> None:
    rng = c.rng
    if rng.random() < 0.6:
        letterhead(c, p)
    c.heading(rng.choice(("Patient Intake", "NEW PATIENT FORM")))
    font = rng.choice(HAND_FONTS)
    h = c.style.size * 2.8
    span = c.right - c.left
    holder = person_text(p.subscriber) if p.subscriber else "Self"
    pcp = doctor_text(p.pcp, rng)
    ref = doctor_text(p.referring, rng)
    rows: list[list[tuple[str, str | None, float]]] = [
        [("Last name", p.last, 0.4), ("First name", p.first, 0.4), ("Middle", p.middle or "", 0.2)],
        [("Date of birth", date_text(p.dob, rng), 0.35), ("Sex", None, 0.25), ("E-mail", p.email, 0.4)],
        [("Street address", p.address.street, 0.5), ("City", p.address.city, 0.25),
         ("State", p.address.state, 0.1), ("ZIP", p.address.zip, 0.15)],
        [("Phone", p.cell, 0.5), ("Other phone", p.home, 0.5)],
        [("Insurance company", p.insurer, 0.4), ("Member ID", p.policy, 0.35), ("Group", p.group or "", 0.25)],
        [("Insured's name", holder, 0.5), ("Relationship to patient", None, 0.5)],
        [("Primary Care Physician", pcp, 0.5), ("Referring Physician", ref, 0.5)],
    ]  # fmt: skip
    if rng.random() < 0.5:
        rows[-1].reverse()
    for row in rows:
        x = c.left
        for caption, value, share in row:
            x1 = x + span * share
            c.cell(x, c.y, x1, c.y + h, caption, None)
            base = c.y + h - 5
            vx = x + rng.uniform(5, 12)
            if caption == "Sex":
                short = rng.random() < 0.5
                options = ["M", "F"] if short else ["Male", "Female"]
                c.choice(vx, base, options, p.gender[0] if short else p.gender, "circle")
            elif caption == "Relationship to patient":
                c.choice(vx, base, ["Self", "Spouse", "Child", "Other"], _relation(p), "circle")
            elif caption in ("Phone", "Other phone") and value:
                kinds = ["Home", "Cell", "Work"]
                end = c.width(value, c.style.size * 1.05) + vx + 10
                _hand(c, vx, base, value, font)
                c.choice(end, base, kinds, "Cell" if caption == "Phone" else "Home", "circle")
            elif value:
                _hand(c, vx, base, value, font)
            x = x1
        c.y += h
