"""Shared plumbing of the PDF modules: loading PyMuPDF, and boxes on the page as displayed.

PyMuPDF reports text, widgets and tables on the unrotated page; a rotated page's boxes are turned
with it, so every box matches the page size reported and the rendered image used for OCR.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from extraction.formats.document import Box

# PyMuPDF objects (documents, pages, widgets): the library's annotations are too partial for
# mypy's strict mode, so they are handled as Any.
PdfDocument = Any
PdfPage = Any


def load_pymupdf() -> Any:
    """The PyMuPDF module, imported on first use so that workers that never see a PDF stay light."""
    import pymupdf

    return pymupdf


def to_box(bbox: Iterable[float], turn: Any) -> Box:
    """A box on the displayed page; `turn` is the page's rotation matrix, None when unrotated."""
    x0, y0, x1, y1 = bbox
    if turn is None:
        return Box(float(x0), float(y0), float(x1), float(y1))
    r = load_pymupdf().Rect(x0, y0, x1, y1) * turn
    return Box(float(r.x0), float(r.y0), float(r.x1), float(r.y1))


def center_in(box: Box, areas: list[Box]) -> bool:
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    return any(a.x0 <= cx <= a.x1 and a.y0 <= cy <= a.y1 for a in areas)
