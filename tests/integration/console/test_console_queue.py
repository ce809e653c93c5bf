"""Working a queue in the console, in headless Chromium on the real service: the page zooms and pans
with its citation boxes on their words, and "next to check" walks a document's values under the
review threshold in page order, then goes on to the batch's next document (issue 38, point 4).

With $AGENTRY_SCREENSHOT_DIR naming a directory the queue's screenshot is saved there as queue.png.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import Service
from tests.support import documents
from tests.support.browser import chromium, css, one, save_screenshot, sign_in, until

pytestmark = pytest.mark.integration

#: Asked in this order; on the page the company's name (the first line, read from its place at the
#: top: under the default threshold of 0.9) is above the address (the second line, also under it),
#: so page order differs from the order asked. The labelled invoice number is sure.
FIELDS = ["address", "invoice_number", "company_name"]
IN_PAGE_ORDER = ["company_name", "address"]
RECEIPTS = [
    [
        "Riverside Bakery Ltd",
        "12 High Street, Springfield",
        "Date: 2024-03-05",
        "Invoice number: INV-7731",
        "Total: 12.50",
    ],
    [
        "Harbour Fish Co",
        "4 Quay Road, Portsmouth",
        "Date: 2024-05-06",
        "Invoice number: INV-88",
        "Total: 40.00",
    ],
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def batch(service: Service) -> dict[str, Any]:
    """A finished batch of the receipts in one workspace: its key, id, record ids (in the batch's
    order) and, per record, the names of its values under the threshold in page order."""
    key = service.key()
    with service.client(key, timeout=120) as api:
        threshold = api.get("/console/config.json").json()["review_confidence"]
        inputs = []
        for number, lines in enumerate(RECEIPTS):
            upload = api.post(
                "/api/v2/files", files={"file": (f"receipt-{number}.pdf", documents.pdf_text([lines]))}
            )
            assert upload.status_code in (200, 201), upload.text
            inputs.append(upload.json()["file_id"])
        started = api.post(
            "/api/v2/extract/async",
            json={"input": inputs, "extraction_config": {"json_options": FIELDS, "prompt_mode": "rules"}},
        )
        assert started.status_code in (200, 202), started.text
        batch_id = started.json()["batch_id"]
        deadline = time.monotonic() + 180
        while True:
            items = api.get(f"/api/v2/batches/{batch_id}").json()["items"]
            if all(item["status"] != "processing" for item in items):
                break
            assert time.monotonic() < deadline, f"the batch did not finish: {items}"
            time.sleep(0.5)
        assert [item["status"] for item in items] == ["completed"] * len(RECEIPTS), items
        marks = {}
        for item in items:
            fields = api.get(f"/api/v2/jobs/{item['record_id']}").json()["result"]["fields"]
            marks[item["record_id"]] = [
                name
                for name, field in sorted(fields.items(), key=lambda pair: _place(pair[1]))
                if field["value"] is not None and field["confidence"] < threshold
            ]
    return {"key": key, "id": batch_id, "records": [item["record_id"] for item in items], "marks": marks}


def _place(field: dict[str, Any]) -> tuple[int, float]:
    """A value's page and the top of its first box, where the API cites it."""
    cited = [c for c in field["citations"] if "page" in c and c.get("normalized_bounding_box")]
    if not cited:
        return (10**6, 0.0)
    return (cited[0]["page"], min(point["y"] for point in cited[0]["normalized_bounding_box"]))


def geometry(driver: Any) -> dict[str, Any]:
    """The page image's and the citation boxes' rectangles on screen, and the viewport's scroll."""
    result: dict[str, Any] = driver.execute_script(
        "const r = (e) => { const b = e.getBoundingClientRect();"
        " return {left: b.left, top: b.top, width: b.width, height: b.height}; };"
        "const v = document.getElementById('page-viewport');"
        "return {image: r(document.getElementById('page-image')), viewport: r(v),"
        " boxes: [...document.querySelectorAll('#page-viewer .citation-box')].map(r),"
        " scroll: {left: v.scrollLeft, top: v.scrollTop}, scale: Number(v.dataset.scale)};"
    )
    return result


