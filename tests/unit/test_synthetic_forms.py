"""The synthetic intake-form generator: the same seed gives the same documents, every design
renders, and its manifest scores with the intake rules."""

from __future__ import annotations

import json
from pathlib import Path

from bench.corpus_score import score
from bench.synthetic_forms.generate import (
    DESIGNS,
    DEV_DESIGNS,
    HELD_OUT_DESIGNS,
    SET_NAME,
    generate,
    split_of,
)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_seed_same_documents(tmp_path: Path) -> None:
    first = generate(tmp_path / "a", len(DESIGNS), seed=7)
    second = generate(tmp_path / "b", len(DESIGNS), seed=7)
    assert first == second
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    other = generate(tmp_path / "c", 2, seed=8, only=["combined_fields"])
    assert [d["fields"] for d in other] != [d["fields"] for d in first[:2]]


def test_every_design_once_with_its_split(tmp_path: Path) -> None:
    manifest = generate(tmp_path, len(DESIGNS), seed=3)
    assert {d["design"] for d in manifest} == set(DESIGNS)
    assert not set(DEV_DESIGNS) & set(HELD_OUT_DESIGNS)
    for doc in manifest:
        assert doc["set"] == SET_NAME
        assert doc["split"] == split_of(doc["design"])
        assert (tmp_path / doc["path"]).stat().st_size > 1000
    lines = (tmp_path / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == manifest


def test_manifest_scores_with_intake_rules(tmp_path: Path) -> None:
    manifest = generate(tmp_path, len(DESIGNS), seed=5)
    truth = {d["id"]: dict(d["fields"]) for d in manifest}
    assert score(manifest, truth).overall.f1 == 1.0
    # Intake rules: a phone compares by its digits, a date of birth as a month-first date.
    reworded = {
        doc_id: {**fields, "cell_phone": "".join(c for c in fields["cell_phone"] or "" if c.isdigit())}
        for doc_id, fields in truth.items()
    }
    report = score(manifest, reworded)
    assert report.overall.f1 == 1.0
    assert set(report.by_design) >= {("dev", "ALL"), ("held_out", "ALL")}
