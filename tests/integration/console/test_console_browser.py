"""The console in headless Chromium: sign in, follow a task's feed live, see a cited value's box,
see each extracted value's confidence and which values are under the review threshold.

Each test saves a screenshot in its tmp dir (and in $AGENTRY_SCREENSHOT_DIR when set: that is how
docs/console.png is made) for people to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.agents import ask, create_agent, scripted, wait_status
from tests.support.browser import chromium, css, one, save_screenshot, sign_in, until

pytestmark = pytest.mark.integration

INVOICE = {"invoice_number": "INV-2024-0042", "customer_name": "Ada Lovelace", "total_amount": "1234.50"}
#: A receipt with a text layer: its invoice number has a label (a confidence near 1), its company
#: name only its place at the top of the page, a reading the calibration trusts far less (about 0.75,
#: under the default review threshold of 0.9).
RECEIPT_LINES = [
    "Riverside Bakery Ltd",
    "12 High Street, Springfield",
    "Date: 2024-03-05",
    "Invoice number: INV-7731",
    "Bread 3.50",
    "Total: 12.50",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def invoice_pdf() -> bytes:
    return documents.pdf_form(INVOICE)


@pytest.fixture(scope="module")
def receipt_pdf() -> bytes:
    return documents.pdf_text([RECEIPT_LINES])


def review_threshold(service: Service) -> float:
    """The threshold the console is given (AGENTRY_REVIEW_CONFIDENCE; the session service keeps the default)."""
    with httpx.Client(base_url=service.url) as anonymous:
        config = anonymous.get("/console/config.json")
    assert config.status_code == 200, config.text
    threshold: float = config.json()["review_confidence"]
    return threshold


def assert_confidence_shown(note: Any, threshold: float) -> float:
    """`note` (a `.confidence`) shows its confidence as a whole percentage, rounded down, and carries
    the check badge, with its reason in words (and what lowered the confidence), exactly when the
    confidence is under `threshold`."""
    from selenium.webdriver.common.by import By

    confidence = float(note.get_attribute("data-confidence"))
    shown = note.find_element(By.CSS_SELECTOR, ".confidence-value").text
    assert shown == f"{int(confidence * 100 + 1e-9)}%"
    badges = note.find_elements(By.CSS_SELECTOR, ".check-badge")
    low = confidence < threshold
    assert note.get_attribute("data-check") == str(low).lower()
    assert len(badges) == (1 if low else 0)
    if low:
        assert badges[0].text.lower() == "check"  # shown in capitals by the style
        spoken = note.find_element(By.CSS_SELECTOR, ".visually-hidden").get_attribute("textContent")
        said = f"Check this value against the document: confidence under {int(threshold * 100)}%"
        # Then why, from the field's review_reasons, when the evidence gives any.
        assert spoken == said or spoken.startswith(f"{said}: ")
    return confidence


def assert_box_on_page_image(driver: Any) -> dict[str, Any]:
    """The page image has loaded and a citation box of non-zero size lies inside it."""
    until(
        driver,
        lambda d: d.execute_script(
            "const i = document.getElementById('page-image');"
            "return i !== null && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().height > 0;"
        ),
        what="the page image",
    )
    geometry: dict[str, Any] = driver.execute_script(
        "const r = (e) => { const b = e.getBoundingClientRect();"
        " return {left: b.left, top: b.top, right: b.right, bottom: b.bottom, width: b.width, height: b.height}; };"
        "return {image: r(document.getElementById('page-image')),"
        " boxes: [...document.querySelectorAll('.citation-box')].map(r)};"
    )
    image, boxes = geometry["image"], geometry["boxes"]
    assert boxes, "no citation box was drawn"
    for box in boxes:
        assert box["width"] > 0 and box["height"] > 0
        assert image["left"] - 1 <= box["left"] < box["right"] <= image["right"] + 1
        assert image["top"] - 1 <= box["top"] < box["bottom"] <= image["bottom"] + 1
    return geometry


def test_a_task_feed_updates_live_and_a_cited_value_shows_its_box(
    service: Service, browser: Any, invoice_pdf: bytes, tmp_path: Path
) -> None:
    key = service.key()
    extract = {
        "tool_calls": [
            {
                "name": "extract_document",
                "arguments": {
                    "input": "invoice.pdf",
                    "extraction_config": {"json_options": list(INVOICE), "prompt_mode": "rules"},
                },
            }
        ]
    }
    # The task pauses on a question, so the test decides when the next feed items come: they are
    # written only after the page is open and following the stream.
    filed = {
        "delay_seconds": 0.5,
        "answer": "Filed invoice INV-2024-0042 for Ada Lovelace.",
        "structured": {
            "invoice_number": "INV-2024-0042",
            "customer": {"name": "Ada Lovelace"},
            "total": "1234.50",
        },
    }
    with service.client(key, timeout=120) as api:
        agent = create_agent(
            api,
            scripted(
                extract,
                ask("File this invoice?"),
                filed,
                output_schema={"type": "object"},
                structured_output_citations=True,
            ),
            name="Invoice filer",
        )
        started = api.post(
            f"/api/v1/agents/{agent['id']}/run",
            data={"query": "File the attached invoice"},
            files=[("files", ("invoice.pdf", invoice_pdf))],
        )
        assert started.status_code == 201, started.text
        task_id = started.json()["task_id"]
        wait_status(api, task_id, "waiting_for_input", timeout=120)

        sign_in(browser, service, key)
        one(browser, f'#tasks tr[data-task-id="{task_id}"] a').click()
        one(browser, '#task-status [data-status="waiting_for_input"]')
        until(browser, lambda d: d.find_element("id", "feed-state").text == "live", what="the live feed")
        history = len(css(browser, "#feed .feed-item"))
        assert history >= 3 and not css(browser, '#feed [data-arrived="live"]')

        reply = api.post(f"/api/v1/tasks/{task_id}/message", json={"message": "yes, file it"})
        assert reply.status_code == 200, reply.text

    arrived = one(browser, '#feed .feed-item[data-type="user_message"]:not(:first-child)')
    assert "yes, file it" in arrived.text
    one(browser, '#task-status [data-status="completed"]', timeout=60)
    assert len(css(browser, "#feed .feed-item")) > history + 1
    assert css(browser, '#feed .feed-item[data-type="assistant_message"]')

    cited = one(browser, 'button.cited-value[data-path="invoice_number"]')
    assert cited.text.startswith("INV-2024-0042")
    cited.click()
    assert_box_on_page_image(browser)
    save_screenshot(browser, tmp_path, "console-task.png", publish=False)

    # The reply and everything after it came over the event stream, not from the history.
    assert arrived.get_attribute("data-arrived") == "live"
    assert css(browser, '#feed .feed-item[data-arrived="live"][data-type="assistant_message"]')


def test_the_playground_extracts_fields_and_shows_their_boxes(
    service: Service, browser: Any, invoice_pdf: bytes, tmp_path: Path
) -> None:
    key = service.key()
    path = tmp_path / "invoice.pdf"
    path.write_bytes(invoice_pdf)
    sign_in(browser, service, key, "#/playground")
    one(browser, "#pg-file").send_keys(str(path))
    one(browser, "#pg-fields").send_keys("invoice_number, customer_name")
    one(browser, "#pg-extract").click()

    value = one(browser, '#pg-table tr[data-field="customer_name"] button.cited-value', timeout=120)
    assert value.text == "Ada Lovelace"
    row = one(browser, '#pg-table tr[data-field="customer_name"]')
    assert "%" in row.text and "page 1" in row.text
    value.click()
    geometry = assert_box_on_page_image(browser)
    # The customer's name is the second field of the form, below the invoice number's line.
    assert geometry["boxes"][0]["top"] > geometry["image"]["top"] + 0.1 * geometry["image"]["height"]
    save_screenshot(browser, tmp_path, "console-playground.png", publish=False)


def test_the_playground_marks_the_values_under_the_review_threshold(
    service: Service, browser: Any, receipt_pdf: bytes, tmp_path: Path
) -> None:
    threshold = review_threshold(service)
    assert threshold == 0.9  # the default, from the calibration (core/infra/settings.py)
    path = tmp_path / "receipt.pdf"
    path.write_bytes(receipt_pdf)
    sign_in(browser, service, service.key(), "#/playground")
    one(browser, "#pg-file").send_keys(str(path))
    one(browser, "#pg-fields").send_keys("company_name, invoice_number")
    one(browser, "#pg-extract").click()

    doubtful = one(browser, '#pg-table tr[data-field="company_name"]', timeout=120)
    sure = one(browser, '#pg-table tr[data-field="invoice_number"]')
    assert "Riverside Bakery Ltd" in doubtful.text and "INV-7731" in sure.text
    low = assert_confidence_shown(
        one(browser, '#pg-table tr[data-field="company_name"] .confidence'), threshold
    )
    high = assert_confidence_shown(
        one(browser, '#pg-table tr[data-field="invoice_number"] .confidence'), threshold
    )
    assert low < threshold <= high
    assert doubtful.get_attribute("data-check") == "true" and "to-check" in doubtful.get_attribute("class")
    assert sure.get_attribute("data-check") == "false"
    # The mark says why, from the field's review_reasons: the company is read from its place.
    badge = one(browser, '#pg-table tr[data-field="company_name"] .check-badge')
    assert "no label named it" in badge.get_attribute("title")
    spoken = one(browser, '#pg-table tr[data-field="company_name"] .confidence .visually-hidden')
    assert "no label named it" in spoken.get_attribute("textContent")
    summary = one(browser, "#pg-review")
    assert summary.text == "1 value to check (confidence under 90%)"
    assert summary.get_attribute("role") == "status"
    save_screenshot(browser, tmp_path, "console-playground-review.png", publish=False)


def test_a_tasks_structured_output_shows_each_extracted_values_confidence(
    service: Service, browser: Any, receipt_pdf: bytes, tmp_path: Path
) -> None:
    key = service.key()
    threshold = review_threshold(service)
    extract = {
        "tool_calls": [
            {
                "name": "extract_document",
                "arguments": {
                    "input": "receipt.pdf",
                    "extraction_config": {
                        "json_options": ["company_name", "invoice_number"],
                        "prompt_mode": "rules",
                    },
                },
            }
        ]
    }
    # `note` is not in the document: its leaf has no citation and so no confidence either.
    filed = {
        "answer": "Filed the receipt.",
        "structured": {"company": "Riverside Bakery Ltd", "invoice_number": "INV-7731", "note": "filed"},
    }
    with service.client(key, timeout=120) as api:
        agent = create_agent(
            api,
            scripted(extract, filed, output_schema={"type": "object"}, structured_output_citations=True),
            name="Receipt filer",
        )
        started = api.post(
            f"/api/v1/agents/{agent['id']}/run",
            data={"query": "File the attached receipt"},
            files=[("files", ("receipt.pdf", receipt_pdf))],
        )
        assert started.status_code == 201, started.text
        task_id = started.json()["task_id"]
        wait_status(api, task_id, "completed", timeout=120)

    sign_in(browser, service, key, f"#/tasks/{task_id}")
    doubtful = one(browser, '#structured-output .cited-leaf[data-path="company"]', timeout=60)
    sure = one(browser, '#structured-output .cited-leaf[data-path="invoice_number"]')
    # The confidence sits beside the value's citation button, which still shows the page.
    assert doubtful.find_element("css selector", "button.cited-value").text.startswith("Riverside Bakery Ltd")
    low = assert_confidence_shown(doubtful.find_element("css selector", ".confidence"), threshold)
    high = assert_confidence_shown(sure.find_element("css selector", ".confidence"), threshold)
    assert low < threshold <= high
    assert doubtful.get_attribute("data-check") == "true" and sure.get_attribute("data-check") == "false"
    assert one(browser, "#output-review").text == "1 value to check (confidence under 90%)"
    assert not css(browser, '#structured-output [data-path="note"] .confidence')
    doubtful.find_element("css selector", "button.cited-value").click()
    assert_box_on_page_image(browser)
    # The README's picture: a feed, a structured output with a value to check, and its box.
    save_screenshot(browser, tmp_path, "console.png")


def test_signed_out_the_page_shows_only_the_sign_in_and_loads_its_favicon(
    service: Service, browser: Any
) -> None:
    browser.get(f"{service.url}/console/")
    browser.execute_script("sessionStorage.clear()")
    browser.get_log("browser")  # forget what earlier pages logged
    browser.get(f"{service.url}/console/#/tasks")
    until(browser, lambda d: d.find_element("id", "login").is_displayed(), what="the sign-in form")
    links = css(browser, "#nav a")
    assert len(links) == 4
    assert not any(link.is_displayed() for link in links)
    assert not browser.find_element("id", "sign-out").is_displayed()

    icon = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const link = document.querySelector('link[rel=icon]');"
        "fetch(link.href).then((r) => done([r.status, r.headers.get('content-type')]), (e) => done(String(e)));"
    )
    assert icon[0] == 200 and icon[1].startswith("image/svg+xml"), icon
    failed = [e["message"] for e in browser.get_log("browser") if "Failed to load resource" in e["message"]]
    assert not failed, failed

    # Signed in the links show; signed out again they hide.
    sign_in(browser, service, service.key())
    assert all(link.is_displayed() for link in css(browser, "#nav a"))
    one(browser, "#sign-out").click()
    until(browser, lambda d: d.find_element("id", "login").is_displayed(), what="the sign-in form again")
    assert not any(link.is_displayed() for link in css(browser, "#nav a"))


def test_the_playground_says_which_fields_were_not_found_and_what_was_read(
    service: Service, browser: Any, invoice_pdf: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "invoice.pdf"
    path.write_bytes(invoice_pdf)
    sign_in(browser, service, service.key(), "#/playground")
    one(browser, "#pg-file").send_keys(str(path))
    one(browser, "#pg-fields").send_keys("invoice_number, date_of_birth")
    one(browser, "#pg-extract").click()

    found = one(browser, '#pg-table tr[data-field="invoice_number"][data-found="true"]', timeout=120)
    assert "INV-2024-0042" in found.text and "%" in found.text
    missing = one(browser, '#pg-table tr[data-field="date_of_birth"][data-found="false"]')
    assert "not found" in missing.text and "%" not in missing.text and "—" not in missing.text
    note = one(browser, "#pg-missing > p").text
    assert "Not found: date_of_birth." in note and "invoice_number" not in note
    assert "form fields" in note  # how this document was read
    # What was read: the document's own text, where a person can look for the missing field.
    until(
        browser, lambda d: "INV-2024-0042" in d.find_element("id", "pg-read-text").text, what="the read text"
    )
    assert "Ada Lovelace" in one(browser, "#pg-read-text").text
    save_screenshot(browser, tmp_path, "console-playground-not-found.png", publish=False)


def test_the_event_stream_parser_handles_split_chunks_and_line_endings(
    service: Service, browser: Any
) -> None:
    browser.get(f"{service.url}/console/")
    events = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/console/sse.js').then(({ SseParser }) => {"
        "  const text = 'id: 1-0\\r\\nevent: feed\\r\\ndata: {\"a\":1}\\r\\n\\r\\n: ping\\n\\n'"
        "    + 'id: 2-0\\revent: end\\rdata: {\"b\":\\rdata: 2}\\r\\r';"
        "  const parser = new SseParser(); const out = [];"
        "  for (let i = 0; i < text.length; i += 3) out.push(...parser.push(text.slice(i, i + 3)));"
        "  done(out);"
        "}, (error) => done(String(error)));"
    )
    assert events == [
        {"type": "feed", "data": '{"a":1}', "id": "1-0"},
        {"type": "end", "data": '{"b":\n2}', "id": "2-0"},
    ]


def test_console_files_are_served_with_a_same_origin_policy(service: Service) -> None:
    with httpx.Client(base_url=service.url) as anonymous:
        redirect = anonymous.get("/console")
        assert redirect.status_code in (307, 308) and redirect.headers["location"].endswith("/console/")
        page = anonymous.get("/console/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert 'type="module"' in page.text
        policy = page.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "connect-src 'self'" in policy
        script = anonymous.get("/console/app.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert anonymous.get("/console/missing.js").status_code == 404
        # The page's settings: the review threshold, with the same headers as the files.
        config = anonymous.get("/console/config.json")
        assert config.status_code == 200 and config.json() == {"review_confidence": 0.9}
        assert config.headers["content-security-policy"] == policy
