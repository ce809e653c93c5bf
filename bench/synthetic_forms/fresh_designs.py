"""Fresh unseen designs: written after the extraction rules existed, and never tuned on.

Four more ordinary clinic forms unlike the 23 designs before them. First scored untouched (seed
21: question_labels 0.266, two_column_pairs 0.993, fax_copy 0.667, relationship_blocks 0.941);
then the two that failed were given to tuning (`UNSEEN_TUNE`) and the two others stay kept back:
only their aggregate figures are ever looked at.

`question_labels`: a patient-portal print-out where every label is a whole question ("What is
your date of birth?", "Who is your primary care physician?"), worded differently per document,
the answer after the question on its line or on the next line. `two_column_pairs`: the page in
two columns of `Label: value` rows at the same heights (patient left, insurance and doctors
right, or mixed), under a letterhead with the clinic's own address, phone and e-mail.
`fax_copy`: a plain form as a fax gives it, a fax header line on top (date, sender, its number,
"P. 1/1"), values in capitals, dates as "01-APR-1985" or "04/01/85", the middle name as an
initial; always a black-and-white fax image. `relationship_blocks`: a teenage patient's form with
a Parent/Guardian block of its own name, birth date, phone, e-mail and address, an insurance block
whose subscriber is the parent, a referring and a primary care physician (the truth's provider).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from bench.synthetic_forms.canvas import PAGE_HEIGHT, PAGE_WIDTH, Canvas
from bench.synthetic_forms.designs import MONTHS, date_text, doctor_text, person_text
from bench.synthetic_forms.people import EMAIL_HOSTS, FIRST_FEMALE, Other, Patient, make_patient


def _email_of(first: str, last: str, rng: random.Random) -> str:
    return (
        f"{first.lower()}.{last.lower().replace(chr(39), '')}{rng.randint(1, 99)}@{rng.choice(EMAIL_HOSTS)}"
    )


def _clinic_email(p: Patient, rng: random.Random) -> str:
    slug = "".join(ch for ch in p.clinic.lower() if ch.isalpha())
    return f"{rng.choice(('frontdesk', 'info', 'office', 'referrals'))}@{slug}.example"


def _new_page_if_full(c: Canvas, need: float) -> None:
    """A long print-out runs onto a second page rather than off the first."""
    if c.y + need > PAGE_HEIGHT - c.style.margin * 0.7:
        c.page = c.page.parent.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        c.y = c.style.margin


def _question(c: Canvas, question: str, answer: str, next_line: bool, bold: bool) -> None:
    """A whole question as the label; its answer after it, or on the line under it."""
    size = c.style.size
    _new_page_if_full(c, size * 3)
    end = c.text(c.left, c.y, question, bold=bold)
    # An answer too long for the rest of the line wraps under the question, as a browser prints it.
    next_line = next_line or end + size * 0.8 + c.width(c.value(answer)) > PAGE_WIDTH - c.style.margin * 0.5
    if next_line:
        c.y += size * 1.35
        if answer:
            c.text(c.left + size * 1.5, c.y, c.value(answer))
    elif answer:
        c.text(end + size * 0.8, c.y, c.value(answer))
    c.y += size * (1.9 if next_line else 1.75)


def question_labels(c: Canvas, p: Patient) -> None:
    rng = c.rng
    pick = rng.choice
    size = c.style.size
    c.text(c.left, c.y, f"{p.clinic} Patient Portal", size=size * 0.85)
    printed = f"Printed {date_text(p.visit, rng)}"
    c.text(c.right - c.width(printed, size * 0.85), c.y, printed, size=size * 0.85)
    c.y += c.style.line_gap
    c.text(c.left, c.y, pick(("Pre-Visit Questionnaire", "New Patient Questions", "eCheck-In Summary")),
           size=size * 1.4, bold=True)  # fmt: skip
    c.y += c.style.line_gap
    mode = rng.randrange(3)  # 0: same line, 1: next line, 2: either, per question
    bold = rng.random() < 0.3

    def ask(question: str, answer: str) -> None:
        _question(c, question, answer, mode == 1 or (mode == 2 and rng.random() < 0.5), bold)

    def section(title: str) -> None:
        _new_page_if_full(c, size * 5)
        if rng.random() < 0.7:
            c.heading(title)

    section("About You")
    ask(pick(("What is your first name?", "What is your legal first name?")), p.first)
    if p.middle or rng.random() < 0.5:
        ask(
            pick(("What is your middle name?", "Do you have a middle name? If so, what is it?")),
            p.middle or "",
        )
    ask(pick(("What is your last name?", "What is your last name (surname)?")), p.last)
    ask(pick(("What is your date of birth?", "When were you born?", "What is your birth date?")),
        date_text(p.dob, rng))  # fmt: skip
    ask(pick(("What is your sex?", "What sex were you assigned at birth?", "What is your gender?")), p.gender)
    section(pick(("Contact Information", "How We Reach You")))
    a = p.address
    ask(pick(("What is your street address?", "What is your home address?")), a.street)
    if rng.random() < 0.5:
        ask(pick(("What city, state and ZIP code do you live in?", "City, state and ZIP code?")),
            f"{a.city}, {a.state} {a.zip}")  # fmt: skip
    else:
        ask(pick(("What city do you live in?", "In which city do you live?")), a.city)
        ask(pick(("What state do you live in?", "What is your state?")), a.state)
        ask(pick(("What is your ZIP code?", "What is your zip/postal code?")), a.zip)
    phones = [
        (pick(("What is your mobile number?", "What is your cell phone number?",
               "What is the best mobile number to reach you?")), p.cell),
        (pick(("What is your home phone number?", "Do you have a home phone? What is the number?")), p.home),
    ]  # fmt: skip
    rng.shuffle(phones)
    for question, answer in phones:
        ask(question, answer)
    ask(pick(("What is your email address?", "What e-mail address should we use to contact you?")), p.email)
    section(pick(("Insurance", "Your Coverage")))
    ask(pick(("What is the name of your insurance company?", "Who is your health insurance carrier?",
              "Which health plan are you covered by?")), p.insurer)  # fmt: skip
    ask(pick(("What is your member ID number?", "What is your policy number?",
              "What is the ID number on your insurance card?")), p.policy)  # fmt: skip
    if p.group or rng.random() < 0.5:
        ask(pick(("What is your group number?", "What is the group number on your card?")), p.group or "")
    s = p.subscriber
    if rng.random() < 0.5:
        ask("Are you the policy holder?", "Yes" if s is None else f"No - {person_text(s)} ({s.relationship})")
    else:
        ask("Who is the policy holder?", "Self" if s is None else person_text(s))
    section(pick(("Your Care Team", "Doctors")))
    doctors = [
        (pick(("Who is your primary care physician?", "Who is your regular doctor?",
               "What is the name of your primary care provider?")), doctor_text(p.pcp, rng)),
        (pick(("Who referred you to our office?", "Which doctor referred you?")), doctor_text(p.referring, rng)),
    ]  # fmt: skip
    rng.shuffle(doctors)
    for question, answer in doctors:
        ask(question, answer)
    if rng.random() < 0.5:
        ask("Which pharmacy do you use?", p.pharmacy)
    section("Emergency Contact")
    e = p.emergency
    ask(pick(("Who should we contact in an emergency?", "Whom may we call in an emergency?")), person_text(e))
    ask(pick(("What is their phone number?", "What is the best number to reach them?")), e.phone)


def _clinic_header(c: Canvas, p: Patient) -> None:
    """The clinic's name centred over its address, phone, fax and e-mail: all decoys."""
    rng = c.rng
    size = c.style.size
    centre = (c.left + c.right) / 2
    title = size * rng.uniform(1.4, 1.7)
    c.text(
        centre - c.width(p.clinic, title, bold=True) / 2, c.y + title * 0.4, p.clinic, size=title, bold=True
    )
    c.y += title * 1.3
    a = p.clinic_address
    fax = f"{p.clinic_phone[:-2]}{rng.randint(10, 99)}"
    lines = [
        f"{a.street}  |  {a.city}, {a.state} {a.zip}",
        f"Phone {p.clinic_phone}  |  Fax {fax}  |  {_clinic_email(p, rng)}",
    ]
    for line in lines:
        c.text(centre - c.width(line, size * 0.85) / 2, c.y, line, size=size * 0.85)
        c.y += size * 1.3
    c.hline(c.left, c.right, c.y - size * 0.5, width=1.0)
    c.y += c.style.line_gap * 0.8


