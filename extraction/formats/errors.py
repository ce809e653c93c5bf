"""Why a document could not be read, in words a user can act on.

Every engine failure that is the document's fault is a `DocumentError`; anything else escaping an
engine is a bug. The classes say what is wrong, not how to answer: the HTTP status of each is the
edge's business (`extraction.jobs.edge`, docs/contract.md section 7).
"""

from __future__ import annotations


class DocumentError(ValueError):
    """The document cannot be processed as it is; retrying the same bytes will not help."""

    #: Stable machine-readable reason, for logs and clients that branch on it.
    code: str = "invalid_document"


class UnsupportedFormat(DocumentError):
    """The bytes are none of the formats the engines read."""

    code = "unsupported_format"


class InvalidDocument(DocumentError):
    """The bytes claim a supported format but are damaged, truncated or empty."""

    code = "invalid_document"


class DocumentTooLarge(DocumentError):
    """The document exceeds a safety limit (pixels, pages, cells, uncompressed size)."""

    code = "document_too_large"


class PasswordProtected(DocumentError):
    """The document is encrypted and cannot be opened without its password."""

    code = "password_protected"


class PageRangeError(ValueError):
    """The caller asked for pages the document does not have (a programming error, not the file's)."""
