"""The synthetic intake-form generator: the same seed gives the same documents, every design
renders, and its manifest scores with the intake rules."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bench.corpus_score import is_kept_back, score
from bench.synthetic_forms import fresh_designs, late_designs
from bench.synthetic_forms.canvas import (
    PAGE_EDGE,
    PAGE_HEIGHT,
    PAGE_WIDTH,
    Canvas,
    Style,
    pymupdf,
    scan,
    scan_pages,
)
from bench.synthetic_forms.generate import (
    DESIGNS,
    DEV_DESIGNS,
    HELD_OUT_DESIGNS,
    INITIAL_ONLY,
    PATIENT_MAKERS,
    SET_NAME,
    UNSEEN_DESIGNS,
    UNSEEN_TUNE,
    generate,
    split_of,
)
from bench.synthetic_forms.people import make_patient


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


@pytest.mark.parametrize("design", sorted(UNSEEN_DESIGNS))
def test_unseen_design_prints_its_truth(design: str) -> None:
    for n in range(4):
        rng = random.Random(f"test:{n}:{design}")
        patient = PATIENT_MAKERS.get(design, make_patient)(rng)
        pdf = pymupdf.open()
        page = pdf.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        UNSEEN_DESIGNS[design](Canvas(page, Style.draw(rng), rng), patient)
        text = " ".join(" ".join(p.get_text() for p in pdf).split()).lower()
        truth = patient.truth(initial_only=design in INITIAL_ONLY)
        # Dates and choices are printed in the design's own way: their parts are on the page
        # (a fax may give the year in two digits: "04/01/85").
        year, _, day = patient.dob
        assert (str(year) in text or f"/{year % 100:02d}" in text) and f"{day}" in text
        assert patient.gender[0].lower() in text
        for name, value in truth.items():
            if value and name not in ("dob", "gender"):
                assert str(value).lower() in text, (design, name, value)


def test_unseen_designs_are_a_split_of_their_own(tmp_path: Path) -> None:
    # The default run (`DESIGNS`) leaves them out, so the dev and held-out outputs do not move.
    assert not set(UNSEEN_DESIGNS) & set(DESIGNS)
    # Half of the designs written before the rules are tuned on, and half of the fresh ones,
    # written after the rules: each group keeps designs back.
    fresh = {name for name, fn in UNSEEN_DESIGNS.items() if fn.__module__ == fresh_designs.__name__}
    # Of the late designs, the two that failed when first scored are tuned on, the photo kept back.
    late = {name for name, fn in UNSEEN_DESIGNS.items() if fn.__module__ == late_designs.__name__}
    older = set(UNSEEN_DESIGNS) - fresh - late
    assert len(fresh) == 4 and len(late) == 3
    assert len(older & UNSEEN_TUNE) == len(older) / 2 and len(fresh & UNSEEN_TUNE) == len(fresh) / 2
    assert late & UNSEEN_TUNE == {"ehr_demographics", "spanish_only"}
    manifest = generate(tmp_path, len(UNSEEN_DESIGNS), seed=2, only=list(UNSEEN_DESIGNS))
    for doc in manifest:
        assert doc["split"] == "unseen"
        assert doc["kept_back"] == (doc["design"] not in UNSEEN_TUNE) == is_kept_back(doc)


def test_a_scan_of_several_pages_is_one_pdf_of_images() -> None:
    pdf = pymupdf.open()
    for _ in range(2):
        pdf.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT).insert_text((72, 72), "Page")
    scanned = pymupdf.open(stream=scan_pages(pdf, random.Random(1)), filetype="pdf")
    assert len(scanned) == 2
    assert all(not page.get_text().strip() and page.get_images() for page in scanned)


def test_a_fax_is_black_and_white_and_always_an_image(tmp_path: Path) -> None:
    page = pymupdf.open().new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
    page.insert_text((72, 72), "FROM: CLINIC  FAX NO. 5205550100  PAGE 1/1")
    image = pymupdf.Pixmap(scan(page, random.Random(4), "png", fax=True))
    assert set(image.samples) == {0, 255}
    for doc in generate(tmp_path, 2, seed=6, only=["fax_copy"]):
        assert doc["path"].rsplit(".", 1)[1] in ("png", "pdf")
        if doc["path"].endswith(".pdf"):
            assert not pymupdf.open(tmp_path / doc["path"])[0].get_text().strip()


def test_a_child_is_a_teenager_whose_parent_holds_the_policy() -> None:
    for n in range(20):
        child = fresh_designs.make_child(random.Random(n))
        assert 12 <= child.visit[0] - child.dob[0] <= 17
        parent = child.subscriber
        assert parent is not None and parent is child.guarantor
        assert parent.relationship in ("Mother", "Father", "Legal Guardian")
        assert child.truth()["dob"] == f"{child.dob[1]:02d}/{child.dob[2]:02d}/{child.dob[0]}"


def test_a_phone_photo_is_a_keystoned_unevenly_lit_colour_jpeg(tmp_path: Path) -> None:
    page = pymupdf.open().new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
    page.insert_text((72, 72), "Last Name: QUILLFEATHER")
    data = scan(page, random.Random(3), "jpg", photo=True)
    assert data[:3] == b"\xff\xd8\xff"
    image = pymupdf.Pixmap(data)
    assert image.n == 3
    width, height = image.width, image.height
    # The desk shows at the corners, darker than the paper in the middle.
    middle = sum(image.pixel(width // 2, height // 2)) / 3
    corners = [image.pixel(x, y) for x in (2, width - 3) for y in (2, height - 3)]
    assert all(sum(rgb) / 3 < middle - 40 for rgb in corners)
    # Lit from one side: the paper is brighter at one end than the other.
    edges = [
        sum(image.pixel(x, y)) / 3
        for x, y in (
            (width // 5, height // 2),
            (width * 4 // 5, height // 2),
            (width // 2, height // 5),
            (width // 2, height * 4 // 5),
        )
    ]
    assert max(abs(edges[0] - edges[1]), abs(edges[2] - edges[3])) > 8
    for doc in generate(tmp_path, 2, seed=6, only=["phone_photo"]):
        assert doc["path"].endswith(".jpg") and doc["kept_back"]


def test_a_spanish_patient_is_printed_as_the_truth_states_it() -> None:
    accented = plain = 0
    for n in range(30):
        p = late_designs.make_hispanic(random.Random(n))
        names = [p.first, p.last, p.middle or "", p.emergency.first, p.emergency.last]
        if any(late_designs._plain(name) != name for name in names):
            accented += 1
            # Accents are kept or avoided for the whole form, never for one name only.
            assert p.first in late_designs.HISPANIC_MALE + late_designs.HISPANIC_FEMALE
        else:
            plain += 1
        assert p.email.isascii()
        assert p.emergency.relationship in late_designs.KIN.values()
    assert accented and plain


def test_a_value_too_long_for_the_page_is_set_smaller_not_cut_off() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
    canvas = Canvas(page, Style.draw(random.Random(3)), random.Random(3))
    long_email = "wilhelmina.quillfeather-ravensworth49@letterbox.example"
    end = canvas.text(PAGE_WIDTH - 200, 100, long_email)
    assert end <= PAGE_WIDTH - PAGE_EDGE + 0.01
    # Everything drawn is on the page, so the text layer holds the whole value.
    assert long_email in page.get_text()
