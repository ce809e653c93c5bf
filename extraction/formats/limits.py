"""Safety limits for hostile documents, and the checks that enforce them before work starts.

Uploads are capped in bytes at the edge (AGENTRY_MAX_UPLOAD_MB), but a few compressed bytes can
expand into gigabytes: an image that declares a huge canvas, a ZIP member of zeros, a PDF with a
million pages. Each check here runs on headers or directories only, so rejecting a bomb costs
almost nothing.
"""

from __future__ import annotations

import io
import warnings
import zipfile
from typing import TYPE_CHECKING

from extraction.formats.errors import DocumentTooLarge, InvalidDocument

if TYPE_CHECKING:
    from PIL import Image

#: Most pages (PDF pages, TIFF frames) one document may have; issue 5 point 2.
MAX_PAGES = 2000
#: Most pixels of one decoded image (about 10 000 x 10 000); a 600 dpi A4 scan is 35 million.
MAX_IMAGE_PIXELS = 100_000_000
#: Most pixels of a page rendered for OCR; a page larger than this is rendered at a lower dpi.
MAX_RENDER_PIXELS = 25_000_000
#: Most members of an Office ZIP container; real files hold tens to a few hundred.
MAX_ZIP_MEMBERS = 10_000
#: Most bytes an Office container may expand to, summed over its members.
MAX_ZIP_UNCOMPRESSED_BYTES = 512 * 1024 * 1024
#: Highest compression ratio of one member; Office XML compresses about 5-30 times.
MAX_ZIP_COMPRESSION_RATIO = 100
#: Members smaller than this are not ratio-checked: tiny files compress oddly and cost nothing.
ZIP_RATIO_CHECK_MIN_BYTES = 1024 * 1024
#: Most non-empty cells read from one workbook (each becomes an element).
MAX_SHEET_CELLS = 200_000


def check_page_count(count: int, max_pages: int = MAX_PAGES) -> None:
    if count > max_pages:
        raise DocumentTooLarge(
            f"The document has {count} pages; at most {max_pages} can be processed. "
            "Split it into smaller files."
        )


def check_image_pixels(width: int, height: int, max_pixels: int = MAX_IMAGE_PIXELS) -> None:
    if width <= 0 or height <= 0:
        raise InvalidDocument("The image has no pixels.")
    if width * height > max_pixels:
        raise DocumentTooLarge(
            f"The image is {width} x {height} pixels; at most {max_pixels:,} pixels can be processed."
        )


def open_image(data: bytes, max_pixels: int = MAX_IMAGE_PIXELS) -> Image.Image:
    """Open an image lazily (header only) and refuse decompression bombs before any decoding."""
    from PIL import Image, UnidentifiedImageError

    # Pillow's own guard is a backstop: warnings become errors, and its hard error threshold sits at
    # twice the limit. The explicit size check below is the one that normally fires.
    Image.MAX_IMAGE_PIXELS = max_pixels
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise DocumentTooLarge(
            f"The image declares more than {max_pixels:,} pixels and was refused as unsafe."
        ) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InvalidDocument("The image is damaged or truncated and cannot be read.") from exc
    check_image_pixels(image.width, image.height, max_pixels)
    return image


def check_zip_container(
    data: bytes,
    *,
    max_members: int = MAX_ZIP_MEMBERS,
    max_uncompressed: int = MAX_ZIP_UNCOMPRESSED_BYTES,
    max_ratio: float = MAX_ZIP_COMPRESSION_RATIO,
) -> None:
    """Refuse a ZIP bomb from its central directory alone, before any member is inflated.

    Python's zipfile stops inflating a member at its declared size, so a directory that lies
    about sizes cannot make the readers expand more than what is checked here.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise InvalidDocument("The Office file is damaged: its ZIP container cannot be read.") from exc
    if len(members) > max_members:
        raise DocumentTooLarge(
            f"The Office file holds {len(members):,} parts; at most {max_members:,} are allowed."
        )
    total = 0
    for member in members:
        total += member.file_size
        if member.file_size >= ZIP_RATIO_CHECK_MIN_BYTES and (
            member.compress_size == 0 or member.file_size / member.compress_size > max_ratio
        ):
            raise DocumentTooLarge(
                "The Office file contains a part that expands more than "
                f"{max_ratio:g} times its stored size and was refused as a possible ZIP bomb."
            )
    if total > max_uncompressed:
        raise DocumentTooLarge(
            f"The Office file expands to {total / 2**20:,.0f} MiB; "
            f"at most {max_uncompressed / 2**20:,.0f} MiB are allowed."
        )
