"""Every operator's exclusive bytes at once, and the runtime code each one uses, without one graph walk per operator.

Exclusive bytes of an operator are the bytes its roots dominate: in a graph where a virtual root points at the runtime
roots and at one virtual node per operator, and every reference to an operator's roots goes through that operator's
virtual node, a node is lost with the operator exactly when every path from the root to it passes through the
operator's node. One dominator tree (the iterative algorithm of Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
Algorithm", 2001) answers that for all operators; a walk per operator costs seconds on a 500 KB firmware. (networkx
has the same algorithm, but takes longer to import than this takes to run.)

The runtime code an operator uses is the closure of the runtime nodes its code refers to; closures of the runtime's
nodes are computed once, as bit masks, in post-order.

What each operator reaches outside the runtime (its shared bytes, and with whom it shares them) is likewise one pass:
`reach_masks` gives every node the bit mask of the operators that reach it, instead of one walk per operator.
"""

from __future__ import annotations

from sizetool.code_graph.reference_graph import ReferenceGraph


def dominated_sets(graph: ReferenceGraph, runtime_roots, operator_roots: list[frozenset[int]]) -> list[set[int]]:
    """For each operator (its root set), the nodes reachable from all roots that every path reaches through it."""
    size = len(graph.nodes)
    root = size
    first_virtual = size + 1
    owner = {}
    for position, nodes in enumerate(operator_roots):
        for node in nodes:
            owner[node] = first_virtual + position

    def successors(node: int):
        if node == root:
            return [owner.get(r, r) for r in runtime_roots] + list(range(first_virtual, first_virtual + len(
                operator_roots)))
        if node >= first_virtual:
            return sorted(operator_roots[node - first_virtual])
        return [owner.get(target, target) for target in graph.edges[node]]

    # Reverse post-order from the root (iterative depth-first search).
    order: list[int] = []
    number: dict[int, int] = {}
    visited = {root}
    stack = [(root, iter(successors(root)))]
    while stack:
        node, targets = stack[-1]
        for target in targets:
            if target not in visited:
                visited.add(target)
                stack.append((target, iter(successors(target))))
                break
        else:
            stack.pop()
            number[node] = len(order)
            order.append(node)
    order.reverse()
    predecessors: dict[int, list[int]] = {node: [] for node in order}
    for node in order:
        for target in set(successors(node)):
            if target != node:
                predecessors[target].append(node)

    idom = {root: root}
    changed = True
    while changed:
        changed = False
        for node in order[1:]:
            new = None
            for before in predecessors[node]:
                if before not in idom:
                    continue
                if new is None:
                    new = before
                    continue
                left, right = before, new
                while left != right:
                    while number[left] < number[right]:
                        left = idom[left]
                    while number[right] < number[left]:
                        right = idom[right]
                new = left
            if idom.get(node) != new:
                idom[node] = new
                changed = True

    children: dict[int, list[int]] = {}
    for node, parent in idom.items():
        if node != root:
            children.setdefault(parent, []).append(node)
    result = []
    for position in range(len(operator_roots)):
        members: set[int] = set()
        stack = [first_virtual + position]
        while stack:
            node = stack.pop()
            for child in children.get(node, ()):
                members.add(child)
                stack.append(child)
        result.append({node for node in members if node < size})
    return result


class RuntimeClosures:
    """Bytes of the runtime code reachable from any set of runtime nodes, from per-node closures (bit masks)."""

    def __init__(self, graph: ReferenceGraph, runtime: set[int]):
        self.graph = graph
        self.runtime = runtime
        members = sorted(runtime)
        self.bit = {node: position for position, node in enumerate(members)}
        self.sizes = [graph.nodes[node].rom_bytes for node in members]
        post_order: list[int] = []
        visited: set[int] = set()
        for start in members:
            if start in visited:
                continue
            visited.add(start)
            stack = [(start, iter(graph.edges[start]))]
            while stack:
                node, targets = stack[-1]
                for target in targets:
                    if target in runtime and target not in visited:
                        visited.add(target)
                        stack.append((target, iter(graph.edges[target])))
                        break
                else:
                    stack.pop()
                    post_order.append(node)
        masks = {node: 1 << self.bit[node] for node in members}
        changed = True
        while changed:  # one pass settles a DAG in post-order; cycles (recursion, vtables) take another
            changed = False
            for node in post_order:
                mask = masks[node]
                for target in graph.edges[node]:
                    if target in runtime:
                        mask |= masks[target]
                if mask != masks[node]:
                    masks[node] = mask
                    changed = True
        self.masks = masks

    def bytes_from(self, nodes) -> int:
        """Flash of the runtime nodes reachable from `nodes` (runtime nodes; others are ignored)."""
        mask = 0
        for node in nodes:
            mask |= self.masks.get(node, 0)
        return self.bytes_of(mask)

    def bytes_of(self, mask: int) -> int:
        """Flash of the runtime nodes in a mask (an OR of `masks` values)."""
        total = 0
        sizes = self.sizes
        while mask:
            low = mask & -mask
            total += sizes[low.bit_length() - 1]
            mask ^= low
        return total


def reach_masks(graph: ReferenceGraph, root_sets: list[frozenset[int]],
                removed: set[int] | frozenset[int]) -> list[int]:
    """For each node, the bit mask of the root sets (bit i: root_sets[i]) that reach it without passing through (or
    starting at) a removed node: node n has bit i exactly when n is in graph.reachable(root_sets[i], removed)."""
    edges = graph.edges
    masks = [0] * len(graph.nodes)
    blocked = bytearray(len(graph.nodes))
    for node in removed:
        blocked[node] = 1
    starts = []
    for position, roots in enumerate(root_sets):
        for node in roots:
            if not blocked[node]:
                if not masks[node]:
                    starts.append(node)
                masks[node] |= 1 << position
    # Reverse post-order of the part reached (iterative depth-first search): one pass settles everything but the
    # back edges of cycles; passes repeat while a back edge still adds bits.
    post_order: list[int] = []
    visited = bytearray(len(graph.nodes))
    for start in sorted(starts):
        if visited[start]:
            continue
        visited[start] = 1
        stack = [(start, iter(edges[start]))]
        while stack:
            node, targets = stack[-1]
            for target in targets:
                if not visited[target] and not blocked[target]:
                    visited[target] = 1
                    stack.append((target, iter(edges[target])))
                    break
            else:
                stack.pop()
                post_order.append(node)
    order = post_order[::-1]
    rank = {node: position for position, node in enumerate(order)}
    successors = [(node, rank[node], [t for t in edges[node] if not blocked[t]]) for node in order]
    changed = True
    while changed:
        changed = False
        for node, position, targets in successors:
            mask = masks[node]
            for target in targets:
                merged = masks[target] | mask
                if merged != masks[target]:
                    masks[target] = merged
                    if rank[target] <= position:
                        changed = True
    return masks
