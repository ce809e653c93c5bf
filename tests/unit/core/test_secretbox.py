import pytest

from core.infra.secretbox import SealedValueError, SecretBox

pytestmark = pytest.mark.unit


def test_sealed_text_opens_to_the_original_and_does_not_contain_it() -> None:
    box = SecretBox("service-secret", "practice-connector")
    sealed = box.seal("client-secret-Ünïcode")
    assert "client-secret" not in sealed and sealed.isascii()
    assert box.open(sealed) == "client-secret-Ünïcode"
    # Fernet uses a random IV: the same text seals differently each time.
    assert box.seal("client-secret-Ünïcode") != sealed


def test_other_secret_or_purpose_cannot_open() -> None:
    sealed = SecretBox("service-secret", "practice-connector").seal("value")
    with pytest.raises(SealedValueError):
        SecretBox("another-secret", "practice-connector").open(sealed)
    with pytest.raises(SealedValueError):
        SecretBox("service-secret", "another-purpose").open(sealed)


def test_altered_value_is_refused() -> None:
    box = SecretBox("service-secret", "p")
    sealed = box.seal("value")
    altered = sealed[:-5] + ("A" if sealed[-5] != "A" else "B") + sealed[-4:]
    for bad in (altered, "not a token", "é"):
        with pytest.raises(SealedValueError):
            box.open(bad)


def test_box_needs_secret_and_purpose_and_hides_its_key() -> None:
    with pytest.raises(ValueError):
        SecretBox("", "p")
    with pytest.raises(ValueError):
        SecretBox("s", "")
    assert "s3cret" not in repr(SecretBox("s3cret", "p"))
