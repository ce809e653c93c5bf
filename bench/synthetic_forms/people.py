"""Invented people, places and plans for synthetic intake forms: every name made up here.

A `Patient` holds what one intake form states (the truth) and the decoys printed beside it:
a clinic letterhead, an emergency contact, a guarantor or spouse who holds the policy, a
referring doctor beside the primary care one, a pharmacy. All drawn from one `random.Random`,
so a seed gives the same people every time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

FIRST_MALE = (
    "Dorian", "Callum", "Ignatius", "Rafferty", "Osric", "Thaddeus", "Lucan", "Emrys", "Bastian",
    "Cormac", "Leander", "Jory", "Tobiah", "Anselm", "Caspian", "Dashiell", "Fenwick", "Gideon",
)  # fmt: skip
FIRST_FEMALE = (
    "Marisol", "Odalys", "Briallen", "Cosima", "Elowen", "Isolde", "Juniper", "Lavinia", "Minerva",
    "Philippa", "Rosalind", "Saoirse", "Tamsin", "Vesna", "Wilhelmina", "Yarrow", "Zinnia", "Oriana",
)  # fmt: skip
MIDDLE = ("Ansel", "Beatrix", "Corin", "Delphine", "Ezra", "Fleur", "Hale", "Ivo", "Jessamy", "Kit")
LAST = (
    "Quillfeather", "Ravensworth", "Okonkwo-Baird", "Vandermeer", "Thistlewood", "Abernathy",
    "Castellanos", "Drummond", "Ellingsworth", "Fairweather", "Gallagher", "Hollingsby", "Ingram",
    "Jaramillo", "Kettleburn", "Lindqvist", "MacAllister", "Nakashima", "O'Dowd", "Pemberton",
    "Rosenthal", "Szymanski", "Trevelyan", "Underhill", "Valdivia", "Whitcombe", "Yablonski",
)  # fmt: skip
STREET_NAMES = (
    "Larkspur", "Harrow Glen", "Copperleaf", "Wintergreen", "Old Mill", "Sagebrush", "Falconer",
    "Birchwood", "Quarry Ridge", "Tamarack", "Hollis", "Juniper Hill", "Saltmarsh", "Pinecrest",
)  # fmt: skip
SUFFIXES = ("Street", "Avenue", "Road", "Lane", "Drive", "Court", "Way", "Place", "Terrace")
#: Real places with a ZIP code and area code of theirs (invented streets go with them).
PLACES = (
    ("Boise", "ID", "83702", "208"), ("Tucson", "AZ", "85719", "520"), ("Omaha", "NE", "68105", "402"),
    ("Spokane", "WA", "99201", "509"), ("Savannah", "GA", "31401", "912"), ("Madison", "WI", "53703", "608"),
    ("Albany", "NY", "12203", "518"), ("Reno", "NV", "89501", "775"), ("Tulsa", "OK", "74103", "918"),
    ("Burlington", "VT", "05401", "802"), ("Fargo", "ND", "58102", "701"), ("Durham", "NC", "27701", "919"),
    ("Eugene", "OR", "97401", "541"), ("Dayton", "OH", "45402", "937"), ("Wichita", "KS", "67202", "316"),
)  # fmt: skip
INSURERS = (
    "Northwind Health Plan", "Cascade Mutual", "Keystone Benefit Trust", "Harborview Health",
    "Summit Assurance", "Prairie Shield", "Lakeshore Care Alliance", "Evergreen Health Partners",
)  # fmt: skip
CLINICS = (
    "Riverbend Family Medicine", "Stonegate Internal Medicine", "Willow Creek Pediatrics",
    "Bayside Orthopedic Associates", "Meadowlark Health Center", "Ironwood Cardiology",
)  # fmt: skip
PHARMACIES = ("Corner Apothecary", "Maple Street Pharmacy", "Bluebird Drug", "Crossroads Rx")
EMAIL_HOSTS = ("mailbox.example", "inboxly.example", "postcard.example", "letterbox.example")


@dataclass(frozen=True)
class Doctor:
    first: str
    last: str
    credential: str


@dataclass(frozen=True)
class Address:
    street: str
    city: str
    state: str
    zip: str


@dataclass(frozen=True)
class Other:
    """Someone else named on the form: a guarantor, a spouse, an emergency contact."""

    first: str
    last: str
    phone: str
    dob: tuple[int, int, int]
    relationship: str
    address: Address


@dataclass(frozen=True)
class Patient:
    first: str
    middle: str | None
    last: str
    dob: tuple[int, int, int]  # (year, month, day)
    gender: str  # "Male" or "Female"
    cell: str
    home: str
    work: str
    email: str
    address: Address
    insurer: str
    secondary_insurer: str
    policy: str
    secondary_policy: str
    group: str | None
    pcp: Doctor
    referring: Doctor
    emergency: Other
    #: The policy holder: None when it is the patient ("Self").
    subscriber: Other | None
    guarantor: Other
    clinic: str
    clinic_address: Address
    clinic_phone: str
    pharmacy: str
    pharmacy_phone: str
    visit: tuple[int, int, int]

    def truth(self, *, initial_only: bool = False) -> dict[str, str | None]:
        """The corpus's intake fields: `dob` MM/DD/YYYY, `gender` the word of the marked option;
        the middle name as the page states it (its initial on a form that asks for one)."""
        year, month, day = self.dob
        middle = self.middle[0] if initial_only and self.middle else self.middle
        return {
            "first_name": self.first,
            "last_name": self.last,
            "middle_name": middle,
            "dob": f"{month:02d}/{day:02d}/{year}",
            "gender": self.gender,
            "cell_phone": self.cell,
            "email": self.email,
            "address_1": self.address.street,
            "city": self.address.city,
            "state": self.address.state,
            "zip": self.address.zip,
            "ins_name": self.insurer,
            "policy_number": self.policy,
            "group_number": self.group,
            "provider_last_name": self.pcp.last,
        }


def _phone(rng: random.Random, area: str) -> str:
    exchange, line = rng.randint(201, 989), rng.randint(0, 9999)
    style = rng.randrange(3)
    if style == 0:
        return f"({area}) {exchange}-{line:04d}"
    if style == 1:
        return f"{area}-{exchange}-{line:04d}"
    return f"{area}.{exchange}.{line:04d}"


def _address(rng: random.Random, place: tuple[str, str, str, str] | None = None) -> Address:
    city, state, zip_code, _ = place or rng.choice(PLACES)
    street = f"{rng.randint(12, 9899)} {rng.choice(STREET_NAMES)} {rng.choice(SUFFIXES)}"
    return Address(street, city, state, zip_code)


def _dob(rng: random.Random, low: int = 1940, high: int = 2012) -> tuple[int, int, int]:
    return rng.randint(low, high), rng.randint(1, 12), rng.randint(1, 28)


def _doctor(rng: random.Random) -> Doctor:
    first = rng.choice(FIRST_MALE + FIRST_FEMALE)
    return Doctor(first, rng.choice(LAST), rng.choice(("MD", "DO", "NP", "PA-C", "MD")))


def _id(rng: random.Random) -> str:
    letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(rng.randint(1, 3)))
    return letters + "".join(rng.choice("0123456789") for _ in range(rng.randint(7, 10)))


def _other(rng: random.Random, relationship: str, last: str | None = None) -> Other:
    place = rng.choice(PLACES)
    return Other(
        rng.choice(FIRST_MALE + FIRST_FEMALE),
        last or rng.choice(LAST),
        _phone(rng, place[3]),
        _dob(rng, 1935, 1995),
        relationship,
        _address(rng, place),
    )


def make_patient(rng: random.Random) -> Patient:
    gender = rng.choice(("Male", "Female"))
    first = rng.choice(FIRST_MALE if gender == "Male" else FIRST_FEMALE)
    last = rng.choice(LAST)
    middle = rng.choice(MIDDLE) if rng.random() < 0.6 else None
    if middle is not None and rng.random() < 0.35:
        middle = middle[0]
    place = rng.choice(PLACES)
    area = place[3]
    clinic_place = rng.choice(PLACES)
    host = rng.choice(EMAIL_HOSTS)
    subscriber = None
    if rng.random() < 0.5:
        subscriber = _other(
            rng, rng.choice(("Spouse", "Parent", "Other")), last if rng.random() < 0.7 else None
        )
    return Patient(
        first=first,
        middle=middle,
        last=last,
        dob=_dob(rng),
        gender=gender,
        cell=_phone(rng, area),
        home=_phone(rng, area),
        work=_phone(rng, area),
        email=f"{first.lower()}.{last.lower().replace(chr(39), '')}{rng.randint(1, 99)}@{host}",
        address=_address(rng, place),
        insurer=rng.choice(INSURERS),
        secondary_insurer=rng.choice(INSURERS),  # may repeat the primary, as family plans do
        policy=_id(rng),
        secondary_policy=_id(rng),
        group=str(rng.randint(10000, 9999999)) if rng.random() < 0.8 else None,
        pcp=_doctor(rng),
        referring=_doctor(rng),
        emergency=_other(rng, rng.choice(("Sister", "Brother", "Friend", "Mother", "Father"))),
        subscriber=subscriber,
        guarantor=subscriber or _other(rng, rng.choice(("Parent", "Spouse", "Other"))),
        clinic=rng.choice(CLINICS),
        clinic_address=_address(rng, clinic_place),
        clinic_phone=_phone(rng, clinic_place[3]),
        pharmacy=rng.choice(PHARMACIES),
        pharmacy_phone=_phone(rng, area),
        visit=(2026, rng.randint(1, 12), rng.randint(1, 28)),
    )