def geometry_when(driver: Any, test: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    """The geometry once `test` holds for it."""

    def ready(d: Any) -> dict[str, Any] | None:
        shown = geometry(d)
        return shown if test(shown) else None

    return until(driver, ready, what=what)


def page_shown(driver: Any) -> None:
    until(
        driver,
        lambda d: d.execute_script(
            "const i = document.getElementById('page-image');"
            "return i !== null && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0"
            " && document.querySelectorAll('#page-viewer .citation-box').length > 0;"
        ),
        what="the page image with its box",
    )


def relative(box: dict[str, float], image: dict[str, float]) -> tuple[float, ...]:
    """`box` in fractions of the image it is drawn on."""
    return (
        (box["left"] - image["left"]) / image["width"],
        (box["top"] - image["top"]) / image["height"],
        box["width"] / image["width"],
        box["height"] / image["height"],
    )


def press(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def zoomed_to(driver: Any, width: float, what: str) -> dict[str, Any]:
    return geometry_when(driver, lambda g: abs(g["image"]["width"] - width) < 1.5, what)


def test_the_page_zooms_and_pans_with_its_boxes_on_their_words(
    service: Service, browser: Any, batch: dict[str, Any]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    first = batch["records"][0]
    sign_in(browser, service, batch["key"], f"#/batches/{batch['id']}/{first}")
    one(browser, '#pg-table tr[data-field="company_name"] button.cited-value', timeout=60).click()
    page_shown(browser)
    fitted = geometry(browser)
    assert fitted["scale"] == 1 and one(browser, "#viewer-zoom").text == "fit"
    # Fitted, the page is the viewport's width (within its border and scroll bar).
    assert fitted["viewport"]["width"] - 30 < fitted["image"]["width"] <= fitted["viewport"]["width"]
    box = fitted["boxes"][0]

    def assert_scaled(zoomed: dict[str, Any], factor: float) -> None:
        image = zoomed["image"]
        assert image["width"] == pytest.approx(fitted["image"]["width"] * factor, abs=1.5)
        assert image["height"] == pytest.approx(fitted["image"]["height"] * factor, abs=1.5)
        # The box stays on its words: the same place on the image, its offsets scaled with it.
        assert relative(zoomed["boxes"][0], image) == pytest.approx(relative(box, fitted["image"]), abs=0.003)
        assert zoomed["boxes"][0]["left"] - image["left"] == pytest.approx(
            (box["left"] - fitted["image"]["left"]) * factor, abs=2
        )
        assert zoomed["boxes"][0]["width"] == pytest.approx(box["width"] * factor, abs=2)

    one(browser, "#viewer-zoom-in").click()
    assert_scaled(zoomed_to(browser, fitted["image"]["width"] * 1.25, "a zoom in"), 1.25)
    assert one(browser, "#viewer-zoom").text == "125%"
    browser.execute_script("document.activeElement.blur()")
    press(browser, "+")
    assert_scaled(zoomed_to(browser, fitted["image"]["width"] * 1.5625, "the + key"), 1.5625)
    press(browser, "-")
    zoomed_to(browser, fitted["image"]["width"] * 1.25, "the - key")
    press(browser, "0")
    assert_scaled(zoomed_to(browser, fitted["image"]["width"], "the 0 key"), 1)
    one(browser, "#viewer-zoom-out").click()
    assert_scaled(zoomed_to(browser, fitted["image"]["width"] * 0.8, "a zoom out"), 0.8)
    one(browser, "#viewer-fit").click()
    refitted = zoomed_to(browser, fitted["image"]["width"], "fit")

    # Ctrl+wheel zooms around the pointer: the point of the page under it stays under it.
    view, start = refitted["viewport"], refitted["image"]
    x, y = view["left"] + view["width"] * 0.7, view["top"] + view["height"] * 0.4
    under = ((x - start["left"]) / start["width"], (y - start["top"]) / start["height"])
    for _ in range(3):
        browser.execute_script(
            "document.getElementById('page-viewport').dispatchEvent(new WheelEvent('wheel',"
            " {deltaY: -100, ctrlKey: true, clientX: arguments[0], clientY: arguments[1], bubbles: true, cancelable: true}));",
            x,
            y,
        )
    wheeled = zoomed_to(browser, fitted["image"]["width"] * 1.1**3, "a Ctrl+wheel zoom")
    assert_scaled(wheeled, 1.1**3)
    image = wheeled["image"]
    assert image["left"] + under[0] * image["width"] == pytest.approx(x, abs=2)
    assert image["top"] + under[1] * image["height"] == pytest.approx(y, abs=2)

    # A drag pans: the page moves with the pointer.
    viewport = one(browser, "#page-viewport")
    before = geometry(browser)
    ActionChains(browser).move_to_element(viewport).click_and_hold().move_by_offset(
        60, 40
    ).release().perform()
    moved = geometry_when(browser, lambda g: g["scroll"] != before["scroll"], "a pan")
    assert moved["scroll"]["left"] == pytest.approx(before["scroll"]["left"] - 60, abs=2)
    assert moved["scroll"]["top"] == pytest.approx(before["scroll"]["top"] - 40, abs=2)
    assert moved["image"]["left"] == pytest.approx(before["image"]["left"] + 60, abs=2)
    assert moved["boxes"][0]["left"] - moved["image"]["left"] == pytest.approx(
        before["boxes"][0]["left"] - before["image"]["left"], abs=1
    )


def current(driver: Any) -> tuple[str, str]:
    """The document shown (its record id) and the value the walk is on (the row in focus)."""
    row = one(driver, "#pg-table tr.current-check")
    focused = driver.execute_script("return document.activeElement.closest('tr')?.dataset.field ?? null")
    assert focused == row.get_attribute("data-field")
    return one(driver, "#batch-document").get_attribute("data-record-id"), row.get_attribute("data-field")


def walked_to(driver: Any, record: str, field: str) -> None:
    until(
        driver,
        lambda d: css(
            d, f'#batch-document[data-record-id="{record}"] #pg-table tr.current-check[data-field="{field}"]'
        ),
        what=f"{field} of {record}",
    )
    assert current(driver) == (record, field)
    assert one(driver, "#queue-position").get_attribute("data-field") == field
    page_shown(driver)
    # The value's box is in view in the viewport, zoomed in to be read.
    shown = geometry_when(driver, lambda g: g["scale"] > 1, "the zoom to the value")
    box, view = shown["boxes"][0], shown["viewport"]
    assert view["left"] <= box["left"] and box["left"] + box["width"] <= view["left"] + view["width"]
    assert view["top"] <= box["top"] and box["top"] + box["height"] <= view["top"] + view["height"]


def test_next_to_check_walks_the_marked_values_in_page_order_and_then_the_next_document(
    service: Service, browser: Any, batch: dict[str, Any], tmp_path: Path
) -> None:
    first, second = batch["records"]
    assert batch["marks"] == {first: IN_PAGE_ORDER, second: IN_PAGE_ORDER}

    sign_in(browser, service, batch["key"], f"#/batches/{batch['id']}")
    rows = until(
        browser,
        lambda d: (
            css(d, "#batch-docs tr[data-record-id]")
            if len(css(d, "#batch-docs tr[data-record-id]")) == 2
            else None
        ),
        what="the batch's documents",
    )
    assert [row.get_attribute("data-record-id") for row in rows] == [first, second]
    assert [row.get_attribute("data-to-check") for row in rows] == ["2", "2"]
    assert one(browser, "#batch-summary").text.startswith("2 documents · 4 values to check")

    press(browser, "n")  # from the list: the batch's first value to check
    walked_to(browser, first, "company_name")
    # A key typed into a value's input is text, not a step.
    field_input = one(browser, '#pg-table tr[data-field="invoice_number"] input.pg-correct')
    field_input.click()
    field_input.send_keys("n")
    assert one(browser, "#pg-table tr.current-check").get_attribute("data-field") == "company_name"
    assert one(browser, "#queue-position").get_attribute("data-field") == "company_name"
    field_input.send_keys("\b")
    one(browser, "#queue-next").click()
    walked_to(browser, first, "address")
    press(browser, "n")  # past the document's last value: the batch's next document
    walked_to(browser, second, "company_name")
    assert browser.execute_script("return location.hash").startswith(f"#/batches/{batch['id']}/{second}")
    assert one(browser, "#batch-position").text.startswith("Document 2 of 2")
    save_screenshot(browser, tmp_path, "queue.png")

    press(browser, "p")  # before the document's first value: the previous document's last
    walked_to(browser, first, "address")
    press(browser, "p")
    walked_to(browser, first, "company_name")
    press(browser, "p")
    until(
        browser,
        lambda d: d.find_element("id", "queue-position").text == "This is the first value to check.",
        what="the start",
    )

    one(browser, "#batch-next-doc").click()
    one(browser, f'#batch-document[data-record-id="{second}"]')
    press(browser, "p")  # from no value: the document's last
    walked_to(browser, second, "address")
    press(browser, "n")
    until(
        browser,
        lambda d: (
            d.find_element("id", "queue-position").text == "That was the last value to check in this batch."
        ),
        what="the end of the batch",
    )
    assert current(browser) == (second, "address")


def test_marks_are_put_in_page_order_page_then_line_then_left(service: Service, browser: Any) -> None:
    def at(page: int, left: float, top: float, confidence: float = 0.5) -> dict[str, Any]:
        corners = [{"x": left, "y": top}, {"x": left + 0.1, "y": top + 0.02}]
        return {
            "value": "v",
            "confidence": confidence,
            "citations": [{"file": "a.pdf", "page": page, "normalized_bounding_box": corners}],
        }

    fields = {
        "second_page": at(2, 0.1, 0.1),
        "right_on_line": at(1, 0.6, 0.301),  # a hair lower than its line's left word: still that line
        "left_on_line": at(1, 0.1, 0.3),
        "top": at(1, 0.5, 0.1),
        "sure": at(1, 0.1, 0.05, confidence=0.95),
        "nowhere": {"value": "v", "confidence": 0.2, "citations": []},
        "missing": {"value": None, "confidence": 0.0, "citations": []},
    }
    browser.get(f"{service.url}/console/")
    order = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/console/queue.js').then(({ marksInPageOrder }) =>"
        " done(marksInPageOrder(arguments[0], 0.9).map((m) => m.name)), (e) => done(String(e)));",
        fields,
    )
    assert order == ["top", "left_on_line", "right_on_line", "second_page", "nowhere"]


def on_row(field: str) -> Callable[[Any], list[Any]]:
    """Whether the walk is on `field`'s row."""
    return lambda driver: css(driver, f'#pg-table tr.current-check[data-field="{field}"]')


def test_the_playground_walks_its_values_to_check(service: Service, browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "receipt.pdf"
    path.write_bytes(documents.pdf_text([RECEIPTS[0]]))
    sign_in(browser, service, service.key(), "#/playground")
    one(browser, "#pg-file").send_keys(str(path))
    one(browser, "#pg-fields").send_keys(", ".join(FIELDS))
    one(browser, "#pg-extract").click()
    position = one(browser, "#queue-position", timeout=120)
    assert position.text == "2 values to check: press n"
    for field in IN_PAGE_ORDER:
        press(browser, "n")
        until(browser, on_row(field), what=field)
        assert one(browser, "#queue-position").get_attribute("data-field") == field
        page_shown(browser)
    press(browser, "n")
    until(
        browser,
        lambda d: d.find_element("id", "queue-position").text == "That was the last value to check.",
        what="the end",
    )
    press(browser, "p")
    until(browser, on_row("company_name"), what="back")


def test_a_batch_is_extracted_from_files_and_opened_by_id(
    service: Service, browser: Any, batch: dict[str, Any], tmp_path: Path
) -> None:
    sign_in(browser, service, batch["key"], "#/batches")
    one(browser, "#batch-open-id").send_keys(batch["id"])
    one(browser, "#batch-open button[type=submit]").click()
    until(
        browser, lambda d: len(css(d, "#batch-docs tr[data-record-id]")) == 2, what="the batch opened by id"
    )
    one(browser, '#nav a[data-view="batches"]').click()
    # The workspace's batches are listed (GET /api/v2/batches), each a link to its documents.
    listed = one(browser, f'#batch-list tr[data-batch-id="{batch["id"]}"] a', timeout=30)
    assert listed.text == batch["id"][:8] and listed.get_attribute("href").endswith(
        f"#/batches/{batch['id']}"
    )

    paths = []
    for number, lines in enumerate(RECEIPTS):
        paths.append(tmp_path / f"new-{number}.pdf")
        paths[-1].write_bytes(documents.pdf_text([lines]))
    one(browser, "#batch-files").send_keys("\n".join(str(p) for p in paths))
    one(browser, "#batch-fields").send_keys(", ".join(FIELDS))
    one(browser, "#batch-extract").click()

    def both_read(d: Any) -> list[Any] | None:
        rows = css(d, '#batch-docs tr[data-to-check="2"]')
        return rows if len(rows) == 2 else None

    rows = until(browser, both_read, timeout=180, what="the new batch's documents, read")
    assert [row.find_element("css selector", "a").text for row in rows] == ["new-0.pdf", "new-1.pdf"]
    assert batch["id"] not in browser.execute_script("return location.hash")
    one(browser, "#batch-start").click()
    until(
        browser,
        lambda d: css(d, '#pg-table tr.current-check[data-field="company_name"]'),
        what="the first value",
    )
    assert one(browser, "#batch-position").text.startswith("Document 1 of 2: new-0.pdf")


def test_a_value_corrected_in_a_batch_is_kept_and_the_document_opens_to_be_taught(
    service: Service, browser: Any, batch: dict[str, Any]
) -> None:
    second = batch["records"][1]
    sign_in(browser, service, batch["key"], f"#/batches/{batch['id']}/{second}")
    field = one(browser, '#pg-table input.pg-correct[data-field="company_name"]', timeout=60)
    field.clear()
    field.send_keys("Harbour Fish Company")
    one(browser, '#pg-table input.value-checked[data-field="company_name"]').click()
    one(browser, "#pg-save-corrections").click()
    until(browser, lambda d: one(d, "#pg-corrections-message").text == "Saved 1 value.", what="the save")
    with service.client(batch["key"]) as api:
        kept = api.get(f"/api/v2/jobs/{second}").json()["corrections"]["company_name"]
    assert kept["value"] == "Harbour Fish Company" and kept["checked"] is True

    # "Save as example…" opens the same job in the playground, the correction kept, the teach form under it.
    one(browser, "#batch-teach").click()
    until(
        browser,
        lambda d: d.execute_script("return location.hash") == f"#/playground/{second}",
        what="the playground's address",
    )
    corrected = one(browser, '#pg-table input.pg-correct[data-field="company_name"]', timeout=60)
    until(
        browser, lambda d: corrected.get_attribute("value") == "Harbour Fish Company", what="the correction"
    )
    assert one(browser, "#teach-save").is_displayed()
