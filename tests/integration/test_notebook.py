"""examples/batch_extraction.ipynb runs on a real Jupyter kernel against the session's local Ray.

The kernel inherits the session's settings (its AGENTRY_DATA_DIR), so the notebook's batch joins the
running service's Ray as a notebook beside `agentry up` does, instead of starting another.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import Service

pytestmark = pytest.mark.integration

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "batch_extraction.ipynb"


def _texts(cell: Any) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if "text" in output:
            parts.append(output["text"])
        parts.extend(output.get("data", {}).get(kind, "") for kind in ("text/plain", "text/html"))
    return "\n".join(parts)


def test_example_notebook_extracts_a_folder_into_a_dataframe(service: Service) -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()

    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    errors = [o for cell in code for o in cell.outputs if o.output_type == "error"]
    assert not errors, errors
    table = _texts(code[1])
    assert "INV-1001" in table and "INV-1002" in table and "INV-1004" in table
    summary = re.search(r"(\d+) documents, (\d+) need review: (.*)", _texts(code[2]))
    assert summary is not None, _texts(code[2])
    assert summary.group(1) == "6"
    # The damaged file fails its own row; the clean, labelled invoices need no review.
    flagged = summary.group(3)
    assert "damaged.pdf" in flagged and "invoice-acme.pdf" not in flagged
    assert 1 <= int(summary.group(2)) < 6
    assert "The PDF is damaged" in _texts(code[2])
    assert '"page": 1' in _texts(code[3])
    images = [o for o in code[4].outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, "the confidence histogram was not drawn"