Pairs = Sequence[tuple[str, str]]


def _fit(c: Canvas, text: str, room: float) -> float:
    """The type size `text` fits `room` in: a value too long for its field is set smaller, as a
    form's fixed-width field does (never below 6 pt)."""
    size = c.style.size
    while size > 6 and c.width(text, size) > room:
        size -= 0.5
    return size


def _columns(c: Canvas, left: Pairs, right: Pairs, aligned: bool) -> None:
    """Two columns of `Label: value` rows at the same heights; values after their label, or at
    the column's own tab stop."""
    mid = (c.left + c.right) / 2
    width = mid - c.left - 12
    columns = []
    for x, rows in ((c.left, left), (mid + 6, right)):
        tab = max((c.width(f"{label}:") for label, _ in rows), default=0) + 6
        columns.append((x, rows, tab))
    for k in range(max(len(left), len(right))):
        for x, rows, tab in columns:
            if k >= len(rows):
                continue
            label, value = rows[k]
            end = c.text(x, c.y, f"{label}:")
            start = x + tab if aligned else end + 5
            if value:
                shown = c.value(value)
                c.text(start, c.y, shown, size=_fit(c, shown, x + width - start))
        c.y += c.style.size * 1.9


def two_column_pairs(c: Canvas, p: Patient) -> None:
    rng = c.rng
    pick = rng.choice
    _clinic_header(c, p)
    c.heading(pick(("Patient Registration", "NEW PATIENT INFORMATION", "Registration Form")))
    a = p.address
    name = [("Last Name", p.last), ("First Name", p.first), (pick(("Middle Name", "Middle")), p.middle or "")]
    born = [
        (pick(("Date of Birth", "DOB", "Birth Date")), date_text(p.dob, rng)),
        (pick(("Sex", "Gender")), p.gender),
    ]
    home = [("Address", a.street), ("City", a.city), ("State", a.state), (pick(("ZIP", "Zip Code")), a.zip)]
    phones = [(pick(("Cell Phone", "Mobile")), p.cell), ("Home Phone", p.home)]
    rng.shuffle(phones)
    contact = [*phones, (pick(("Email", "E-mail")), p.email)]
    s = p.subscriber
    cover = [
        (pick(("Insurance", "Insurance Co.", "Carrier")), p.insurer),
        (pick(("Member ID", "Policy #", "ID Number")), p.policy),
        (pick(("Group #", "Group No.")), p.group or ""),
        (pick(("Subscriber", "Policy Holder")), "Self" if s is None else person_text(s)),
        ("Relationship", "Self" if s is None else s.relationship),
    ]
    doctors = [(pick(("PCP", "Primary Physician")), doctor_text(p.pcp, rng)),
               (pick(("Referring Dr.", "Referred By")), doctor_text(p.referring, rng))]  # fmt: skip
    rng.shuffle(doctors)
    e = p.emergency
    emergency = [
        ("Emergency Contact", person_text(e)),
        ("Contact Phone", e.phone),
        ("Relationship", e.relationship),
    ]
    aligned = rng.random() < 0.5
    if rng.random() < 0.5:
        # Patient on the left, insurance and doctors on the right.
        _columns(c, [*name, *born, *home, *contact], [*cover, *doctors, *emergency], aligned)
        return
    # Mixed: who and where on the left, how to reach and coverage on the right; then doctors
    # beside the emergency contact under headings of their own at the same height.
    _columns(c, [*name, *born, *home], [*contact, *cover], aligned)
    c.y += c.style.size
    mid = (c.left + c.right) / 2
    c.text(c.left, c.y, "Physicians", bold=True)
    c.text(mid + 6, c.y, "In Case of Emergency", bold=True)
    c.y += c.style.size * 1.9
    _columns(c, doctors, emergency, aligned)


