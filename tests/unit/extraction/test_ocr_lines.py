"""What the OCR stage makes of the recogniser's raw lines, before any field is read."""

from __future__ import annotations

from extraction.formats.document import Box
from extraction.formats.ocr import RawLine, recognised_lines

_CORNERS = [(0.0, 0.0), (199.0, 0.0), (199.0, 39.0), (0.0, 39.0)]


def _read(text: str) -> str:
    (line,) = recognised_lines([RawLine(_CORNERS, text, 0.9)])
    return line.text


def _glyphs(text: str, pitch: float = 10.0) -> list[tuple[str, float, float]]:
    """One box per character of `text` but its spaces, `pitch` apart (a space takes a pitch)."""
    return [(char, i * pitch, i * pitch + 8) for i, char in enumerate(text) if char != " "]


def test_full_width_punctuation_is_read_as_ascii() -> None:
    assert _read("AEON CO. \uff08M\uff09 BHD") == "AEON CO. (M) BHD"
    assert _read("Cashier \uff1a EIRA") == "Cashier : EIRA"


def test_a_middle_dot_between_words_is_the_space_it_stands_in() -> None:
    assert _read("INTERNATIONAL\u00b7SDN BHD") == "INTERNATIONAL SDN BHD"


def test_words_are_boxed_from_their_characters_as_the_recogniser_spaced_them() -> None:
    text = "TOTAL  RM 9.00"
    (line,) = recognised_lines([RawLine(_CORNERS, text, 0.9, _glyphs(text))])
    assert line.text == "TOTAL RM 9.00"
    assert line.words == (
        ("TOTAL", Box(0, 0, 48, 39)),
        ("RM", Box(70, 0, 88, 39)),
        ("9.00", Box(100, 0, 138, 39)),
    )


def test_a_speck_read_as_a_middle_dot_parts_the_words_and_has_no_box() -> None:
    glyphs = [("A", 0.0, 8.0), ("B", 10.0, 18.0), ("\u00b7", 20.0, 22.0), ("C", 30.0, 38.0)]
    (line,) = recognised_lines([RawLine(_CORNERS, "AB\u00b7C", 0.9, glyphs)])
    assert [word for word, _ in line.words] == ["AB", "C"]
    assert line.words[1][1].x0 == 30.0


def test_characters_that_do_not_spell_the_text_give_no_word_boxes() -> None:
    (line,) = recognised_lines([RawLine(_CORNERS, "TOTAL", 0.9, _glyphs("TOTA"))])
    assert line.text == "TOTAL"
    assert line.words == ()


def test_lines_under_the_score_floor_or_blank_are_dropped() -> None:
    assert recognised_lines([RawLine(_CORNERS, "noise", 0.3), RawLine(_CORNERS, "  ", 0.9)]) == []


def test_look_alikes_are_resolved_in_words_as_in_the_line() -> None:
    text = "81100 J0HOR"
    (line,) = recognised_lines([RawLine(_CORNERS, text, 0.9, _glyphs(text))])
    assert line.text == "81100 JOHOR"
    assert [word for word, _ in line.words] == ["81100", "JOHOR"]


def test_the_engine_is_given_model_files_that_ship_in_the_wheel() -> None:
    """Given by path, the models are never fetched: each file must be installed with `rapidocr`."""
    from pathlib import Path

    from extraction.formats.ocr import engine_params

    params = engine_params(1)
    for key in ("Det.model_path", "Rec.model_path", "Cls.model_path"):
        assert Path(params[key]).is_file(), params[key]
    assert params["EngineConfig.onnxruntime.intra_op_num_threads"] == 1
    assert "EngineConfig.onnxruntime.intra_op_num_threads" not in engine_params(None)


def test_the_engine_does_not_turn_lines_over() -> None:
    """Pages are given upright: the per-line orientation classifier only turned right lines over."""
    from extraction.formats.ocr import engine_params

    assert engine_params(1)["Global.use_cls"] is False
    assert engine_params(None)["Global.use_cls"] is False


def test_a_word_whose_letters_stand_a_line_height_apart_is_two_words() -> None:
    # "Male [X] Female": the recogniser reads past the check box and glues the two options.
    glyphs = [(c, 10.0 * i, 10.0 * i + 8) for i, c in enumerate("Male")]
    glyphs += [(c, 100.0 + 10 * i, 108.0 + 10 * i) for i, c in enumerate("Female")]
    (line,) = recognised_lines([RawLine(_CORNERS, "MaleFemale", 0.9, glyphs)])
    assert line.text == "Male Female"
    assert line.words == (("Male", Box(0, 0, 38, 39)), ("Female", Box(100, 0, 158, 39)))
