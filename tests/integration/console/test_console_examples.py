"""The console teaches (issue 37, point 2), in headless Chromium on the real stack: a reviewer
extracts an intake form in the playground, corrects its values, saves it as an example of a new
saved config (a value not printed on the form is refused with the field named), sees the example
listed, extracts a later form of the same design with that config and sees each value say which
example it followed, then deletes the example."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.browser import chromium, css, one, save_screenshot, sign_in, until

pytestmark = pytest.mark.integration

#: `form_number` is printed only in the footer ("Form RC-114 rev. 3"): the rules find no label for it.
#: `guardian` the rules misread as that footer line, with a confidence under the review threshold.
FIELDS = ["patient_name", "birth_date", "chart_ref", "form_number", "guardian"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def extract(driver: Any, path: Path) -> None:
    one(driver, "#pg-file").send_keys(str(path))
    one(driver, "#pg-extract").click()


def row(driver: Any, field: str, timeout: float = 30.0) -> Any:
    return one(driver, f'#pg-table tr[data-field="{field}"]', timeout)


def correct(driver: Any, field: str, text: str) -> None:
    box = one(driver, f'#pg-table input.pg-correct[data-field="{field}"]')
    box.clear()
    if text:
        box.send_keys(text)
    else:
        # clear() sends no input event; an emptied box is what the reviewer means by "not on this form".
        driver.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)


def test_a_reviewer_corrects_values_saves_an_example_sees_it_followed_and_deletes_it(
    service: Service, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.support.ui import Select

    key = service.key()
    taught = tmp_path / "maria.pdf"
    taught.write_bytes(documents.intake_form("Maria Okafor", "03/14/1987", "QX-48213"))
    later = tmp_path / "tobias.pdf"
    later.write_bytes(documents.intake_form("Tobias Lindqvist", "11/02/1954", "ZK-90177"))

    sign_in(browser, service, key, "#/playground")
    one(browser, "#pg-fields").send_keys(", ".join(FIELDS))
    extract(browser, taught)

    # As read: the form number not found, the guardian a low-confidence misreading marked to check.
    assert "Maria Okafor" in row(browser, "patient_name", timeout=120).text
    assert row(browser, "form_number").get_attribute("data-found") == "false"
    guardian = row(browser, "guardian")
    assert guardian.get_attribute("data-check") == "true" and "to-check" in guardian.get_attribute("class")
    assert all(r.get_attribute("data-corrected") == "false" for r in css(browser, "#pg-table tbody tr"))

    # The reviewer corrects: the guardian is not on this form, the form number is typed (wrongly first).
    correct(browser, "guardian", "")
    correct(browser, "form_number", "RC-999")
    for field in ("guardian", "form_number"):
        corrected = row(browser, field)
        assert corrected.get_attribute("data-corrected") == "true" and "corrected" in corrected.get_attribute(
            "class"
        )
        assert corrected.find_element("css selector", ".corrected-badge").is_displayed()
    # A low-confidence value stays marked to check once corrected; an untouched value is not corrected.
    assert row(browser, "guardian").get_attribute("data-check") == "true"
    assert row(browser, "patient_name").get_attribute("data-corrected") == "false"
    assert not row(browser, "patient_name").find_element("css selector", ".corrected-badge").is_displayed()

    # Saved to a new config with these fields: the value not printed on the form is refused, named.
    config = Select(one(browser, "#teach-config"))
    assert config.first_selected_option.get_attribute("value") == ""  # no config with these fields yet
    one(browser, "#teach-name").send_keys("Riverside intake")
    one(browser, "#teach-save").click()
    refusal = one(browser, "#teach-error", timeout=120)
    assert "values not found on the document: form_number" in refusal.text
    assert "Check form_number against the document" in refusal.text
    assert row(browser, "form_number").get_attribute("data-not-on-document") == "true"
    assert row(browser, "guardian").get_attribute("data-not-on-document") == "false"
    config_id = config.first_selected_option.get_attribute("value")
    assert config_id.startswith("config://")  # created once; the next try saves to it
    until(browser, lambda d: "No examples yet." in one(d, "#examples").text, what="the empty list")

    correct(browser, "form_number", "RC-114")
    one(browser, "#teach-save").click()
    saved = one(browser, "#teach-message .saved", timeout=120)
    example_id = saved.get_attribute("data-example-id")
    assert saved.text == f'Saved as example {example_id[:8]} of config "Riverside intake".'
    listed = one(browser, f'#examples-rows tr[data-example-id="{example_id}"]')
    values = {
        dd.get_attribute("data-field"): dd.text
        for dd in listed.find_elements("css selector", "dd[data-field]")
    }
    assert values["patient_name"].startswith("Maria Okafor") and "page 1" in values["patient_name"]
    assert values["birth_date"].startswith("1987-03-14")
    assert values["form_number"].startswith("RC-114")
    assert values["guardian"] == "empty on this document"
    assert len(css(browser, "#examples-rows tr[data-example-id]")) == 1
    save_screenshot(browser, tmp_path, "console-teach.png", publish=False)

    with service.client(key, timeout=60) as api:
        examples = f"/api/v2/configs/{quote(config_id, safe='')}/examples"
        stored = api.get(f"{examples}/{example_id}")
        assert stored.status_code == 200, stored.text
        assert stored.json()["fields"]["form_number"]["value"] == "RC-114"
        assert stored.json()["fields"]["guardian"] is None

        # A later form of the design, extracted with the config: each value says which example it followed.
        Select(one(browser, "#pg-mode")).select_by_value("auto")
        Select(one(browser, "#pg-config")).select_by_value(config_id)
        assert one(browser, "#pg-fields").get_attribute("value") == ", ".join(FIELDS)
        # The config was made to extract as the playground did (rules only), and the form shows its mode.
        mode = Select(one(browser, "#pg-mode"))
        assert mode.first_selected_option.get_attribute("value") == "rules"
        assert (
            api.get(f"/api/v2/configs/{quote(config_id, safe='')}").json()["params"]["prompt_mode"] == "rules"
        )
        extract(browser, later)
        until(browser, lambda d: "Tobias Lindqvist" in row(d, "patient_name").text, 120, "the later form")
        for field in ("patient_name", "birth_date", "chart_ref", "form_number"):
            followed = row(browser, field).find_element("css selector", ".from-example")
            assert followed.get_attribute("data-example-id") == example_id
            assert followed.text == f"as example {example_id[:8]}"
        assert "ZK-90177" in row(browser, "chart_ref").text
        save_screenshot(browser, tmp_path, "console-teach-followed.png", publish=False)
        # The teach form offers the config the document was extracted with, and lists its example.
        assert Select(one(browser, "#teach-config")).first_selected_option.get_attribute("value") == config_id
        listed = one(browser, f'#examples-rows tr[data-example-id="{example_id}"]')

        listed.find_element("css selector", "button.danger").click()
        until(browser, lambda d: "No examples yet." in one(d, "#examples").text, what="the emptied list")
        assert api.get(f"{examples}/{example_id}").status_code == 404
        assert api.get(examples).json()["data"] == []


def test_a_refusal_marks_only_the_fields_it_names(service: Service, browser: Any) -> None:
    browser.get(f"{service.url}/console/")
    named = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/console/teach.js').then(({ namedFields }) => done(["
        "  namedFields('values not found on the document: form_number, dob', ['dob', 'form', 'form_number']),"
        "  namedFields('values: name at least one field of the config', ['name', 'values']),"
        "]), (error) => done(String(error)));"
    )
    # A field named inside another's name (`form` in `form_number`) or in the sentence is not marked.
    assert named == [["dob", "form_number"], []]
