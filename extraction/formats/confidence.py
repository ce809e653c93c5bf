"""How far to trust a document's text: per element, per page and overall.

Confidences are measurements, never constants: a text layer scores by the share of readable
characters, OCR by the recogniser's own scores, form fields 1.0 (the value is stored in the file).
Averages weigh each element by its length, so a long, clean paragraph is not outvoted by a stray
low-scoring fragment, nor the reverse.
"""

from __future__ import annotations

from collections.abc import Iterable

from extraction.formats.document import ConfidenceSource, Document, Element


def weighted_confidence(elements: Iterable[Element]) -> float | None:
    """Length-weighted mean confidence of elements with text; None when none has text."""
    total = 0
    acc = 0.0
    for element in elements:
        if element.text and element.parent is None:
            weight = len(element.text)
            total += weight
            acc += element.confidence * weight
    return round(acc / total, 4) if total else None


def document_confidence(doc: Document) -> tuple[float, dict[str, float], ConfidenceSource]:
    """(overall_confidence, page_confidence, confidence_source) of a parse result.

    `page_confidence` maps page numbers (as strings) to their confidence; pages without any text
    are left out. The overall figure weighs pages by their amount of text, and the source is the
    one that produced most of the text ("ocr" for a scan, "form_fields" for a filled form).
    An empty document scores 0.0: nothing in it can be trusted to be there.
    """
    chars: dict[int, int] = {}
    for element in doc.elements:
        if element.text and element.parent is None:
            chars[element.page] = chars.get(element.page, 0) + len(element.text)
    pages: dict[str, float] = {}
    by_source: dict[ConfidenceSource, int] = {}
    total = 0
    acc = 0.0
    for page in doc.pages:
        if page.confidence is None:
            continue
        pages[str(page.page)] = page.confidence
        weight = chars.get(page.page, 0) or 1
        total += weight
        acc += page.confidence * weight
        by_source[page.source] = by_source.get(page.source, 0) + weight
    if not total:
        source = doc.pages[0].source if doc.pages else "text_layer"
        return 0.0, pages, source
    dominant = max(by_source, key=lambda s: by_source[s])
    return round(acc / total, 4), pages, dominant
