"""An e-mail address whose value ran into the next column's label ("...exampleAddress")."""

from __future__ import annotations

import pytest

from extraction.fields.reading.value_kinds import read_value

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "email"),
    [
        ("ana.ruiz7@mailbox.exampleAddress", "ana.ruiz7@mailbox.example"),
        ("ANA.RUIZ7@MAILBOX.EXAMPLECity", "ANA.RUIZ7@MAILBOX.EXAMPLE"),
        ("ana@mail.Examplar", "ana@mail.Examplar"),
        ("ana@mail.example", "ana@mail.example"),
    ],
)
def test_a_label_glued_to_an_email_is_no_part_of_it(text: str, email: str) -> None:
    reading = read_value("email", text)
    assert reading is not None and reading.value == email
