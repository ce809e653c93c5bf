import pytest

from tools.practice import AccountNotAllowed, check_allowed_account, parse_allowed_accounts

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("account_id", "allowed"),
    [
        ("acct-1", None),
        ("acct-1", ""),
        ("acct-1", "  , ,"),
        ("acct-1", "acct-1"),
        ("ACCT-1", "acct-1"),
        ("acct-1", " Acct-1 , acct-2"),
        (" acct-2 ", "acct-1,ACCT-2"),
    ],
)
def test_allowed(account_id: str, allowed: str | None) -> None:
    check_allowed_account(account_id, allowed)


@pytest.mark.parametrize(
    ("account_id", "allowed"),
    [("acct-3", "acct-1, acct-2"), ("acct", "acct-1"), ("acct-1x", "acct-1"), ("", "acct-1")],
)
def test_refused_naming_the_allowed_accounts(account_id: str, allowed: str) -> None:
    with pytest.raises(AccountNotAllowed) as caught:
        check_allowed_account(account_id, allowed)
    assert caught.value.allowed == parse_allowed_accounts(allowed)
    assert "acct-1" in str(caught.value)


def test_parse_keeps_order_and_trims() -> None:
    assert parse_allowed_accounts(" b ,a,, c ") == ["b", "a", "c"]
    assert parse_allowed_accounts(None) == []
