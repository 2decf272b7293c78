"""The alignment fill a relink gives back (sizetool/operators/aligned_fill.py): the alignment read from the map's
fills, and the fill laid out again after what goes."""

from sizetool.inputs.map_file import InputSection
from sizetool.operators.aligned_fill import AlignedFill, aligned_fills, fill_given_back


def piece(name, address, size, output=".text"):
    return InputSection(name, address, size, "" if name == "*fill*" else "a.o", output)


def test_the_alignment_is_the_smallest_power_of_two_above_a_small_fill_and_the_largest_for_a_large_one():
    # a 2-byte fill before 0x120 (4-aligned); 52 bytes before 0x180 (a multiple of 128: taken as 64, the cap);
    # a fill in .bss takes no flash
    sections = [piece(".text.f", 0x100, 0x1e), piece("*fill*", 0x11e, 2), piece(".text.g", 0x120, 0x2c),
                piece("*fill*", 0x14c, 52), piece(".text", 0x180, 8),
                piece("*fill*", 0x188, 8, ".bss"), piece(".bss.x", 0x190, 4, ".bss")]
    assert aligned_fills(sections) == (AlignedFill(0x11e, 2, 4), AlignedFill(0x14c, 52, 64))


def test_a_fill_after_what_goes_shrinks_or_grows_by_where_it_lands():
    fills = (AlignedFill(0x1000, 52, 64),)
    assert fill_given_back(fills, [(0x100, 32)]) == 32  # 52 -> 20
    assert fill_given_back(fills, [(0x100, 64)]) == 0  # the section moves by a whole alignment
    assert fill_given_back(fills, [(0x100, 56)]) == 8  # 52 -> 44
    assert fill_given_back(fills, [(0x100, 4)]) == -4  # 52 -> 56: the relink adds fill
    assert fill_given_back(fills, [(0x2000, 32)]) == 0  # what goes after it moves nothing before it


def test_fills_are_laid_out_in_order_and_one_the_graph_counts_is_left_to_it():
    fills = (AlignedFill(0x800, 2, 4), AlignedFill(0x1000, 52, 64))
    # 6 bytes go before the first fill: it gives back 2 (2 -> 0), so the second moves by 8: 52 -> 60
    assert fill_given_back(fills, [(0x100, 6)]) == 2 - 8
    # the first fill lies inside what goes: the graph counts it; the second moves by the 6 bytes alone: 52 -> 58
    assert fill_given_back(fills, [(0x100, 6)], [(0x7f0, 0x810)]) == -6
