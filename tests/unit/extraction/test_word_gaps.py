"""OCR word spacing comes from the blank bands of the page between words, not the recogniser."""

from __future__ import annotations

import numpy as np
from PIL import Image

from extraction.formats.word_gaps import ink_mask, own_rows, space_width, spaced_by_pieces, word_pieces


def _line(runs: list[tuple[int, int]], width: int = 300, height: int = 30) -> np.ndarray:
    """A line's ink: solid columns over each (start, end) run."""
    ink = np.zeros((height, width), dtype=bool)
    for start, end in runs:
        ink[5:25, start:end] = True
    return ink


def test_blank_bands_as_wide_as_a_space_part_the_line() -> None:
    # Letters 2 px apart, words 12 px apart, on a line 30 px high.
    ink = _line([(10, 20), (22, 32), (34, 44), (56, 66), (68, 78)])
    assert word_pieces(ink, [(0, 0), (299, 0), (299, 29), (0, 29)]) == [(10, 44), (56, 78)]
    # Specks of noise in a gap do not close it.
    ink[12, 50] = True
    assert word_pieces(ink, [(0, 0), (299, 0), (299, 29), (0, 29)]) == [(10, 44), (56, 78)]


def test_characters_are_spaced_by_the_pieces_their_centres_fall_in() -> None:
    # The recogniser's own boxes put a gap after the wide "m" and none between the words.
    chars = list("AmbetterPlan")
    spans = [(x, x + 9.0) for x in (0, 12, 28, 38, 48, 58, 68, 78, 100, 110, 120, 130)]
    text, words = spaced_by_pieces(chars, spans, [(0, 88), (99, 140)], 30) or ("", [])
    assert text == "Ambetter Plan"
    assert [w for w, _, _ in words] == ["Ambetter", "Plan"]
    assert words[1][1] == 100
    # One piece is one word, whatever spaces the recogniser put in.
    assert spaced_by_pieces(list("Em ail"), [(x, x + 9.0) for x in range(0, 60, 10)], [(0, 60)], 30) == (
        "Email",
        [("Email", 0.0, 59.0)],
    )


def test_a_narrow_one_does_not_split_a_number_and_nothing_fits_out_of_order() -> None:
    chars = list("11/24")
    spans = [(0, 8.0), (16, 24.0), (26, 34.0), (36, 44.0), (46, 54.0)]
    # The "1" leaves an 8 px margin (0.27 of the height): wide enough for letters, not numbers.
    assert spaced_by_pieces(chars, spans, [(2, 6), (14, 54)], 30) == ("11/24", [("11/24", 0.0, 54.0)])
    assert spaced_by_pieces(list("ab"), [(50, 58.0), (0, 8.0)], [(0, 10), (48, 60)], 30) is None
    assert spaced_by_pieces(list("ab"), [(0, 8.0), (10, 18.0)], [], 30) is None


def test_a_narrow_capital_keeps_its_word_and_a_wide_gap_after_it_still_parts() -> None:
    # "I" is a thin stroke in a wider cell: 7 px of margin (0.23 of the height) is no space.
    chars = list("INK")
    spans = [(0, 6.0), (13, 22.0), (24, 33.0)]
    assert spaced_by_pieces(chars, spans, [(2, 4), (11, 33)], 30) == ("INK", [("INK", 0.0, 33.0)])
    text, _ = spaced_by_pieces(list("AI"), [(0, 9.0), (20, 26.0)], [(0, 9), (18, 24)], 30) or ("", [])
    assert text == "A I"


def test_an_r_open_on_its_right_keeps_its_word() -> None:
    # The ink of "r" ends early: 7 px before "o" (0.23 of the height) is inside "Brown".
    chars = list("Brown")
    spans = [(0, 9.0), (10, 17.0), (24, 33.0), (34, 45.0), (46, 55.0)]
    pieces = [(0, 15), (22, 55)]
    assert spaced_by_pieces(chars, spans, pieces, 30) == ("Brown", [("Brown", 0.0, 55.0)])


def test_the_space_width_follows_the_lines_own_two_kinds_of_gap() -> None:
    # Tight type: letters 1-2 px apart, words 7 px apart on a line 20 px high (0.35 of it).
    assert 2 < space_width([2, 1, 2, 7, 2, 1, 7, 2], 20) <= 7
    # Loose type: letters 3 px apart, words 12 px: a 7 px band is no space here.
    assert space_width([3, 3, 12, 3, 4, 12, 3], 20) > 7
    # One word (its gaps all alike) is parted only by a band of 0.8 of the height.
    assert space_width([2, 3, 2, 3, 2], 20) == 16
    assert space_width([], 20) == 16


