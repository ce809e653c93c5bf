import threading
from pathlib import Path

import pytest

from tools.practice import build_save_envelope, parse_save_input
from tools.practice.sandbox_store import SandboxStore

pytestmark = pytest.mark.unit

ENVELOPE = build_save_envelope(
    parse_save_input({"account_id": "acct-a", "first_name": "Ann", "last_name": "Lee", "dob": "1/2/1980"})
)


@pytest.mark.parametrize("on_disk", [False, True])
def test_concurrent_identical_upserts_create_one_record(tmp_path: Path, on_disk: bool) -> None:
    store = SandboxStore(tmp_path / "store.json" if on_disk else None)
    start = threading.Barrier(16)
    outcomes: list[tuple[str, bool]] = []

    def save() -> None:
        start.wait()
        record, created = store.upsert(ENVELOPE)
        outcomes.append((record["patient_id"], created))

    threads = [threading.Thread(target=save) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({patient_id for patient_id, _ in outcomes}) == 1
    assert sum(created for _, created in outcomes) == 1
    listing = store.listing()
    assert (listing["created"], listing["updated"]) == (1, 15)
    if on_disk:
        reloaded = SandboxStore(tmp_path / "store.json")
        assert reloaded.listing()["patients"] == listing["patients"]


def test_records_are_returned_as_copies() -> None:
    store = SandboxStore()
    record, _ = store.upsert(ENVELOPE)
    record["first_name"] = "changed"
    assert store.get("acct-a", record["patient_id"])["first_name"] == "Ann"  # type: ignore[index]
    assert store.get("acct-b", record["patient_id"]) is None


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store.json"
    path.write_text('{"something": "else"}')
    with pytest.raises(ValueError, match="not a practice sandbox store"):
        SandboxStore(path)
