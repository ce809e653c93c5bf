"""Patient records of the practice sandbox: an upsert by (account_id, patient_pcref), optionally on disk."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

from tools.practice.envelope import ENVELOPE_KEYS

#: Version of the sandbox's store file layout.
STORE_FORMAT_VERSION = 1
#: First MRN the sandbox hands out.
FIRST_MRN = 100001


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


class SandboxStore:
    """The sandbox's patients; every method is atomic under one lock, so concurrent identical saves
    from many threads still create one record.

    With a `path`, the records are loaded at start and the whole file is rewritten atomically
    (temporary file, fsync, rename) after each change, so a crash never leaves half a file.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self._path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._patients: dict[str, dict[str, Any]] = {}
        self._ids_by_key: dict[tuple[str, str], str] = {}
        self._next_mrn = FIRST_MRN
        if self._path is not None and self._path.exists():
            self._load(self._path)

    def _load(self, path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("version") != STORE_FORMAT_VERSION:
            raise ValueError(f"{path} is not a practice sandbox store (version {STORE_FORMAT_VERSION})")
        self._next_mrn = int(data["next_mrn"])
        for record in data["patients"]:
            self._patients[record["patient_id"]] = record
            self._ids_by_key[(record["account_id"], record["patient_pcref"])] = record["patient_id"]

    def _persist(self) -> None:
        if self._path is None:
            return
        data = {
            "version": STORE_FORMAT_VERSION,
            "next_mrn": self._next_mrn,
            "patients": list(self._patients.values()),
        }
        self._path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self._path.parent, prefix=self._path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(data, file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self._path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def upsert(self, envelope: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Create or replace the record of (account_id, patient_pcref); return (a copy, created?)."""
        fields = {key: envelope[key] for key in ENVELOPE_KEYS}
        key = (fields["account_id"], fields["patient_pcref"])
        with self._lock:
            existing_id = self._ids_by_key.get(key)
            now = _now()
            if existing_id is None:
                record = {
                    **fields,
                    "patient_id": str(uuid.uuid4()),
                    "mrn": str(self._next_mrn),
                    "writes": 1,
                    "created_at": now,
                    "updated_at": now,
                }
                self._next_mrn += 1
                self._ids_by_key[key] = record["patient_id"]
            else:
                previous = self._patients[existing_id]
                record = {
                    **previous,
                    **fields,
                    "writes": previous["writes"] + 1,
                    "updated_at": now,
                }
            self._patients[record["patient_id"]] = record
            self._persist()
            return copy.deepcopy(record), existing_id is None

    def get(self, account_id: str, patient_id: str) -> dict[str, Any] | None:
        """The record with this patient_id inside this account, or None."""
        with self._lock:
            record = self._patients.get(patient_id)
            if record is None or record["account_id"] != account_id:
                return None
            return copy.deepcopy(record)

    def listing(self, account_id: str | None = None) -> dict[str, Any]:
        """Records (of one account, or all) with how many saves created and how many updated a record."""
        with self._lock:
            records = [
                copy.deepcopy(record)
                for record in self._patients.values()
                if account_id is None or record["account_id"] == account_id
            ]
        return {
            "patients": records,
            "created": len(records),
            "updated": sum(record["writes"] - 1 for record in records),
        }