def test_a_space_the_recogniser_read_is_kept_where_the_page_has_a_narrow_gap() -> None:
    chars = list("JALAN DEDAP")
    spans = [(x * 10.0, x * 10.0 + 8) for x in range(11)]
    one_piece = [(0.0, 110.0)]
    # The page shows a 3 px band between "N" and "D" (0.15 of the height): not a space by itself,
    # but the recogniser read one there.
    fine = [(0.0, 48.0), (52.0, 110.0)]
    assert spaced_by_pieces(chars, spans, one_piece, 20, fine) == (
        "JALAN DEDAP",
        [("JALAN", 0.0, 48.0), ("DEDAP", 60.0, 108.0)],
    )
    # Where the letters touch, the recogniser's space is dropped.
    assert spaced_by_pieces(chars, spans, one_piece, 20, one_piece) == (
        "JALANDEDAP",
        [("JALANDEDAP", 0.0, 108.0)],
    )


def test_a_line_is_read_in_its_own_rows_not_the_neighbours_reaching_into_its_box() -> None:
    # Rows 0-3: the descenders of the line above; 5-14: the line; 17-19: the line below.
    row_ink = [30, 30, 4, 0, 0, 80, 90, 90, 85, 90, 90, 85, 90, 80, 70, 10, 0, 40, 40, 40]
    assert own_rows(row_ink) == (5, 15)
    # Two lines that touch: the thin band where they meet parts them.
    touching = [0, 60, 90, 90, 90, 15, 12, 70, 80, 80]
    assert own_rows(touching) == (1, 5)
    assert own_rows([]) == (0, 0)


def test_ink_is_told_from_paper_that_darkens_across_the_page() -> None:
    # Paper fading from white to mid grey, with dark strokes on both ends.
    grey = np.tile(np.linspace(250, 120, 200).astype(np.uint8), (40, 1))
    grey[10:30, 20:24] = 90
    grey[10:30, 180:184] = 30
    ink = ink_mask(Image.fromarray(grey))
    assert ink[20, 21] and ink[20, 181]
    assert not ink[20, 100] and not ink[20, 195]


def test_a_slanted_line_is_straightened_before_its_gaps_are_read() -> None:
    # Two words on a line rising 12 px over 200 px, and the line above it, unbroken: in the box
    # around the slanted line, the line above fills the band between the two words.
    ink = np.zeros((60, 220), dtype=bool)
    for x in range(10, 210):
        y = 35 - (x - 10) * 12 // 200
        if not 100 <= x < 116:
            ink[y - 8 : y, x] = True
        ink[y - 20 : y - 12, x] = True
    assert word_pieces(ink, [(10.0, 14.0), (210.0, 14.0), (210.0, 36.0), (10.0, 36.0)], min_gap=5) == [
        (10.0, 210.0)
    ]
    pieces = word_pieces(ink, [(10.0, 26.0), (210.0, 14.0), (210.0, 24.0), (10.0, 36.0)], min_gap=5)
    assert len(pieces) == 2
    assert abs(pieces[0][1] - 100) <= 2 and abs(pieces[1][0] - 116) <= 2


def test_a_thin_piece_of_a_letter_or_a_bracket_joins_its_word() -> None:
    # The stem of a "T" whose arms the ink mask lost stands alone, 5 px from the letters each side.
    chars = list("INTERNA")
    spans = [(float(x), x + 9.0) for x in range(0, 70, 10)]
    pieces = [(0, 15), (23, 26), (32, 69)]
    assert spaced_by_pieces(chars, spans, pieces, 30)[0] == "INTERNA"  # type: ignore[index]
    # An opening bracket joins the word after it, even when the word before is nearer.
    chars = list("AB(CD")
    spans = [(float(x), x + 9.0) for x in range(0, 50, 10)]
    pieces = [(0, 19), (24, 27), (36, 49)]
    assert spaced_by_pieces(chars, spans, pieces, 30)[0] == "AB (CD"  # type: ignore[index]


def test_a_thin_digit_stays_a_word_of_its_own() -> None:
    chars = list("1AB")
    spans = [(0.0, 9.0), (20.0, 29.0), (30.0, 39.0)]
    assert spaced_by_pieces(chars, spans, [(3, 6), (20, 39)], 30)[0] == "1 AB"  # type: ignore[index]


def test_a_line_whose_ink_holds_only_a_thin_band_of_rows_is_not_spaced_by_it() -> None:
    # A rule through dotted digits: the inkiest rows are 3 of 30, and their gaps cut the digits.
    ink = np.zeros((30, 300), dtype=bool)
    ink[14:17, 10:200] = True
    ink[5:25, 10:200:4] = True
    assert word_pieces(ink, [(0, 0), (299, 0), (299, 29), (0, 29)]) == []


def test_a_number_glued_to_a_word_parts_at_a_narrow_gap_and_a_code_does_not() -> None:
    spans = [(float(x), x + 9.0) for x in range(0, 100, 10)]
    one_piece = [(0, 99)]
    # A 3 px band between the postcode and the word, on a line 20 px high.
    fine = [(0, 48), (51, 99)]
    assert spaced_by_pieces(list("81760JOHOR"), spans, one_piece, 20, fine)[0] == "81760 JOHOR"  # type: ignore[index]
    assert spaced_by_pieces(list("CS18019876"), spans, one_piece, 20, [(0, 18), (21, 99)])[0] == "CS18019876"  # type: ignore[index]
