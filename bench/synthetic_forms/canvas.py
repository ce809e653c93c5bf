"""Drawing an intake form on a PDF page (PyMuPDF), and turning a page into a scan.

`Canvas` is the few things form designs draw: text, ruled lines, boxes, one character per box,
choice marks (tick, cross, circle, filled box) and grid cells with a tiny caption. Its `Style`
(font, sizes, margins) is drawn per document, so one design comes out a little different every
time. `scan` rasterises a page, tilts, blurs and noises it as a photocopier or a phone would;
with `fax=True` it is a fax machine's black-and-white copy instead (half the lines in standard mode),
with `photo=True` a phone's colour photograph of the sheet on a desk (keystoned, unevenly lit).
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pymupdf as _pymupdf
from PIL import Image, ImageFilter

#: PyMuPDF has no type hints.
pymupdf: Any = _pymupdf

#: Base-14 fonts (regular, bold): what a form designer would pick from.
FONTS = (("helv", "hebo"), ("tiro", "tibo"), ("cour", "cobo"))
PAGE_WIDTH, PAGE_HEIGHT = 612.0, 792.0
#: Nearest a text may come to the page's right edge (a printer's margin).
PAGE_EDGE = 12.0


@dataclass(frozen=True)
class Style:
    font: str
    bold: str
    size: float
    caption_size: float
    margin: float
    line_gap: float
    #: Values typed in capitals (as many offices and EHRs do).
    upper: bool

    @staticmethod
    def draw(rng: random.Random) -> Style:
        font, bold = rng.choice(FONTS)
        size = rng.uniform(9.0, 11.5)
        return Style(
            font,
            bold,
            size,
            caption_size=rng.uniform(6.0, 7.5),
            margin=rng.uniform(40, 70),
            line_gap=size * rng.uniform(2.2, 2.9),
            upper=rng.random() < 0.25,
        )


def on_page(text: str, x: float, size: float, font: str) -> float:
    """The font size `text` set at `x` is drawn in: `size`, or smaller, as a form's software would,
    where it would run off the page (what runs off is not on the document, and the truth would
    name more than it shows)."""
    width = float(pymupdf.get_text_length(text, fontname=font, fontsize=size))
    room = PAGE_WIDTH - PAGE_EDGE - x
    return size * room / width if width > room > 0 else size


class Canvas:
    """One page being drawn; `y` is where the next row goes."""

    def __init__(self, page: Any, style: Style, rng: random.Random) -> None:
        self.page = page
        self.style = style
        self.rng = rng
        self.y = style.margin
        self.left = style.margin
        self.right = PAGE_WIDTH - style.margin

    def width(self, text: str, size: float | None = None, bold: bool = False) -> float:
        font = self.style.bold if bold else self.style.font
        return float(pymupdf.get_text_length(text, fontname=font, fontsize=size or self.style.size))

    def text(self, x: float, y: float, text: str, size: float | None = None, bold: bool = False) -> float:
        """Text with its baseline at `y`; returns where it ends on the right."""
        font = self.style.bold if bold else self.style.font
        size = on_page(text, x, size or self.style.size, font)
        self.page.insert_text((x, y), text, fontname=font, fontsize=size)
        return x + self.width(text, size, bold)

    def value(self, text: str) -> str:
        """A typed value as this document types them."""
        return text.upper() if self.style.upper else text

    def hline(self, x0: float, x1: float, y: float, width: float = 0.6) -> None:
        self.page.draw_line((x0, y), (x1, y), color=(0, 0, 0), width=width)

    def rect(
        self, x0: float, y0: float, x1: float, y1: float, width: float = 0.6, fill: bool = False
    ) -> None:
        self.page.draw_rect(
            pymupdf.Rect(x0, y0, x1, y1), color=(0, 0, 0), fill=(0, 0, 0) if fill else None, width=width
        )

    def heading(self, text: str) -> None:
        self.y += self.style.size * 0.6
        size = self.style.size * self.rng.uniform(1.1, 1.35)
        self.text(self.left, self.y, text, size=size, bold=True)
        if self.rng.random() < 0.5:
            self.hline(self.left, self.right, self.y + 3, width=0.9)
        self.y += self.style.line_gap

    def boxes(self, x: float, y: float, chars: str, side: float) -> float:
        """One character per box (a comb), baseline at `y`; a `/` or `-` stands between boxes."""
        for ch in chars:
            if ch in "/-":
                self.text(x + side * 0.15, y, ch)
                x += side * 0.7
                continue
            self.rect(x, y - side * 0.85, x + side, y + side * 0.15)
            if ch != " ":
                self.text(x + (side - self.width(ch)) / 2, y, ch)
            x += side + 1.5
        return x

    def choice(self, x: float, y: float, options: list[str], chosen: str, mark: str) -> float:
        """Options in a row, `chosen` marked by `mark`: tick, cross, circle, filled or xtext."""
        size = self.style.size
        side = size * 0.8
        for option in options:
            if mark == "circle":
                end = self.text(x, y, option)
                if option == chosen:
                    pad = size * 0.35
                    self.page.draw_oval(
                        pymupdf.Rect(x - pad, y - size - pad * 0.3, end + pad, y + pad),
                        color=(0, 0, 0),
                        width=0.8,
                    )
                x = end + size * 1.4
                continue
            box = (x, y - side, x + side, y)
            self.rect(*box, fill=mark == "filled" and option == chosen)
            if option == chosen and mark == "tick":
                self.page.draw_polyline(
                    [
                        (x + side * 0.15, y - side * 0.5),
                        (x + side * 0.4, y - side * 0.1),
                        (x + side * 1.1, y - side * 1.2),
                    ],
                    color=(0, 0, 0),
                    width=1.2,
                )
            elif option == chosen and mark == "cross":
                self.page.draw_line((x + 1, y - side + 1), (x + side - 1, y - 1), color=(0, 0, 0), width=1.0)
                self.page.draw_line((x + 1, y - 1), (x + side - 1, y - side + 1), color=(0, 0, 0), width=1.0)
            elif option == chosen and mark == "xtext":
                self.text(x + side * 0.15, y - 1, "X", size=size * 0.85)
            x = self.text(x + side + 3, y, option) + size * 1.2
        return x

    def cell(self, x0: float, y0: float, x1: float, y1: float, caption: str, value: str | None) -> None:
        """A grid cell: a tiny caption at its top left, the value typed in the rest."""
        self.rect(x0, y0, x1, y1, width=0.5)
        self.text(x0 + 2, y0 + self.style.caption_size + 1, caption, size=self.style.caption_size)
        if value:
            self.text(x0 + self.rng.uniform(4, 12), y1 - 4, value)


def _scanned(page: Any, rng: random.Random) -> Image.Image:
    """One page rasterised, tilted, blurred and noised."""
    dpi = rng.choice((150, 170, 200))
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples)
    image = image.rotate(
        rng.uniform(-1.2, 1.2), resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255
    )
    image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9)))
    pixels = np.asarray(image, dtype=np.float32)
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0.0, rng.uniform(6, 14), pixels.shape)
    return Image.fromarray(np.clip(pixels + noise, 0, 255).astype(np.uint8))


def _faxed(page: Any, rng: random.Random) -> Image.Image:
    """One page as a fax machine prints it: 200 dpi across, 200 ("fine") or 100 ("standard") lines
    an inch down, thresholded to black and white with speckle, slightly skewed."""
    pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples)
    if rng.random() < 0.5:
        # Standard mode sends every other line; the receiver doubles each one back.
        size = image.size
        image = image.resize((size[0], size[1] // 2), Image.Resampling.BOX).resize(
            size, Image.Resampling.NEAREST
        )
    image = image.rotate(
        rng.uniform(-0.8, 0.8), resample=Image.Resampling.BILINEAR, expand=True, fillcolor=255
    )
    noise_rng = np.random.default_rng(rng.randrange(2**32))
    pixels = np.asarray(image, dtype=np.float32)
    ink = pixels + noise_rng.normal(0.0, rng.uniform(25, 45), pixels.shape) < rng.uniform(140, 185)
    # Speckle: dust on the sender's glass and line noise, a few pixels in a thousand.
    ink ^= noise_rng.random(ink.shape) < rng.uniform(0.001, 0.004)
    return Image.fromarray(np.where(ink, 0, 255).astype(np.uint8))


def _quad_coefficients(quad: list[tuple[float, float]], size: tuple[int, int]) -> list[float]:
    """PIL's eight perspective coefficients taking each output point of `quad` (the sheet's
    corners as the photo shows them: top left, top right, bottom right, bottom left) back to the
    corners of the `size` sheet."""
    width, height = size
    corners = [(0.0, 0.0), (float(width), 0.0), (float(width), float(height)), (0.0, float(height))]
    rows, rhs = [], []
    for (x, y), (u, v) in zip(quad, corners, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    return [float(k) for k in np.linalg.solve(np.array(rows), np.array(rhs))]


def _photographed(page: Any, rng: random.Random) -> Image.Image:
    """One page as a phone photographs it on a desk: the sheet keystoned a few degrees (the phone
    held not quite parallel) on a darker surface, lit unevenly, a little out of focus, in colour."""
    pixmap = page.get_pixmap(dpi=rng.choice((170, 200, 220)), colorspace=pymupdf.csRGB)
    sheet = Image.frombytes("RGB", (pixmap.width, pixmap.height), pixmap.samples)
    width, height = sheet.size
    margin = width * rng.uniform(0.03, 0.07)
    # The near edge of the sheet looks wider than the far one: its sides lean in by 1-3 degrees.
    lean = height * float(np.tan(np.radians(rng.uniform(1.0, 3.0))))
    top_in, bottom_in = (lean, 0.0) if rng.random() < 0.7 else (0.0, lean)
    turn = width * rng.uniform(-0.015, 0.015)  # the phone turned a little in the hand

    def jitter() -> float:
        return rng.uniform(-0.008, 0.008) * width

    quad = [
        (margin + top_in + jitter(), margin + turn + jitter()),
        (width - margin - top_in + jitter(), margin - turn + jitter()),
        (width - margin - bottom_in + jitter(), height - margin - turn + jitter()),
        (margin + bottom_in + jitter(), height - margin + turn + jitter()),
    ]
    desk = tuple(rng.randint(50, 120) for _ in range(3))
    image = sheet.transform(
        sheet.size,
        Image.Transform.PERSPECTIVE,
        _quad_coefficients(quad, sheet.size),
        resample=Image.Resampling.BICUBIC,
        fillcolor=desk,
    )
    # Light from one side: brightness falls off along a random direction, the paper a warm white.
    angle = rng.uniform(0, 2 * np.pi)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    along = xs / width * np.cos(angle) + ys / height * np.sin(angle)
    along = (along - along.min()) / (along.max() - along.min())
    dark = rng.uniform(0.62, 0.85)
    light = dark + (1.0 - dark) * along
    tint = np.array([1.0, rng.uniform(0.95, 1.0), rng.uniform(0.86, 0.96)], dtype=np.float32)
    pixels = np.asarray(image, dtype=np.float32) * light[..., None] * tint
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0.0, rng.uniform(3, 8), pixels.shape)
    image = Image.fromarray(np.clip(pixels + noise, 0, 255).astype(np.uint8))
    return image.filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.2)))


def _image_pdf(images: list[Image.Image]) -> bytes:
    """Images as the pages of an image-only PDF, with no dates nor random id."""
    pdf = pymupdf.open()
    for image in images:
        png = io.BytesIO()
        image.save(png, "PNG")
        sheet = pdf.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        sheet.insert_image(sheet.rect, stream=png.getvalue())
    pdf.set_metadata({"producer": "bench.synthetic_forms", "creationDate": "", "modDate": ""})
    out = io.BytesIO()
    pdf.save(out, no_new_id=True)
    return out.getvalue()


def scan(page: Any, rng: random.Random, fmt: str, fax: bool = False, photo: bool = False) -> bytes:
    """The page as a scanner would give it: `png`, `jpg` (or `pdf`: an image-only PDF); as a fax
    machine would with `fax`; as a phone's photograph with `photo` (best saved as `jpg`)."""
    if photo:
        image = _photographed(page, rng)
    elif fax:
        image = _faxed(page, rng)
    else:
        image = _scanned(page, rng)
    out = io.BytesIO()
    if fmt == "jpg":
        image.save(out, "JPEG", quality=rng.randint(70, 88))
    elif fmt == "png":
        image.save(out, "PNG")
    else:
        return _image_pdf([image])
    return out.getvalue()


def scan_pages(pdf: Any, rng: random.Random, fax: bool = False) -> bytes:
    """Every page of `pdf` scanned (or faxed), as one image-only PDF."""
    return _image_pdf([_faxed(page, rng) if fax else _scanned(page, rng) for page in pdf])
