"""Late unseen designs: written after the rules for the fresh designs.

Three more ordinary clinic documents unlike the 27 designs before them. Scored untouched first
(seed 31: ehr_demographics 0.747, phone_photo 0.986, spanish_only 0.172); then the two that failed
were given to tuning (`UNSEEN_TUNE`) and phone_photo stays kept back: only its aggregate figures
are ever looked at.

`ehr_demographics`: an EHR's "Patient Demographics" report, a ruled two-column table (label cell,
value cell) whose cells combine fields as EHRs print them ("DOB / Age / Sex: 04/24/1988 / 38 y /
F", "Phone (H) / (C)", "City/State/ZIP"), "Primary Insurance", "Subscriber ID", "Group", "PCP",
"Referring", under the practice's name and address, a "Printed by ... on ..." footer; mostly a
flat PDF. `phone_photo`: a plain form of `Label:` and a rule the value is typed on, sex as boxes,
the middle name as an initial, always a phone's JPEG photograph (`scan(..., photo=True)`:
keystoned, lit from one side, a little blurred). `spanish_only`: a US clinic's form entirely in
Spanish ("Nombre", "Apellido(s)", "Fecha de nacimiento (mm/dd/aaaa)", "Compañía de seguro",
"Médico de cabecera / primario"), labels with or without their accents, a patient with Spanish
names (`make_hispanic`) printed with their accents or without them, as the truth states them.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from bench.synthetic_forms.canvas import PAGE_HEIGHT, Canvas
from bench.synthetic_forms.designs import date_text, doctor_text, person_text, under_row
from bench.synthetic_forms.fresh_designs import _clinic_header, _fit
from bench.synthetic_forms.people import EMAIL_HOSTS, Patient, make_patient

#: Shade of a section row in an EHR's table.
SHADE = (0.88, 0.88, 0.88)


def _numeric(ymd: tuple[int, int, int], rng: random.Random) -> str:
    year, month, day = ymd
    return f"{month:02d}/{day:02d}/{year}" if rng.random() < 0.8 else f"{month}/{day}/{year}"


def _age(p: Patient) -> int:
    (year, month, day), (vy, vm, vd) = p.dob, p.visit
    return vy - year - ((vm, vd) < (month, day))


def _table_row(c: Canvas, label: str, value: str, split: float, height: float, bold: bool) -> None:
    """One ruled row: the label in its cell, the value (set smaller if too long) in the next."""
    top = c.y
    c.rect(c.left, top, split, top + height, width=0.5)
    c.rect(split, top, c.right, top + height, width=0.5)
    baseline = top + height * 0.68
    c.text(c.left + 4, baseline, label, bold=bold)
    if value:
        shown = c.value(value)
        c.text(split + 5, baseline, shown, size=_fit(c, shown, c.right - split - 10))
    c.y = top + height


def _section_row(c: Canvas, title: str, height: float, shaded: bool) -> None:
    """A full-width row naming the section, shaded or in capitals, as EHR reports set them."""
    top = c.y
    if shaded:
        c.page.draw_rect((c.left, top, c.right, top + height), color=(0, 0, 0), fill=SHADE, width=0.5)
    else:
        c.rect(c.left, top, c.right, top + height, width=0.5)
    c.text(c.left + 4, top + height * 0.68, title if shaded else title.upper(), bold=True)
    c.y = top + height


def _phones_cell(p: Patient, rng: random.Random) -> tuple[str, str]:
    """The phones in one cell, their kinds in the label in the same order."""
    if rng.random() < 0.6:
        return "Phone (H) / (C)", f"{p.home} / {p.cell}"
    if rng.random() < 0.5:
        return "Phone (C) / (H)", f"{p.cell} / {p.home}"
    return "Home / Cell / Work", f"{p.home} / {p.cell} / {p.work}"


def ehr_demographics(c: Canvas, p: Patient) -> None:
    rng = c.rng
    pick = rng.choice
    size = c.style.size
    _clinic_header(c, p)
    c.text(c.left, c.y, pick(("Patient Demographics", "Demographics Report", "PATIENT DEMOGRAPHICS")),
           size=size * 1.3, bold=True)  # fmt: skip
    c.y += size * 1.2
    split = c.left + (c.right - c.left) * rng.uniform(0.3, 0.38)
    height = size * rng.uniform(1.7, 2.1)
    bold, shaded = rng.random() < 0.5, rng.random() < 0.6
    middle = f" {p.middle}" if p.middle else ""
    name = f"{p.last}, {p.first}{middle}" if rng.random() < 0.7 else f"{p.first}{middle} {p.last}"
    sex = p.gender[0] if rng.random() < 0.6 else p.gender
    a = p.address
    s, e = p.subscriber, p.emergency
    sections: list[tuple[str, list[tuple[str, str]]]] = [
        ("Patient", [
            (pick(("Patient Name", "Name")), name),
            (pick(("MRN", "Chart #", "Account #")), str(rng.randint(100000, 9999999))),
            ("DOB / Age / Sex", f"{_numeric(p.dob, rng)} / {_age(p)} y / {sex}"),
            ("Preferred Language", pick(("English", "English", "Spanish"))),
        ]),
        ("Contact", [
            ("Address", a.street),
            (pick(("City/State/ZIP", "City / State / Zip")), f"{a.city}, {a.state} {a.zip}"),
            _phones_cell(p, rng),
            (pick(("Email", "E-mail Address")), p.email),
            ("Emergency Contact", f"{person_text(e)} ({e.relationship}) {e.phone}"),
        ]),
        ("Insurance", [
            ("Primary Insurance", p.insurer),
            ("Subscriber ID", p.policy),
            ("Group", p.group or ""),
            ("Subscriber", "Self" if s is None else f"{person_text(s)} ({s.relationship})"),
        ]),
        ("Care Team", [
            ("PCP", doctor_text(p.pcp, rng)),
            ("Referring", doctor_text(p.referring, rng)),
            (pick(("Preferred Pharmacy", "Pharmacy")), f"{p.pharmacy} {p.pharmacy_phone}"),
        ]),
    ]  # fmt: skip
    if rng.random() < 0.4:
        sections[2][1].extend([("Secondary Insurance", p.secondary_insurer),
                               ("Secondary Subscriber ID", p.secondary_policy)])  # fmt: skip
    for title, rows in sections:
        _section_row(c, title, height, shaded)
        for label, value in rows:
            _table_row(c, label, value, split, height, bold)
    visit = _numeric(p.visit, rng)
    clock = f"{rng.randint(7, 12)}:{rng.randint(0, 59):02d} {pick(('AM', 'PM'))}"
    user = f"{pick('abcdefghjkmnprst')}{pick(('moreno', 'tate', 'lund', 'okafor', 'hsu'))}"
    footer = f"Printed by {user} on {visit} {clock}"
    small = size * 0.8
    c.text(c.left, PAGE_HEIGHT - c.style.margin * 0.6, footer, size=small)
    page_no = "Page 1 of 1"
    c.text(c.right - c.width(page_no, small), PAGE_HEIGHT - c.style.margin * 0.6, page_no, size=small)


def _ruled(c: Canvas, items: Sequence[tuple[str, str, float]]) -> None:
    """`Label:` pairs across a line, each value typed on the rule that runs to its share's end."""
    x = c.left
    span = c.right - c.left
    for label, value, share in items:
        end = c.text(x, c.y, f"{label}:")
        stop = x + span * share - 10
        c.hline(end + 3, stop, c.y + 2.5)
        if value:
            shown = c.value(value)
            c.text(end + 7, c.y, shown, size=_fit(c, shown, stop - end - 8))
        x += span * share
    c.y += c.style.line_gap


