"""Bilevel pages (a fax, a 1-bit scan) despeckled before OCR.

A fax machine or a 1-bit scanner keeps only black and white: every grey of the paper becomes
dust, and the line noise of the transmission adds black specks. The text detector reads such a
page badly (on a faxed intake form in Courier it found three lines of twenty-eight), while the
same page without its lone specks reads nearly whole. Only specks are taken away: a black pixel
with no black neighbour (and a white pixel with no white one, a pinhole, is filled), never a
stroke, however thin; a median filter did as well on those forms but erases one-pixel strokes. A
page of greys (a photo, a grayscale scan) is never touched: its specks are soft and the ink has
no clear edge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

#: Share of pixels that must be pure black or pure white for an image to be bilevel: all of them
#: but a rounding's worth (grayscale scans of forms have at most about 97% near either end).
BILEVEL_SHARE = 0.999
#: A black pixel with at most this many black neighbours (of eight) is a speck, and a white one
#: with at most this many white neighbours a hole. Not one: a stroke's end has one neighbour.
SPECK_NEIGHBOURS = 0


def is_bilevel(image: Image.Image) -> bool:
    """Whether the image holds only black and white pixels (mode "1", or grey or colour values
    that are all 0 or 255)."""
    if image.mode == "1":
        return True
    histogram = image.convert("L").histogram()
    return histogram[0] + histogram[255] >= BILEVEL_SHARE * sum(histogram)


def despeckled(image: Image.Image) -> Image.Image:
    """The page in black and white (RGB, as OCR reads it) without its specks and pinholes."""
    import numpy as np
    from PIL import Image as PilImage

    ink = np.asarray(image.convert("L")) < 128
    ink &= _neighbours(ink) > SPECK_NEIGHBOURS
    ink |= _neighbours(~ink) <= SPECK_NEIGHBOURS
    return PilImage.fromarray(np.where(ink, 0, 255).astype(np.uint8)).convert("RGB")


def _neighbours(mask: Any) -> Any:
    """For each pixel, how many of its eight neighbours are set in `mask`."""
    import numpy as np

    padded = np.pad(mask.astype(np.uint8), 1)
    height, width = mask.shape
    around = sum(
        padded[1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width] for dy in (-1, 0, 1) for dx in (-1, 0, 1)
    )
    return around - mask


def one_bit_images(page: Any) -> bool:
    """Whether a PDF page has images and all of them are one bit per pixel (a fax or a 1-bit scan
    kept as a PDF, whose rendering is then black and white but for the edges scaling greys)."""
    images = page.get_images()
    return bool(images) and all(info[4] == 1 for info in images)
