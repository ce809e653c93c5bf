"""The integration's Allowed Account IDs rule (docs/spec.md "practice_save_patient" rule 6)."""

from __future__ import annotations

from tools.practice.errors import AccountNotAllowed


def parse_allowed_accounts(allowed: str | None) -> list[str]:
    """Split the comma-separated list into account ids, trimmed, blanks dropped, in the given order."""
    if allowed is None:
        return []
    return [part.strip() for part in allowed.split(",") if part.strip()]


def check_allowed_account(account_id: str, allowed: str | None) -> None:
    """Raise AccountNotAllowed unless `account_id` is in `allowed` (ignoring case and surrounding spaces).

    A blank or missing list allows every account the credential reaches. Call it before any request
    (including the token) so a refused account causes no traffic at all.
    """
    accounts = parse_allowed_accounts(allowed)
    if not accounts:
        return
    wanted = account_id.strip().casefold()
    if not any(wanted == account.casefold() for account in accounts):
        raise AccountNotAllowed(account_id, accounts)
