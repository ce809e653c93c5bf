"""Why a document could not be read, in words a user can act on.

Every engine failure that is the document's fault is a `DocumentError`; anything else escaping an
engine is a bug. Each class names the HTTP status the extraction API answers with (docs/contract.md
section 7), so the edge maps errors without a table of its own.
"""

from __future__ import annotations


class DocumentError(ValueError):
    """The document cannot be processed as it is; retrying the same bytes will not help."""

    #: Status of the extraction API's reply (docs/contract.md section 7: 400 malformed).
    status_code: int = 400
    #: Stable machine-readable reason, for logs and clients that branch on it.
    code: str = "invalid_document"


class UnsupportedFormat(DocumentError):
    """The bytes are none of the formats the engines read."""

    status_code = 415
    code = "unsupported_format"


class InvalidDocument(DocumentError):
    """The bytes claim a supported format but are damaged, truncated or empty."""

    status_code = 400
    code = "invalid_document"


class DocumentTooLarge(DocumentError):
    """The document exceeds a safety limit (pixels, pages, cells, uncompressed size)."""

    status_code = 413
    code = "document_too_large"


class PasswordProtected(DocumentError):
    """The document is encrypted and cannot be opened without its password."""

    status_code = 400
    code = "password_protected"


class PageRangeError(ValueError):
    """The caller asked for pages the document does not have (a programming error, not the file's)."""
