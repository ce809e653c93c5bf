"""Encryption at rest of the secrets the service keeps for a workspace (integration credentials, tokens).

One key per purpose is derived from the service secret (`Settings.resolved_secret()`) with HKDF-SHA256,
so a key leaked for one purpose opens nothing else, and values are sealed with Fernet (AES-128-CBC
plus HMAC-SHA256): a value that was altered, or sealed under another secret, fails to open instead of
decrypting to garbage.
"""

from __future__ import annotations

import base64
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

#: Salt of the derivation; fixed, so the same secret and purpose always give the same key.
_HKDF_SALT = b"agentry/secretbox/v1"
#: Fernet keys are 32 bytes (16 signing, 16 encryption).
_FERNET_KEY_BYTES = 32


class SealedValueError(Exception):
    """A sealed value cannot be opened: it was altered, or sealed under another service secret."""


@lru_cache(maxsize=32)
def derive_key(secret: str, purpose: str, length: int = _FERNET_KEY_BYTES) -> bytes:
    """The key of one `purpose` derived from the service secret; other purposes' keys stay unrelated."""
    if not secret:
        raise ValueError("a derived key needs a non-empty service secret")
    return HKDF(
        algorithm=hashes.SHA256(), length=length, salt=_HKDF_SALT, info=purpose.encode("utf-8")
    ).derive(secret.encode("utf-8"))


@lru_cache(maxsize=32)
def _fernet(secret: str, purpose: str) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(derive_key(secret, purpose)))


class SecretBox:
    """Seals and opens text for one `purpose` under the service `secret`."""

    def __init__(self, secret: str, purpose: str) -> None:
        if not secret:
            raise ValueError("a SecretBox needs a non-empty service secret")
        if not purpose:
            raise ValueError("a SecretBox needs a purpose, so each use gets its own key")
        self._fernet = _fernet(secret, purpose)

    def __repr__(self) -> str:
        return "SecretBox(<key hidden>)"

    def seal(self, plaintext: str) -> str:
        """The text encrypted and authenticated, as URL-safe ASCII."""
        return self._fernet.encrypt(plaintext.encode("utf-8")).decode("ascii")

    def open(self, sealed: str) -> str:
        """The text `seal` was given; SealedValueError when `sealed` was altered or is from another key."""
        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError, ValueError):
            raise SealedValueError("a stored secret cannot be decrypted with this service's secret") from None
