"""A path in a few lines (the first frames, the largest, the deepest, a line for each run left out) and repeated
warnings as one line with a count."""

from sizetool.render.path_summary import LeftOut, grouped_warnings, summarised
from sizetool.stack.stack_depth import StackWarning


def test_a_short_path_is_shown_whole():
    assert summarised([8, 16, 24, 4, 8]) == [0, 1, 2, 3, 4]


def test_a_long_path_keeps_the_first_frames_the_largest_and_the_deepest():
    frames = [8, 48, 248, 16, 1144, 8, 32, 16, 16]
    items = summarised(frames)
    assert items == [0, 1, 2, LeftOut(1, 16), 4, LeftOut(3, 56), 8]
    shown = [i for i in items if isinstance(i, int)]
    assert sum(frames[i] for i in shown) + sum(i.bytes for i in items if isinstance(i, LeftOut)) == sum(frames)
    assert summarised(frames, verbose=True) == list(range(len(frames)))


def test_warnings_of_one_kind_are_one_line_with_their_sites_counted_and_the_functions_holding_most_named():
    warnings = [StackWarning("indirect call", "f(int)", 0x10, "through a pointer loaded from offset 0, not followed"),
                StackWarning("indirect call", "g()", 0x20, "through a function pointer, not followed"),
                StackWarning("indirect call", "f(int)", 0x30, "through a function pointer, not followed"),
                StackWarning("indirect call", "tflite::(anonymous namespace)::Prepare(TfLiteContext*)", 0x40),
                StackWarning("indirect call", "h()", 0x50),
                StackWarning("recursion", "g()", 0x60, "calls g again")]
    groups = grouped_warnings(warnings)
    assert [(g.kind, g.sites) for g in groups] == [("indirect call", 5), ("recursion", 1)]
    assert groups[0].text() == ("indirect call: 5 sites in 4 functions (f 2, g, tflite::(anonymous namespace)::Prepare, "
                                "1 more; --verbose lists them)")
    assert groups[1].text() == "recursion in g() at 0x60: calls g again"  # alone of its kind: the warning itself