def phone_photo(c: Canvas, p: Patient) -> None:
    rng = c.rng
    pick = rng.choice
    size = c.style.size
    c.text(c.left, c.y + size * 0.4, p.clinic, size=size * 1.3, bold=True)
    c.y += c.style.line_gap
    c.heading(pick(("Patient Information", "New Patient Intake Form", "Patient Registration")))
    a = p.address
    _ruled(
        c, [("Last Name", p.last, 0.42), ("First Name", p.first, 0.42), ("M.I.", (p.middle or "")[:1], 0.16)]
    )
    end = c.text(c.left, c.y, f"{pick(('Date of Birth', 'DOB', 'Birth Date'))}:")
    c.hline(end + 3, c.left + (c.right - c.left) * 0.5 - 10, c.y + 2.5)
    c.text(end + 7, c.y, date_text(p.dob, rng))
    full = rng.random() < 0.5
    options = ["Male", "Female"] if full else ["M", "F"]
    x = c.text(c.left + (c.right - c.left) * 0.5, c.y, pick(("Sex:", "Gender:"))) + size
    c.choice(x, c.y, options, p.gender if full else p.gender[0], pick(("tick", "cross", "xtext", "filled")))
    c.y += c.style.line_gap
    _ruled(c, [(pick(("Address", "Street Address", "Mailing Address")), a.street, 1.0)])
    _ruled(c, [("City", a.city, 0.45), ("State", a.state, 0.2), (pick(("Zip", "Zip Code")), a.zip, 0.35)])
    phones = [(pick(("Cell Phone", "Cell", "Mobile")), p.cell, 0.5), ("Home Phone", p.home, 0.5)]
    rng.shuffle(phones)
    _ruled(c, phones)
    _ruled(c, [(pick(("Email", "E-mail")), p.email, 1.0)])
    c.heading(pick(("Insurance", "Insurance Information")))
    _ruled(c, [(pick(("Insurance Company", "Insurance Carrier", "Insurance")), p.insurer, 1.0)])
    _ruled(c, [(pick(("Policy #", "ID #", "Member ID")), p.policy, 0.55), ("Group #", p.group or "", 0.45)])
    s = p.subscriber
    _ruled(c, [("Policy Holder", "Self" if s is None else person_text(s), 0.6),
               ("Relationship", "Self" if s is None else s.relationship, 0.4)])  # fmt: skip
    doctors = [[(pick(("Primary Care Physician", "Primary Doctor")), doctor_text(p.pcp, rng), 1.0)],
               [(pick(("Referred By", "Referring Physician")), doctor_text(p.referring, rng), 1.0)]]  # fmt: skip
    rng.shuffle(doctors)
    for row in doctors:
        _ruled(c, row)
    e = p.emergency
    _ruled(c, [("Emergency Contact", person_text(e), 0.55), ("Phone", e.phone, 0.45)])
    c.y += size
    _ruled(c, [("Signature", "", 0.6), ("Date", date_text(p.visit, rng), 0.4)])


