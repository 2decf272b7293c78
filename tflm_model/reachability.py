"""The reachability walk both set questions rest on: over the ELF's reference graph (sizetool/code_graph) for
`size-report ops --drop|--keep`, and over a target profile's reduced graph (tflm_model/profile_sets.py) for
`gen-resolver --fit`. One walk, so that a profile reproduces `--keep` byte for byte."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def reachable(edges: Sequence[Iterable[int]], roots: Iterable[int], removed: Iterable[int] = (),
              cut: dict[int, set[int]] | None = None) -> set[int]:
    """Nodes reachable from roots without passing through (or starting at) a removed node; `cut` names edges
    (node -> targets) to leave out, such as the calls a dropped AddXxx() call site made."""
    # Marks in a bytearray (1: reached, 2: removed), set when a node is pushed: each node is pushed once.
    marks = bytearray(len(edges))
    for node in removed:
        marks[node] = 2
    reached = []
    for root in roots:
        if not marks[root]:
            marks[root] = 1
            reached.append(root)
    stack = list(reached)
    cut = cut or {}
    while stack:
        node = stack.pop()
        skipped = cut.get(node)
        for target in edges[node]:
            if not marks[target] and not (skipped and target in skipped):
                marks[target] = 1
                reached.append(target)
                stack.append(target)
    return set(reached)