MONTH_ABBR = tuple(m[:3].upper() for m in MONTHS)


def _fax_date(ymd: tuple[int, int, int], rng: random.Random) -> str:
    year, month, day = ymd
    style = rng.randrange(4)
    if style == 0:
        return f"{day:02d}-{MONTH_ABBR[month - 1]}-{year}"
    if style == 1:
        return f"{month:02d}/{day:02d}/{year % 100:02d}"
    if style == 2:
        return f"{day:02d} {MONTH_ABBR[month - 1]} {year}"
    return f"{month:02d}/{day:02d}/{year}"


def _fax_header(c: Canvas, p: Patient) -> None:
    """The line a fax machine prints across the top: when, from whom, its number, the page."""
    rng = c.rng
    size = c.style.size * 0.8
    digits = "".join(ch for ch in p.clinic_phone if ch.isdigit())
    when = f"{_fax_date(p.visit, rng)} {rng.randint(7, 18):02d}:{rng.randint(0, 59):02d}"
    sender = p.clinic.upper()
    page = rng.choice(("PAGE 1/1", "P. 1/1", "P.01/01", "PAGE 001"))
    if rng.random() < 0.5:
        line = f"{when}   FROM: {sender}   FAX NO. {digits}   {page}"
    else:
        line = f"FROM: {sender}  ({digits})   TO: {rng.randint(2002000000, 9899999999)}   {when}   {page}"
    c.page.insert_text((c.left * 0.6, c.style.margin * 0.5), line, fontname="cour", fontsize=size)
    c.y = max(c.y, c.style.margin * 0.5 + c.style.line_gap)


