"""The set question over a target profile: what a firmware keeps with only some of the profiled registrations.

The same computation as `size-report ELF --keep OPS` (sizetool/operators/operator_sets.py), on the reduced graph a
profile carries (tflm_facts/target_profile.py) instead of the ELF's: for the set S of registrations removed,
- the flash reachable from every root minus what is still reachable once S's roots are removed (a root several
  registrations share goes when all its users go), with the edges only S's AddXxx() calls used cut;
- the calls' own bytes in code that stays, and the literal-pool words pointing at what goes;
- half of the registration machinery left with a single call (which GCC inlines into it), the other half stated as
  the error either way;
- the bytes kept only through functions and objects no root reaches (the answer may be that much too high).
The profile's exporter checks on fixtures that both give the same figures byte for byte (tests/sizetool/profile).
Also the RAM of what goes: the .data/.bss of the nodes that go.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from tflm_facts.set_prediction import SetPrediction, inlined_machinery
from tflm_facts.target_profile import ProfileError, TargetProfile
from tflm_model.reachability import reachable


@dataclass(frozen=True)
class ProfileSetCost(SetPrediction):
    ops: tuple[str, ...]  # the registrations removed
    code_bytes: int  # flash only they reach
    ram_bytes: int  # .data/.bss only they reach
    call_sites: int
    call_site_bytes: int
    unsure_bytes: int = 0
    inline_bytes: int = 0
    inlined: tuple[str, ...] = field(default=())


class ProfileSets:
    """Set questions over one profile; the walks share the profile's adjacency."""

    def __init__(self, profile: TargetProfile):
        self.profile = profile
        graph = profile.graph
        self.registered = tuple(sorted(r.op for r in profile.registrations))
        self.operator_nodes = frozenset(node for r in profile.registrations for node in r.nodes)
        self.runtime_roots = frozenset(graph.always) | frozenset(graph.roots)
        self.functions = frozenset(graph.functions)
        self.everything = frozenset(self.reachable(self.runtime_roots | self.operator_nodes))

    def reachable(self, roots, removed=frozenset(), cut: dict[int, set[int]] | None = None) -> set[int]:
        return reachable(self.profile.graph.edges, roots, removed, cut)

    def flash(self, nodes) -> int:
        sizes = self.profile.graph.flash
        return sum(sizes[node] for node in nodes)

    def ram(self, nodes) -> int:
        sizes = self.profile.graph.ram
        return sum(sizes[node] for node in nodes)

    def removed_roots(self, chosen: frozenset[str]) -> set[int]:
        removed = {node for r in self.profile.registrations if r.op in chosen for node in r.nodes}
        removed.update(s.node for s in self.profile.graph.shared_roots if set(s.users) <= chosen)
        return removed

    def cut_edges(self, chosen: frozenset[str]) -> dict[int, set[int]]:
        graph = self.profile.graph
        by_caller = defaultdict(list)
        for site in graph.call_sites:
            by_caller[site.caller].append(site)
        cut = {}
        for caller, calls in by_caller.items():
            dropped = [site for site in calls if site.op in chosen]
            if not dropped:
                continue
            still = set(graph.kept_targets.get(caller, ()))
            for site in calls:
                if site.op not in chosen:
                    still.update(site.targets)
            gone = {target for site in dropped for target in site.targets} - still
            if gone:
                cut[caller] = gone
        return cut

    def drop(self, ops, app_roots=frozenset()) -> ProfileSetCost:
        """What removing the registrations `ops` saves (sizetool's set_cost on the profile's graph). `app_roots`:
        nodes the application's own code keeps whatever is registered (ProfileGraph.app_uses)."""
        chosen = frozenset(ops)
        unknown = chosen - set(self.registered)
        if unknown:
            raise ProfileError(f"profile {self.profile.name}: not registered: {', '.join(sorted(unknown))}")
        if not chosen:
            return ProfileSetCost((), 0, 0, 0, 0)
        graph = self.profile.graph
        removed = self.removed_roots(chosen)
        roots = (self.runtime_roots | self.operator_nodes | frozenset(app_roots)) - removed
        cut = self.cut_edges(chosen)
        extra = inlined_machinery(self.profile.graph.call_sites, self.profile.graph.kept_targets, chosen, cut)
        remaining = self.reachable(roots, removed, cut)
        gone = self.everything - remaining
        stays = lambda node: node in self.everything and node not in gone  # noqa: E731
        sites = [s for s in graph.call_sites if s.op in chosen and stays(s.caller)]
        words = {w.address: w.bytes for w in graph.pool_words if w.target in gone and stays(w.caller)}
        extra = sum(delta for caller, delta in extra.items() if stays(caller))
        inline_bytes, inlined = 0, ()
        alone = self._called_once(chosen, remaining)
        if alone:
            folded = remaining - self.reachable(roots, removed | alone, cut)
            inline_bytes = self.flash(folded)
            inlined = tuple(sorted(graph.names.get(node, f"node {node}") for node in alone))
        unsure = 0
        if graph.unexplained:
            explained = self.reachable(roots - set(graph.unexplained), removed, cut)
            unsure = self.flash(remaining - explained)
        return ProfileSetCost(tuple(sorted(chosen)), self.flash(gone), self.ram(gone), len(sites),
                              sum(s.bytes for s in sites) + sum(words.values()) - extra, unsure, inline_bytes, inlined)

    def keep(self, ops, app_roots=frozenset()) -> ProfileSetCost:
        """What removing every registration except `ops` saves."""
        return self.drop(set(self.registered) - set(ops), app_roots)

    def app_use_nodes(self, use: str) -> frozenset[int]:
        """The nodes an application use roots (ProfileGraph.app_uses); empty when the profile has none for it."""
        return frozenset(self.profile.graph.app_uses.get(use, ()))

    def _called_once(self, chosen: frozenset[str], remaining: set[int]) -> set[int]:
        graph = self.profile.graph
        calls: dict[int, list[int]] = {}
        before: dict[int, int] = defaultdict(int)
        for site in graph.call_sites:
            for target in site.targets:
                before[target] += 1
            if site.op in chosen or site.caller not in remaining:
                continue
            for target in site.targets:
                if target in remaining and target in self.functions:
                    calls.setdefault(target, []).append(site.caller)
        alone = {target for target, callers in calls.items() if len(callers) == 1 and before[target] > 1}
        if not alone:
            return set()
        for caller, targets in graph.kept_targets.items():
            if caller in remaining:
                alone -= set(targets)
        referrers = {target: {node for node in remaining if target in graph.edges[node]} for target in alone}
        return {target for target in alone if referrers[target] <= set(calls[target])}
