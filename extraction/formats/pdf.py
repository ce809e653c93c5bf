"""PDF engine (PyMuPDF): text in reading order, headings, lists, tables, form fields, OCR of scans.

Coordinates are page points (72 dpi) on the page as displayed, origin top left. A page range can
be parsed on its own, so a long PDF is split across workers and merged in order; heading levels
are ranked within the range parsed.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from extraction.formats.bilevel import despeckled, one_bit_images
from extraction.formats.checkboxes import with_checkboxes
from extraction.formats.circled import with_circled
from extraction.formats.comb_boxes import without_comb_boxes
from extraction.formats.confidence import weighted_confidence
from extraction.formats.deskew import deskewed, turned_back
from extraction.formats.document import (
    Box,
    ConfidenceSource,
    Document,
    Element,
    ElementType,
    EmbeddedValue,
    Line,
    Page,
    Word,
    assign_ids,
)
from extraction.formats.einvoice import MAX_EINVOICE_BYTES, read_einvoice
from extraction.formats.errors import InvalidDocument, PageRangeError, PasswordProtected
from extraction.formats.limits import MAX_PAGES, MAX_RENDER_PIXELS, check_page_count
from extraction.formats.markdown import is_list_item, table_markdown
from extraction.formats.ocr import ocr_image
from extraction.formats.pdf_forms import form_fields
from extraction.formats.pdf_geometry import PdfDocument, PdfPage, center_in, load_pymupdf, to_box
from extraction.formats.pdf_marks import drawn_marks, place_marks
from extraction.formats.pdf_tables import PdfTable, Span, find_tables
from extraction.formats.reading_order import columns, ocr_elements, reading_order, span_words

#: Resolution at which pages without a text layer are rendered for OCR.
OCR_DPI = 200
#: A page with fewer visible characters than this in its text layer is treated as scanned.
MIN_TEXT_LAYER_CHARS = 16
#: A page without usable text is OCR'd only if pictures cover this share of it...
MIN_IMAGE_SHARE = 0.05
#: ...or it has at least this many vector paths (text drawn as outlines has hundreds).
MIN_VECTOR_PATHS = 10
#: Fills covering this share of the page are backgrounds, not content.
BACKGROUND_SHARE = 0.9
#: Below this text quality the text layer is garbage (fonts without a Unicode mapping) and the
#: page is read by OCR instead.
MIN_TEXT_QUALITY = 0.5
#: A line whose font is this much larger than the body text is a heading. Invoices set key
#: values a size or two above the body (10 pt on 8 pt), which are not headings.
HEADING_SIZE_RATIO = 1.3
#: Bold lines at least this share of the body size are headings too (the smallest kind).
BOLD_HEADING_RATIO = 0.95
#: Headings are short: at most this many characters and lines.
MAX_HEADING_CHARS = 200
MAX_HEADING_LINES = 3
#: One-line blocks and rows up to this long are label/value pieces that may be joined into a row.
MAX_STITCH_CHARS = 60
#: Deepest heading level (Markdown has six).
MAX_HEADING_LEVEL = 6

_TEXT_FLAGS = 2 | 64  # TEXT_PRESERVE_WHITESPACE | TEXT_MEDIABOX_CLIP: ligatures expand, images skipped
_BOLD_FLAG = 16
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)


@dataclass
class _Row:
    """A visual line of text: the PDF's lines on one baseline inside one block, joined."""

    text: str
    box: Box
    size: float
    bold: bool
    words: list[Word] = field(default_factory=list)


@dataclass
class _Block:
    rows: list[_Row]
    box: Box


@dataclass
class _Item:
    """Something with a place in the reading order: a text block, a table or a form field."""

    box: Box
    block: _Block | None = None
    table: PdfTable | None = None
    field: Element | None = None


@dataclass
class _RawPage:
    number: int
    width: float
    height: float
    items: list[_Item] = field(default_factory=list)
    ocr: list[Element] | None = None