#: Invented-looking Spanish names, with the accents a clinic's Spanish form would print.
HISPANIC_MALE = ("Joaquín", "Andrés", "Tomás", "Rubén", "Efraín", "Matías", "Ramón", "Sebastián", "Nicanor")
HISPANIC_FEMALE = ("Lucía", "Inés", "Belén", "Mónica", "Ximena", "Araceli", "Rocío", "Soledad", "Maribel")
HISPANIC_MIDDLE = ("José", "María", "Ángel", "Elena", "Ignacio", "Sofía", "Julián", "Paz")
HISPANIC_LAST = (
    "Ibáñez", "Quiñones", "Echeverría", "Villaseñor", "Arellano", "Ordóñez", "Saldívar", "Cifuentes",
    "Barragán", "Zamora", "Montiel", "Peñaloza", "Olmedo", "Briseño", "Urquidi", "Lozada",
)  # fmt: skip
KIN = {"Sister": "Hermana", "Brother": "Hermano", "Friend": "Amigo(a)", "Mother": "Madre", "Father": "Padre"}


def _plain(text: str) -> str:
    """`text` without its accents, as a form typed on an English keyboard gives it."""
    return "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))


def make_hispanic(rng: random.Random) -> Patient:
    """A patient with Spanish names (sometimes two surnames), printed with or without accents;
    the e-mail address is plain ASCII, as addresses are."""
    p = make_patient(rng)
    accents = rng.random() < 0.6
    keep = (lambda name: name) if accents else _plain
    first = keep(rng.choice(HISPANIC_MALE if p.gender == "Male" else HISPANIC_FEMALE))
    last = rng.choice(HISPANIC_LAST)
    if rng.random() < 0.35:
        last = f"{last} {rng.choice([n for n in HISPANIC_LAST if n != last])}"
    last = keep(last)
    middle = keep(rng.choice(HISPANIC_MIDDLE)) if p.middle else None
    user = f"{_plain(first).lower()}.{_plain(last).split()[0].lower()}{rng.randint(1, 99)}"
    e = p.emergency
    names = {
        "Sister": HISPANIC_FEMALE,
        "Mother": HISPANIC_FEMALE,
        "Brother": HISPANIC_MALE,
        "Father": HISPANIC_MALE,
    }
    emergency = replace(e, first=keep(rng.choice(names.get(e.relationship, HISPANIC_MALE + HISPANIC_FEMALE))),
                        last=keep(rng.choice(HISPANIC_LAST)), relationship=KIN[e.relationship])  # fmt: skip
    return replace(p, first=first, middle=middle, last=last, email=f"{user}@{rng.choice(EMAIL_HOSTS)}",
                   emergency=emergency)  # fmt: skip


