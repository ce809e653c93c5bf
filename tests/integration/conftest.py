"""The integration tests' session service lives in `tests.support.session_service` (shared with
tests/reliability); its names stay importable from here."""

from __future__ import annotations

from tests.support.session_service import TEST_ENV, Service

__all__ = ["TEST_ENV", "Service"]