@dataclass(frozen=True)
class _HeadingScale:
    """Heading levels of the range parsed: the body size, and a level per larger rounded size
    (largest = 1). Bold text at body size is the smallest kind of heading, one level below."""

    body: float
    levels: dict[float, int]

    def is_heading_style(self, row: _Row) -> bool:
        if not self.body:
            return False
        return row.size >= HEADING_SIZE_RATIO * self.body or (
            row.bold and row.size >= BOLD_HEADING_RATIO * self.body
        )

    def level(self, size: float) -> int:
        bold_level = min(len(self.levels) + 1, MAX_HEADING_LEVEL)
        return self.levels.get(_rounded(size), bold_level)


def pdf_page_count(data: bytes) -> int:
    """Pages of the PDF in `data`; raises the same errors as `parse_pdf` for unreadable files."""
    with open_pdf(data, MAX_PAGES) as doc:
        return int(doc.page_count)


def pdf_page_plan(data: bytes) -> tuple[int, bool]:
    """Pages of the PDF, and whether most of them need OCR (a scan). Reads each page's plain text
    only (milliseconds a page), not its layout."""
    with open_pdf(data, MAX_PAGES) as doc:
        count = int(doc.page_count)
        try:
            thin = sum(1 for page in doc if _needs_ocr(page.get_text("text")))
        except RuntimeError:
            # A damaged page: the parse will say what is wrong; plan it as text.
            thin = 0
        return count, 2 * thin > count


def parse_pdf(
    data: bytes,
    filename: str,
    *,
    first_page: int = 1,
    last_page: int | None = None,
    max_pages: int = MAX_PAGES,
) -> Document:
    """Parse pages `first_page`..`last_page` (1-based, inclusive; None = to the end) of a PDF.

    Raises `InvalidDocument` (damaged), `PasswordProtected`, `DocumentTooLarge` (over
    `max_pages`) and `PageRangeError` (a range outside the document).
    """
    with open_pdf(data, max_pages) as doc:
        count = int(doc.page_count)
        last = count if last_page is None else min(last_page, count)
        if first_page < 1 or first_page > last:
            raise PageRangeError(f"page range {first_page}..{last_page} is outside 1..{count}")
        raw_pages = [_read_page(doc, doc[number - 1], number) for number in range(first_page, last + 1)]
        if doc.is_repaired and not any(raw.items or raw.ocr for raw in raw_pages):
            # MuPDF rebuilds a truncated file's structure, but pages whose content was cut off come
            # back blank; an all-blank repaired file is reported as damaged, not as empty.
            raise InvalidDocument("The PDF is damaged or truncated: no content could be recovered.")
        embedded = attached_einvoice(doc) if first_page == 1 else []
    scale = _heading_scale(raw_pages)
    document = Document(filename=filename, format="pdf", page_count=count, embedded=embedded)
    for raw in raw_pages:
        page, elements = _build_page(raw, scale)
        document.pages.append(page)
        document.elements.extend(elements)
    return document


def attached_einvoice(doc: PdfDocument) -> list[EmbeddedValue]:
    """The values of the first e-invoice (UBL or CII XML) attached to the PDF, if any. The part of
    a split parse that holds page 1 reads them, so a merged document has them once."""
    try:
        names = [doc.embfile_info(i)["filename"] for i in range(doc.embfile_count())]
    except (RuntimeError, ValueError, KeyError):
        return []
    for index, name in enumerate(names):
        if not str(name).lower().endswith(".xml"):
            continue
        try:
            if int(doc.embfile_info(index).get("size") or 0) > MAX_EINVOICE_BYTES:
                continue
            values = read_einvoice(doc.embfile_get(index), str(name))
        except (RuntimeError, ValueError):
            continue
        if values:
            return values
    return []