def spanish_only(c: Canvas, p: Patient) -> None:
    rng = c.rng
    pick = rng.choice
    accents = rng.random() < 0.75

    def es(label: str) -> str:
        return label if accents else _plain(label)

    if rng.random() < 0.7:
        _clinic_header(c, p)
    c.heading(es(pick(("Registro de paciente nuevo", "Información del paciente", "Formulario de admisión"))))
    a = p.address
    s, e = p.subscriber, p.emergency
    date_label = es("Fecha de nacimiento (mm/dd/aaaa)")
    rows: list[list[tuple[str, str, float]]] = [
        [(es("Apellido(s)"), p.last, 0.4), ("Nombre", p.first, 0.32), ("Segundo nombre", p.middle or "", 0.28)],
        [(date_label, _numeric(p.dob, rng), 0.62)],
        [(es("Dirección"), a.street, 1.0)],
        [("Ciudad", a.city, 0.42), ("Estado", a.state, 0.22), (es("Código postal"), a.zip, 0.36)],
        [(es("Teléfono celular"), p.cell, 0.5), (es("Teléfono de casa"), p.home, 0.5)],
        [(es("Correo electrónico"), p.email, 1.0)],
    ]  # fmt: skip
    cover: list[list[tuple[str, str, float]]] = [
        [(es("Compañía de seguro"), p.insurer, 1.0)],
        [(es("Número de póliza / ID de miembro"), p.policy, 0.62), (es("Número de grupo"), p.group or "", 0.38)],
        [(es("Titular de la póliza"), "Paciente" if s is None else person_text(s), 1.0)],
    ]  # fmt: skip
    doctors = [[(es("Médico de cabecera / primario"), doctor_text(p.pcp, rng), 1.0)]]
    if rng.random() < 0.5:
        doctors.append([(es("Médico que lo refirió"), doctor_text(p.referring, rng), 1.0)])
        rng.shuffle(doctors)
    emergency = [[("Contacto de emergencia", person_text(e), 0.5), (es("Teléfono"), e.phone, 0.5)],
                 [("Parentesco", e.relationship, 1.0)]]  # fmt: skip
    captions = rng.random() < 0.4  # captions under the typed line, else `Label:` before it
    sex = ("Sexo", p.gender[0])
    for title, block in ((None, rows), ("Seguro médico", cover), (es("Médicos"), doctors),
                         ("En caso de emergencia", emergency)):  # fmt: skip
        if title:
            c.heading(es(title))
        for row in block:
            if captions:
                under_row(c, [(label, value, share) for label, value, share in row])
            else:
                _colon_line(c, row)
            if block is rows and row[0][0] == date_label:
                _sex_line(c, *sex)
    c.y += c.style.size
    _colon_line(c, [("Firma del paciente", "", 0.6), ("Fecha", _numeric(p.visit, rng), 0.4)])


def _colon_line(c: Canvas, items: Sequence[tuple[str, str, float]]) -> None:
    """`Label: value` pairs over one line, each in its share of the width; nothing ruled."""
    x = c.left
    span = c.right - c.left
    for label, value, share in items:
        end = c.text(x, c.y, f"{label}:")
        if value:
            shown = c.value(value)
            c.text(end + 5, c.y, shown, size=_fit(c, shown, x + span * share - end - 12))
        x += span * share
    c.y += c.style.line_gap * 0.85


def _sex_line(c: Canvas, label: str, chosen: str) -> None:
    """`Sexo: M / F` with the patient's letter marked (ticked, crossed or circled)."""
    mark = c.rng.choice(("tick", "cross", "circle", "xtext"))
    x = c.text(c.left, c.y, f"{label}:") + c.style.size
    c.choice(x, c.y, ["M", "F"], chosen, mark)
    c.y += c.style.line_gap * 0.85
