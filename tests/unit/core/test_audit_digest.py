"""The audit log's identifier digest: keyed with the deployment's secret, never a bare hash."""

from __future__ import annotations

import hashlib

import pytest

from core.stores.audit import identifier_digest

PCREF = "adalovelace12101815"


def test_the_digest_is_stable_under_one_secret() -> None:
    assert identifier_digest("secret-a", PCREF) == identifier_digest("secret-a", PCREF)
    assert identifier_digest("secret-a", PCREF) != identifier_digest("secret-a", PCREF + "x")


def test_without_the_secret_a_guess_cannot_be_confirmed() -> None:
    digest = identifier_digest("secret-a", PCREF)
    assert digest != hashlib.sha256(PCREF.encode()).hexdigest()
    assert digest != identifier_digest("secret-b", PCREF)


def test_an_empty_secret_is_refused() -> None:
    with pytest.raises(ValueError):
        identifier_digest("", PCREF)