def _fax_row(c: Canvas, items: Sequence[tuple[str, str]]) -> None:
    """`LABEL: VALUE` pairs across a line, every value in capitals."""
    x = c.left
    share = (c.right - c.left) / len(items)
    for label, value in items:
        end = c.text(x, c.y, f"{label}:")
        if value:
            c.text(end + 6, c.y, value.upper())
        x += share
    c.y += c.style.line_gap * 0.85


def fax_copy(c: Canvas, p: Patient) -> None:
    rng = c.rng
    pick = rng.choice
    _fax_header(c, p)
    if rng.random() < 0.5:
        c.text(c.left, c.y, f"RE: {pick(('NEW PATIENT REFERRAL', 'PATIENT DEMOGRAPHICS', 'REGISTRATION'))}")
        c.y += c.style.line_gap
    c.heading(pick(("PATIENT INFORMATION", "PATIENT REGISTRATION FORM", "Patient Face Sheet")))
    initial = (p.middle or "")[:1]
    if rng.random() < 0.5:
        comma = f" {initial}" if initial else ""
        _fax_row(
            c,
            [
                (
                    pick(("PATIENT NAME (LAST, FIRST MI)", "NAME (LAST, FIRST, MI)")),
                    f"{p.last}, {p.first}{comma}",
                )
            ],
        )
    else:
        _fax_row(c, [("LAST", p.last), ("FIRST", p.first), ("MI", initial)])
    _fax_row(c, [(pick(("DOB", "BIRTH DATE")), _fax_date(p.dob, rng)),
                 (pick(("SEX", "GENDER")), p.gender if rng.random() < 0.5 else p.gender[0])])  # fmt: skip
    a = p.address
    _fax_row(c, [("ADDRESS", a.street)])
    _fax_row(c, [("CITY", a.city), ("STATE", a.state), ("ZIP", a.zip)])
    phones = [(pick(("CELL", "MOBILE PH")), p.cell), (pick(("HOME", "HOME PH")), p.home)]
    rng.shuffle(phones)
    _fax_row(c, phones)
    _fax_row(c, [("EMAIL", p.email)])
    c.heading("INSURANCE")
    _fax_row(c, [(pick(("PRIMARY INS", "INSURANCE", "PAYER")), p.insurer)])
    _fax_row(c, [(pick(("ID #", "MEMBER ID", "POLICY NO")), p.policy), ("GROUP #", p.group or "")])
    s = p.subscriber
    holder = "SELF" if s is None else f"{s.last}, {s.first}"
    _fax_row(c, [("INSURED", holder), ("INSURED DOB", _fax_date(s.dob, rng) if s else "")])
    c.heading(pick(("PROVIDERS", "PHYSICIANS")))
    _fax_row(c, [(pick(("PCP", "PRIMARY CARE")), doctor_text(p.pcp, rng))])
    _fax_row(c, [(pick(("REFERRING MD", "REF PHYSICIAN")), doctor_text(p.referring, rng))])
    e = p.emergency
    _fax_row(c, [("EMERG CONTACT", person_text(e)), ("PH", e.phone)])
    if rng.random() < 0.6:
        c.y += c.style.line_gap
        note = "CONFIDENTIAL: THIS FAX MAY CONTAIN PROTECTED HEALTH INFORMATION. IF RECEIVED IN ERROR CALL"
        c.text(c.left, c.y, f"{note} {p.clinic_phone}", size=c.style.caption_size)


def make_child(rng: random.Random) -> Patient:
    """A teenage patient (12 to 17 at the visit) whose parent or guardian holds the policy."""
    p = make_patient(rng)
    year = p.visit[0] - rng.randint(12, 17)
    dob = (year, rng.randint(1, 12), rng.randint(1, 28))
    base = p.subscriber or p.guarantor
    parent_of = "Mother" if base.first in FIRST_FEMALE else "Father"
    relationship = parent_of if rng.random() < 0.8 else "Legal Guardian"
    parent = replace(
        base,
        last=p.last if rng.random() < 0.75 else base.last,
        dob=(year - rng.randint(22, 42), rng.randint(1, 12), rng.randint(1, 28)),
        relationship=relationship,
    )
    return replace(p, dob=dob, subscriber=parent, guarantor=parent)


