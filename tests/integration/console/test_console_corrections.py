"""Correcting values in the console (issue 38), in headless Chromium on the real service: in the
playground a reviewer corrects a value and marks values checked, saves them, reloads the page and
finds them kept, and saves the document as an example with the corrected value; a label printed
with nothing written says "left blank"; a date shows as printed beside its normalised form. In a
task's output a missing value reads as such, a value is corrected and kept, and a tool result in
the feed reads as a table of data.

A screenshot of the corrected playground is saved as correction.png in $AGENTRY_SCREENSHOT_DIR when
that names a directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import create_agent, scripted, wait_status
from tests.support.browser import chromium, css, one, save_screenshot, sign_in, until

pytestmark = pytest.mark.integration

#: The member id is read as ZX-4411; the reviewer knows the card in use is the one printed below it.
#: "Group Number:" has nothing after it, and the next label under it: left blank.
LINES = [
    "Patient Intake",
    "Member ID: ZX-4411",
    "Group Number:",
    "Patient Name: Maria Okafor",
    "Date of Birth: 02/13/2002",
    "Previous card: ZX-4417",
]
FIELDS = ["patient_name", "date_of_birth", "group_number", "member_id"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def row(driver: Any, field: str, timeout: float = 30.0) -> Any:
    return one(driver, f'#pg-table tr[data-field="{field}"]', timeout)


def test_a_corrected_and_checked_value_is_kept_and_taught_as_an_example(
    service: Service, browser: Any, tmp_path: Path
) -> None:
    key = service.key()
    path = tmp_path / "intake.pdf"
    path.write_bytes(documents.pdf_text([LINES]))
    sign_in(browser, service, key, "#/playground")
    one(browser, "#pg-file").send_keys(str(path))
    one(browser, "#pg-fields").send_keys(", ".join(FIELDS))
    one(browser, "#pg-extract").click()

    # A date shows its normalised value and, beside it, the text the page prints.
    dob = row(browser, "date_of_birth", timeout=120)
    assert dob.find_element("css selector", "button.cited-value").text == "2002-02-13"
    assert dob.find_element("css selector", ".printed q").text == "02/13/2002"
    # The blank label says so, apart from a field that is not on the page.
    blank = row(browser, "group_number")
    assert blank.get_attribute("data-state") == "blank" and "left blank" in blank.text
    assert "no label or value" not in blank.text
    assert "Left blank: group_number." in one(browser, "#pg-blank").text
    assert not css(browser, "#pg-missing")
    # A value that is its whole answer prints as itself: no "printed" note.
    assert not row(browser, "member_id").find_elements("css selector", ".printed")

    # The reviewer corrects the member id, and ticks it and the date of birth as checked.
    field = one(browser, '#pg-table input.pg-correct[data-field="member_id"]')
    field.clear()
    field.send_keys("ZX-4417")
    one(browser, '#pg-table input.value-checked[data-field="member_id"]').click()
    one(browser, '#pg-table input.value-checked[data-field="date_of_birth"]').click()
    member = row(browser, "member_id")
    assert member.get_attribute("data-corrected") == "true" and member.get_attribute("data-checked") == "true"
    assert row(browser, "date_of_birth").get_attribute("data-corrected") == "false"
    one(browser, "#pg-save-corrections").click()
    until(browser, lambda d: one(d, "#pg-corrections-message").text == "Saved 2 values.", what="the save")

    # The page's address names the job: reloading shows the corrections the service keeps.
    record_id = re.fullmatch(r"#/playground/([0-9a-f-]{36})", browser.execute_script("return location.hash"))
    assert record_id is not None
    browser.refresh()
    kept = one(browser, '#pg-table input.pg-correct[data-field="member_id"]', timeout=60)
    until(browser, lambda d: kept.get_attribute("value") == "ZX-4417", what="the kept correction")
    assert one(browser, '#pg-table input.value-checked[data-field="member_id"]').is_selected()
    assert one(browser, '#pg-table input.value-checked[data-field="date_of_birth"]').is_selected()
    assert not one(browser, '#pg-table input.value-checked[data-field="patient_name"]').is_selected()
    member = row(browser, "member_id")
    assert member.get_attribute("data-corrected") == "true"
    note = member.find_element("css selector", ".kept-note")
    assert note.is_displayed() and note.text.startswith("corrected and checked by ")
    assert (
        row(browser, "date_of_birth")
        .find_element("css selector", ".kept-note")
        .text.startswith("checked by ")
    )
    # The value as read is still what the extraction says, struck through beside the correction.
    assert member.find_element("css selector", "button.cited-value").text == "ZX-4411"
    # The date's box frames the date's own words, not its line's label.
    row(browser, "date_of_birth").find_element("css selector", "button.cited-value").click()
    until(
        browser,
        lambda d: d.execute_script(
            "const i = document.getElementById('page-image');"
            "return i !== null && i.complete && i.naturalWidth > 0 && document.querySelector('.citation-box') !== null;"
        ),
        what="the date's box on the page",
    )
    save_screenshot(browser, tmp_path, "correction.png")

    # "Save as example", right under the values, sends the corrected value.
    one(browser, "#teach-name").send_keys("Intake, corrected")
    one(browser, "#teach-save").click()
    saved = one(browser, "#teach-message .saved", timeout=120)
    example_id = saved.get_attribute("data-example-id")
    listed = one(browser, f'#examples-rows tr[data-example-id="{example_id}"]')
    values = {
        dd.get_attribute("data-field"): dd.text
        for dd in listed.find_elements("css selector", "dd[data-field]")
    }
    assert values["member_id"].startswith("ZX-4417")
    assert values["group_number"] == "empty on this document"

    with service.client(key) as api:
        job = api.get(f"/api/v2/jobs/{record_id.group(1)}").json()
    assert job["corrections"]["member_id"]["value"] == "ZX-4417"
    assert job["corrections"]["date_of_birth"] == job["corrections"]["date_of_birth"] | {
        "value": "2002-02-13",
        "checked": True,
    }


def test_a_tasks_output_shows_missing_values_in_words_and_keeps_a_correction(
    service: Service, browser: Any
) -> None:
    key = service.key()
    extract = {
        "tool_calls": [
            {
                "name": "extract_document",
                "arguments": {
                    "input": "intake.pdf",
                    "extraction_config": {"json_options": FIELDS, "prompt_mode": "rules"},
                },
            }
        ]
    }
    filed = {"answer": "Read the intake.", "structured": {"patient": "Maria Okafor", "group_number": None}}
    with service.client(key, timeout=120) as api:
        agent = create_agent(api, scripted(extract, filed, output_schema={"type": "object"}))
        started = api.post(
            f"/api/v1/agents/{agent['id']}/run",
            data={"query": "read the intake"},
            files=[("files", ("intake.pdf", documents.pdf_text([LINES])))],
        )
        assert started.status_code == 201, started.text
        task_id = started.json()["task_id"]
        wait_status(api, task_id, "completed", timeout=120)

    sign_in(browser, service, key, f"#/tasks/{task_id}")
    missing = one(
        browser, '#structured-output .output-leaf[data-path="group_number"] .plain-value', timeout=60
    )
    assert missing.text == "no value" and "null" not in one(browser, "#structured-output").text
    # A tool's result reads as data: a table of keys and values, not a JSON string.
    result = one(browser, '#feed .feed-item[data-type="tool_result"] details')
    result.find_element("css selector", "summary").click()
    table = result.find_element("css selector", "table.data-table")
    keys = [th.text for th in table.find_elements("css selector", ":scope > tbody > tr > th")]
    assert "fields" in keys
    assert '{"' not in result.text and "null" not in result.text

    one(browser, "#output-correct").click()
    field = one(browser, '#structured-output input.output-correct[data-field="group_number"]')
    assert field.is_displayed()
    field.send_keys("G-2291")
    one(browser, '#structured-output input.value-checked[data-field="group_number"]').click()
    one(browser, "#output-save-corrections").click()
    until(browser, lambda d: one(d, "#output-corrections-message").text == "Saved 1 value.", what="the save")

    browser.refresh()
    until(
        browser,
        lambda d: (
            [e.text for e in css(d, '#structured-output .kept-value[data-path="group_number"]')]
            == ["→ G-2291 ✓"]
        ),
        timeout=60,
        what="the kept correction",
    )
    with service.client(key) as api:
        output = api.get(f"/api/v1/tasks/{task_id}/structured-response").json()
    assert output["corrections"]["group_number"]["value"] == "G-2291"
    assert output["corrections"]["group_number"]["checked"] is True
