"""Batch extraction in-process on the session's Ray: the Ray Data helpers, and `extract_many` and
the Python client called from inside a running event loop, as a notebook cell calls them."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from agentry_client import AsyncClient, Client

from tests.integration.conftest import TEST_POLL, Service
from tests.support import documents

pytestmark = pytest.mark.integration

FIELDS = ["invoice_number", "total"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("batch")
    (path / "a.pdf").write_bytes(documents.pdf_text([["ACME Ltd", "Invoice Number: INV-1", "Total: 10.50"]]))
    (path / "b.docx").write_bytes(documents.docx(["Globex", "Invoice Number: INV-2", "Total: 20.00"]))
    (path / "broken.pdf").write_bytes(b"%PDF-1.7\ncut short")
    return path


def test_extract_dataset_gives_one_row_per_document_with_confidence_and_citations(
    service: Service, folder: Path, tmp_path: Path
) -> None:
    from extraction.jobs.dataset import extract_dataset, read_documents

    results = extract_dataset(read_documents(str(folder)), FIELDS, workers=2)
    frame = results.to_pandas().set_index("path")
    assert sorted(Path(p).name for p in frame.index) == ["a.pdf", "b.docx", "broken.pdf"]
    a = frame.loc[str(folder / "a.pdf")]
    assert a["invoice_number"] == "INV-1" and a["total"] == "10.50" and pd.isna(a["error"])
    assert 0.5 < a["invoice_number_confidence"] <= 1.0
    assert json.loads(a["total_citations"])[0]["page"] == 1
    assert frame.loc[str(folder / "b.docx")]["invoice_number"] == "INV-2"
    broken = frame.loc[str(folder / "broken.pdf")]
    # The damaged file fails its own row, in the API's words; the others are unaffected.
    assert "damaged" in broken["error"] and pd.isna(broken["invoice_number"])

    # The same rows stream to Parquet and JSON files, with one schema across every block.
    import pyarrow.parquet as pq

    results.write_parquet(str(tmp_path / "parquet"))
    table = pq.read_table(tmp_path / "parquet")
    assert table.num_rows == 3
    assert table.schema.field("total_confidence").type == "double"
    results.write_json(str(tmp_path / "json"))
    lines = [json.loads(line) for f in (tmp_path / "json").iterdir() for line in f.read_text().splitlines()]
    assert sorted(row["invoice_number"] or "" for row in lines) == ["", "INV-1", "INV-2"]


def test_parse_and_classify_datasets(service: Service, folder: Path) -> None:
    from extraction.jobs.dataset import classify_dataset, parse_dataset, read_documents

    documents_ = read_documents([str(folder / "*.pdf"), f"file://{folder}/*.docx"])
    parsed = parse_dataset(documents_, output_format="text").to_pandas().set_index("path")
    assert "INV-1" in parsed.loc[str(folder / "a.pdf")]["content"]
    assert parsed.loc[str(folder / "b.docx")]["page_count"] == 1
    assert "damaged" in parsed.loc[str(folder / "broken.pdf")]["error"]

    classified = classify_dataset(documents_, ["invoice", "contract"], prompt_mode="rules").to_pandas()
    by_name = {
        Path(p).name: row for p, row in zip(classified["path"], classified.to_dict("records"), strict=True)
    }
    assert by_name["a.pdf"]["category"] == "invoice" and pd.isna(by_name["a.pdf"]["error"])
    assert json.loads(by_name["b.docx"]["classification"])["category"] == "invoice"
    assert pd.isna(by_name["broken.pdf"]["category"]) and by_name["broken.pdf"]["error"]


async def test_extract_many_inside_a_running_event_loop(service: Service, folder: Path) -> None:
    """A notebook cell runs in an event loop: the blocking call and the awaited one both work."""
    from extraction.jobs.batch import extract_many, extract_many_async

    pattern = str(folder / "*")
    blocking = extract_many(pattern, FIELDS, progress=False)
    awaited = await extract_many_async(pattern, FIELDS, progress=False)
    for records in (blocking, awaited):
        by_name = {Path(r["path"]).name: r for r in records}
        assert by_name["a.pdf"]["data"]["invoice_number"] == "INV-1"
        assert by_name["b.docx"]["data"]["total"] == "20.00"
        assert "damaged" in by_name["broken.pdf"]["error"]


def test_per_document_time_limit_is_an_argument(service: Service, folder: Path) -> None:
    from extraction.jobs.batch import extract_many

    records = extract_many(str(folder / "a.pdf"), FIELDS, progress=False, timeout_seconds=0.001)
    assert records[0]["data"] is None
    assert records[0]["error"] == "the document took longer than 0.001 s to process"


async def test_python_clients_inside_a_running_event_loop(
    service: Service, api_key: str, folder: Path
) -> None:
    """The blocking client makes no use of asyncio, so a running loop does not disturb it."""
    with Client(service.url, api_key, poll=TEST_POLL) as client:
        job = client.extract(client.upload(str(folder / "a.pdf")), FIELDS)
    async with AsyncClient(service.url, api_key, poll=TEST_POLL) as aclient:
        awaited = await aclient.extract(await aclient.upload(str(folder / "b.docx")), FIELDS)
    assert job.result is not None and job.result["data"]["invoice_number"] == "INV-1"
    assert awaited.result is not None and awaited.result["data"]["invoice_number"] == "INV-2"


def test_a_multi_page_scan_is_read_in_ranges_and_joined_in_page_order(
    service: Service, tmp_path: Path
) -> None:
    """A scan's pages are OCR'd as separate ranges on the pool's workers (one page each here, on
    the session's two CPUs) and come back as one document, page after page."""
    import io

    from PIL import Image

    from extraction.jobs.dataset import parse_dataset, read_documents

    frames = [
        Image.open(io.BytesIO(documents.image("png", f"Invoice {n}0000"))).convert("RGB") for n in (1, 2, 3)
    ]
    buffer = io.BytesIO()
    frames[0].save(buffer, "TIFF", save_all=True, append_images=frames[1:])
    (tmp_path / "scan.tiff").write_bytes(buffer.getvalue())

    rows = parse_dataset(read_documents(str(tmp_path / "scan.tiff")), output_format="text", workers=2)
    row = rows.to_pandas().iloc[0]
    assert row["page_count"] == 3
    content = row["content"]
    positions = [content.find(f"{n}0000") for n in (1, 2, 3)]
    assert -1 not in positions and positions == sorted(positions), content