def _split_crowded(c: Canvas, rows: Sequence[Pairs], prefix: str, span: float) -> list[Pairs]:
    """Rows whose pairs would not fit side by side are set one pair a line, as a designer would."""
    out: list[Pairs] = []
    for row in rows:
        room = span / len(row) - 12
        if all(c.width(f"{prefix}{label}: {c.value(value)}") <= room for label, value in row):
            out.append(row)
        else:
            out.extend([pair] for pair in row)
    return out


def _block(c: Canvas, title: str, rows: Sequence[Pairs], prefix: str) -> None:
    """A boxed block under a title bar: rows of `Label: value` pairs, labels maybe prefixed."""
    size = c.style.size
    span = c.right - c.left - 12
    lines = _split_crowded(c, rows, prefix, span)
    _new_page_if_full(c, size * (1.8 * len(lines) + 3.5))
    top = c.y
    c.rect(c.left, top, c.right, top + size * 1.6, fill=False, width=0.8)
    c.text(c.left + 4, top + size * 1.15, title, bold=True)
    c.y = top + size * 1.6 + size * 1.5
    for row in lines:
        x = c.left + 6
        share = span / len(row)
        for label, value in row:
            end = c.text(x, c.y, f"{prefix}{label}:")
            if value:
                shown = c.value(value)
                c.text(end + 5, c.y, shown, size=_fit(c, shown, x + share - end - 12))
            x += share
        c.y += size * 1.8
    c.rect(c.left, top, c.right, c.y - size * 0.9, width=0.8)
    c.y += size * 0.9


def relationship_blocks(c: Canvas, p: Patient) -> None:
    rng = c.rng
    pick = rng.choice
    # `make_child` made this patient: the subscriber is the parent.
    parent = p.subscriber
    assert isinstance(parent, Other)
    if rng.random() < 0.8:
        _clinic_header(c, p)
    c.heading(
        pick(("Pediatric Patient Registration", "Minor Patient Information", "Child Registration Form"))
    )
    prefixed = rng.random() < 0.4
    a = p.address
    middle = (pick(("Middle Name", "Middle")), p.middle or "")
    _block(
        c,
        pick(("Patient", "Patient (Child)", "PATIENT INFORMATION")),
        [
            [("Last Name", p.last), ("First Name", p.first), middle],
            [(pick(("Date of Birth", "DOB")), date_text(p.dob, rng)), (pick(("Sex", "Gender")), p.gender)],
            [("Address", a.street), ("School Grade", str(p.visit[0] - p.dob[0] - 6))],
            [("City", a.city), ("State", a.state), ("ZIP", a.zip)],
            [(pick(("Cell Phone", "Mobile")), p.cell)],
            [("Email", p.email)],
        ],
        "Child's " if prefixed else "",
    )  # fmt: skip
    where = rng.randrange(3)
    b = parent.address
    parent_rows = [
        [("Last Name", parent.last), ("First Name", parent.first)],
        [(pick(("Date of Birth", "DOB")), date_text(parent.dob, rng)), ("Relationship to Patient", parent.relationship)],
        [(pick(("Cell Phone", "Phone")), parent.phone), ("Home Phone", p.home)],
        [("Email", _email_of(parent.first, parent.last, rng))],
        [("Address", "Same as patient" if where == 0 else (a.street if where == 1 else b.street))],
    ]  # fmt: skip
    if where == 2:
        parent_rows.append([("City", b.city), ("State", b.state), ("ZIP", b.zip)])
    _block(c, pick(("Parent/Guardian", "Parent or Legal Guardian", "RESPONSIBLE PARTY")), parent_rows,
           "Parent's " if prefixed else "")  # fmt: skip
    _block(
        c,
        pick(("Insurance", "Insurance Information")),
        [
            [(pick(("Insurance Company", "Carrier")), p.insurer)],
            [(pick(("Member ID", "Policy Number")), p.policy), ("Group #", p.group or "")],
            [("Subscriber Name", person_text(parent)), ("Subscriber DOB", date_text(parent.dob, rng))],
            [("Patient's Relationship to Subscriber", "Child")],
        ],
        "",
    )
    doctors = [[("Referring Physician", doctor_text(p.referring, rng))],
               [(pick(("Primary Care Physician", "Pediatrician / PCP")), doctor_text(p.pcp, rng))]]  # fmt: skip
    rng.shuffle(doctors)
    _block(c, pick(("Physicians", "Care Team")), doctors, "")