def text_quality(text: str) -> float:
    """Share of readable characters. U+FFFD and control characters mark glyphs whose font has no
    Unicode mapping; they count twice, since a garbled word misleads more than a missing one."""
    if not text:
        return 1.0
    bad = sum(1 for ch in text if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\t\n\r"))
    return max(0.0, 1.0 - 2.0 * bad / len(text))


def open_pdf(data: bytes, max_pages: int = MAX_PAGES) -> PdfDocument:
    """The PDF in `data`, opened and checked: damaged, password-protected and over-long files raise
    `InvalidDocument`, `PasswordProtected` and `DocumentTooLarge`. The caller closes it."""
    pymupdf = load_pymupdf()
    # MuPDF reports repairs of damaged files on stderr; the outcome is what matters here.
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (pymupdf.FileDataError, pymupdf.EmptyFileError, RuntimeError, ValueError) as exc:
        raise InvalidDocument("The PDF is damaged or is not a PDF, and cannot be opened.") from exc
    try:
        if doc.needs_pass:
            raise PasswordProtected(
                "The PDF is protected by a password; remove the password and upload it again."
            )
        if doc.page_count < 1:
            raise InvalidDocument("The PDF has no pages: the file is damaged or truncated.")
        check_page_count(int(doc.page_count), max_pages)
    except BaseException:
        doc.close()
        raise
    return doc


def _read_page(doc: PdfDocument, page: PdfPage, number: int) -> _RawPage:
    raw = _RawPage(number=number, width=float(page.rect.width), height=float(page.rect.height))
    turn = page.rotation_matrix if page.rotation else None
    try:
        text = page.get_text("dict", flags=_TEXT_FLAGS)
    except RuntimeError as exc:
        raise InvalidDocument(f"Page {number} of the PDF is damaged and cannot be read.") from exc
    fields, widget_areas = form_fields(doc, page, number, turn)
    # Text extraction includes the widgets' appearance (their values drawn on the page), which the
    # form field elements already carry with their names.
    spans: list[Span] = [
        (span["text"], box)
        for block in text["blocks"]
        for line in block.get("lines", ())
        for span in line["spans"]
        if span["text"].strip() and not center_in(box := to_box(span["bbox"], turn), widget_areas)
    ]
    drawings = page.get_cdrawings()
    if _needs_ocr("".join(s[0] for s in spans)) and _has_visible_content(
        page, drawings, raw.width * raw.height
    ):
        raw.ocr = _ocr_page(page, number)
    else:
        # A ruled grid's cells read their drawn marks too ("Sex ☒ M F"), as blocks do.
        cell_marks = [
            (m.text, m.box)
            for m in drawn_marks(drawings, [Word(t, b) for t, b in spans], turn)
            if not center_in(m.box, widget_areas)
        ]
        tables = find_tables(page, drawings, spans + cell_marks, turn, raw.width * raw.height)
        raw.items.extend(_Item(box=t.box, table=t) for t in tables)
        exclude = [t.box for t in tables] + widget_areas
        blocks = _text_blocks(text, turn, exclude, raw.width)
        _mark_choices(blocks, drawings, turn, widget_areas)
        raw.items.extend(_Item(box=b.box, block=b) for b in blocks)
    raw.items.extend(_Item(box=f.box, field=f) for f in fields if f.box)
    return raw


def _mark_choices(
    blocks: list[_Block], drawings: list[dict[str, Any]], turn: Any, widget_areas: list[Box]
) -> None:
    """Drawn check boxes and circled options join their rows as `☒`/`☐` words (`pdf_marks`);
    a form widget's own frame is the widget's, read with its value."""
    rows = [row for block in blocks for row in block.rows]
    marks = [
        m
        for m in drawn_marks(drawings, [w for row in rows for w in row.words], turn)
        if not center_in(m.box, widget_areas)
    ]
    if not marks:
        return
    for row, placed in zip(rows, place_marks([r.box for r in rows], marks), strict=True):
        if placed:
            row.words = sorted([*row.words, *placed], key=lambda w: w.box.x0)
            row.text = " ".join(w.text for w in row.words)
            row.box = _union([row.box, *(w.box for w in placed)])
    for block in blocks:
        block.box = _union([block.box, *(r.box for r in block.rows)])


def _needs_ocr(visible_text: str) -> bool:
    chars = sum(1 for ch in visible_text if not ch.isspace())
    return chars < MIN_TEXT_LAYER_CHARS or text_quality(visible_text) < MIN_TEXT_QUALITY


def _has_visible_content(page: PdfPage, drawings: list[dict[str, Any]], page_area: float) -> bool:
    """Whether a page without usable text shows something OCR could read: a picture of some size
    (a scan) or many vector paths (text drawn as outlines). Blank separator pages, which often
    carry an invisible image or a frame line, are not worth a second of OCR."""
    if sum(1 for path in drawings if _area(path["rect"]) < BACKGROUND_SHARE * page_area) >= MIN_VECTOR_PATHS:
        return True
    shown = sum(_area(info["bbox"]) for info in page.get_image_info())
    return shown >= MIN_IMAGE_SHARE * page_area


def _area(rect: Any) -> float:
    x0, y0, x1, y1 = rect
    return float(abs(x1 - x0) * abs(y1 - y0))


def _ocr_page(page: PdfPage, number: int) -> list[Element]:
    from PIL import Image

    pymupdf = load_pymupdf()
    area = float(page.rect.width * page.rect.height) or 1.0
    zoom = min(OCR_DPI / 72, math.sqrt(MAX_RENDER_PIXELS / area))
    pix = page.get_pixmap(
        matrix=pymupdf.Matrix(zoom, zoom), alpha=False, colorspace=pymupdf.csRGB, annots=False
    )
    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    if one_bit_images(page):
        image = despeckled(image)
    # Read level, placed back as the page is drawn: a PDF page's citations are drawn on the page
    # as it is (page_images.py), so its boxes stay in its own geometry.
    level, angle = deskewed(image)
    marked = with_circled(level, with_checkboxes(level, ocr_image(without_comb_boxes(level))))
    lines = turned_back(marked, angle, image.width, image.height)
    return ocr_elements(lines, number, scale=zoom)


def _is_bold(span: dict[str, Any]) -> bool:
    return bool(span["flags"] & _BOLD_FLAG) or bool(_BOLD_FONT.search(span["font"]))


def _text_blocks(text: dict[str, Any], turn: Any, exclude: list[Box], page_width: float) -> list[_Block]:
    blocks: list[_Block] = []
    for block in text["blocks"]:
        rows = [row for line in block.get("lines", ()) if (row := _row(line, turn, exclude))]
        # MuPDF may put lines of two columns that share a baseline into one block.
        groups = columns([r.box for r in rows], page_width) or [list(range(len(rows)))]
        for group in groups:
            merged: list[_Row] = []
            # Content streams may list a block's lines bottom-up or scattered; read top-down.
            for k in sorted(group, key=lambda k: ((rows[k].box.y0 + rows[k].box.y1) / 2, rows[k].box.x0)):
                if merged and _side_by_side(merged[-1].box, rows[k].box):
                    merged[-1] = _join_rows(merged[-1], rows[k])
                else:
                    merged.append(rows[k])
            if merged:
                blocks.append(_Block(merged, _union(r.box for r in merged)))
    return _stitch_rows(blocks)


def _stitch_rows(blocks: list[_Block]) -> list[_Block]:
    """Join one-line blocks onto the nearest short row on their baseline in another block: a label
    and its value drawn as separate blocks ("Invoice date" ... "7 May 2014") read as one row.
    Long rows are prose, whose neighbours on a baseline are another column, and stay apart."""
    removed: set[int] = set()
    singles = [b for b in blocks if len(b.rows) == 1 and len(b.rows[0].text) <= MAX_STITCH_CHARS]
    for single in sorted(singles, key=lambda b: b.box.x0):
        piece = single.rows[0]
        best: tuple[float, _Block, int] | None = None
        for block in blocks:
            if block is single or id(block) in removed:
                continue
            for index, row in enumerate(block.rows):
                if len(row.text) <= MAX_STITCH_CHARS and _side_by_side(row.box, piece.box):
                    gap = max(row.box.x0 - piece.box.x1, piece.box.x0 - row.box.x1)
                    if best is None or gap < best[0]:
                        best = (gap, block, index)
        if best is not None:
            _, block, index = best
            block.rows[index] = _join_rows(block.rows[index], piece)
            block.box = block.box.union(piece.box)
            removed.add(id(single))
    return [b for b in blocks if id(b) not in removed]


def _row(line: dict[str, Any], turn: Any, exclude: list[Box]) -> _Row | None:
    spans = [s for s in line["spans"] if s["text"].strip()]
    if not spans:
        return None
    box = to_box(line["bbox"], turn)
    if exclude and center_in(box, exclude):
        return None
    content = "".join(s["text"] for s in line["spans"]).strip()
    main = max(spans, key=lambda s: len(s["text"].strip()))
    words = [word for s in spans for word in span_words(s["text"], to_box(s["bbox"], turn))]
    return _Row(content, box, float(main["size"]), all(_is_bold(s) for s in spans), words)


def _side_by_side(a: Box, b: Box) -> bool:
    """On one baseline and apart (a bullet drawn apart from its text, a label and its value)."""
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    apart = b.x0 >= a.x1 - 1 or b.x1 <= a.x0 + 1
    return apart and overlap > 0.5 * min(a.y1 - a.y0, b.y1 - b.y0)


def _join_rows(a: _Row, b: _Row) -> _Row:
    left, right = (a, b) if a.box.x0 <= b.box.x0 else (b, a)
    main = a if len(a.text) >= len(b.text) else b
    return _Row(
        f"{left.text} {right.text}",
        a.box.union(b.box),
        main.size,
        a.bold and b.bold,
        left.words + right.words,
    )


def _union(boxes: Any) -> Box:
    iterator = iter(boxes)
    box: Box = next(iterator)
    for other in iterator:
        box = box.union(other)
    return box


def _rounded(size: float) -> float:
    return round(size * 2) / 2


def _heading_scale(pages: list[_RawPage]) -> _HeadingScale:
    rows = [row for page in pages for item in page.items if item.block for row in item.block.rows]
    sizes: Counter[float] = Counter()
    for row in rows:
        sizes[_rounded(row.size)] += len(row.text)
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    larger = sorted(
        {_rounded(r.size) for r in rows if body and r.size >= HEADING_SIZE_RATIO * body}, reverse=True
    )
    return _HeadingScale(body, {size: min(i + 1, MAX_HEADING_LEVEL) for i, size in enumerate(larger)})


def _build_page(raw: _RawPage, scale: _HeadingScale) -> tuple[Page, list[Element]]:
    elements: list[Element] = list(raw.ocr or [])
    for item in reading_order(raw.items, lambda item: item.box, raw.width):
        if item.field is not None:
            elements.append(item.field)
        elif item.table is not None:
            elements.append(_table_element(raw.number, item.table))
        elif item.block is not None:
            elements.extend(_block_elements(raw.number, item.block, scale))
    assign_ids(elements)
    source: ConfidenceSource = "ocr" if raw.ocr is not None else "text_layer"
    if raw.ocr is None and any(e.type == "form_field" and e.text for e in elements):
        source = "form_fields"
    page = Page(raw.number, raw.width, raw.height, confidence=weighted_confidence(elements), source=source)
    return page, elements


def _table_element(number: int, table: PdfTable) -> Element:
    quality = text_quality("".join(c.text for c in table.cells))
    return Element(
        id="",
        type="table",
        page=number,
        text=table_markdown(table.rows),
        box=table.box,
        rows=table.rows,
        lines=table.cells,
        confidence=round(quality, 4),
    )


def _block_elements(number: int, block: _Block, scale: _HeadingScale) -> list[Element]:
    """A block split at list markers and where heading and body styles alternate."""
    segments: list[list[_Row]] = []
    for row in block.rows:
        if (
            segments
            and not is_list_item(row.text)
            and scale.is_heading_style(row) == scale.is_heading_style(segments[-1][-1])
        ):
            segments[-1].append(row)
        else:
            segments.append([row])
    elements: list[Element] = []
    for rows in segments:
        text = "\n".join(r.text for r in rows)
        kind: ElementType = "text"
        level: int | None = None
        heading_style = all(scale.is_heading_style(r) for r in rows)
        if is_list_item(rows[0].text) and not heading_style:
            kind = "list"
        elif (
            heading_style
            and len(rows) <= MAX_HEADING_LINES
            and len(text) <= MAX_HEADING_CHARS
            and any(ch.isalpha() for ch in text)
        ):
            kind, level = "title", scale.level(max(r.size for r in rows))
        quality = round(text_quality(text), 4)
        elements.append(
            Element(
                id="",
                type=kind,
                page=number,
                text=text,
                box=_union(r.box for r in rows),
                confidence=quality,
                level=level,
                lines=[Line(r.text, r.box, quality, r.words) for r in rows],
            )
        )
    return elements
