"""What gen-resolver writes for a set of models and options, and whether a file on disk already holds it: the
library part of the command, which `size-report check --header` uses too (sizetool/ci/model_ties.py).

Exit statuses as the command's: 0 written or up to date, 1 a gate failed or the file is stale (the diff on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from resolver_gen.errors import ResolverGenError
from resolver_gen.options import PROG, build_parser, parse_custom


def write_atomically(path: Path, text: str) -> None:
    """Write text to path whole or not at all (tflm_model.file_output: a temp file renamed over it; a device or pipe
    such as /dev/stdout written in place). A regular file that already holds exactly this text is left untouched, its
    timestamp too: a build that regenerates a header from a model touched without changing its operators then
    recompiles nothing."""
    from tflm_model.file_output import replace_file

    data = text.encode("utf-8")
    if path.is_file():  # only a regular file is read back (reading one's own stdout blocks)
        try:
            if path.read_bytes() == data:
                return
        except OSError:  # unreadable: written (or refused) below
            pass
    try:
        replace_file(path, data)
    except OSError as error:
        raise ResolverGenError(f"{path}: cannot write ({error.strerror or error})") from None


def check_file(path: Path, expected: str, code_only: bool = False) -> int:
    """0 when the file at path holds `expected`, else 1 with a unified diff on stderr. code_only: comment lines
    aside (they name the model files and count their uses)."""
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResolverGenError(f"{path}: no such file (nothing to check)") from None
    except IsADirectoryError:
        raise ResolverGenError(f"{path}: is a directory") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ResolverGenError(f"{path}: cannot read ({getattr(error, 'strerror', None) or error})") from None
    if code_only:
        existing, expected = _code_lines(existing), _code_lines(expected)
    if existing == expected:
        return 0
    import difflib

    sys.stderr.writelines(difflib.unified_diff(
        existing.splitlines(keepends=True), expected.splitlines(keepends=True),
        fromfile=f"{path} (on disk)", tofile=f"{path} (generated from the models)"))
    print(f"{PROG}: {path} is stale: regenerate it", file=sys.stderr)
    return 1


def _code_lines(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("//"))


def check_header(header: str | os.PathLike, models: list, options: list[str]) -> int:
    """gen-resolver's --check for another caller (size-report check --header): 0 when the header at `header` is what
    `gen-resolver MODELS OPTIONS` writes, comment lines aside (a header made from model.tflite names that file where
    one made from the firmware names the array); else 1, the diff on stderr. ResolverGenError on bad options."""
    args = build_parser().parse_args(list(options))
    if args.models or args.check or args.output or args.list or args.fit:
        raise ResolverGenError("the header options are gen-resolver's generation options only (no models, -o, "
                               "--check, --list or --fit)")
    args.models = list(models)
    args.check = str(header)
    status, text = generate(args)
    return status if text is None else check_file(Path(header), text, code_only=True)


def refusals(plan) -> bool:
    """Print each op TFLM cannot run and each use whose tensor types its kernels refuse; True when there is one."""
    for op in plan.unsupported:
        for model in sorted(op.uses_by_model):
            print(f"{PROG}: unsupported op {op.name} in {model}: {op.registration.unsupported_reason}",
                  file=sys.stderr)
    for rejection in plan.type_rejections:
        print(f"{PROG}: unsupported types: {rejection.message()}", file=sys.stderr)
    return bool(plan.unsupported or plan.type_rejections)


def _gate(plan, args) -> bool:
    """Print every reason the resolver cannot be written; True when there is one."""
    failed = False
    for model in plan.models:
        if not model.ops:
            print(f"{PROG}: {model.path}: the model has no operators (a resolver of size 0 is never useful)",
                  file=sys.stderr)
            failed = True
    if args.format == "header":
        if not args.allow_unsupported and refusals(plan):
            print(f"{PROG}: use --allow-unsupported to write the header anyway", file=sys.stderr)
            failed = True
        elif not failed and not plan.registered:
            print(f"{PROG}: no op of the models can be registered in TFLM: nothing to write", file=sys.stderr)
            failed = True
    return failed


def _generation(args: argparse.Namespace, tree=None) -> tuple:
    """(the allocator generation, why it is not known, the revision as told): the one named (--tflm-revision), else the
    --tflm tree's; None without either (or with a tree whose generation cannot be told)."""
    from tflm_facts.allocator_generations import named

    generation, why, revision = None, "no --tflm tree or --tflm-revision named", ""
    if args.tflm_revision:
        try:
            generation = named(args.tflm_revision)
        except ValueError as error:
            raise ResolverGenError(f"--tflm-revision: {error}") from None
    elif tree is not None:
        generation, revision = tree.generation, f"the --tflm tree, {tree.revision.describe()}"
        why = "the --tflm tree has neither simple_memory_allocator.h nor single_arena_buffer_allocator.h"
    return generation, why, revision


def _estimate(args: argparse.Namespace, tree=None):
    """The arena estimate for the allocator generation named (--tflm-revision), else the --tflm tree's; without either
    (or with a tree whose generation cannot be told), the bound over the measured generations, named as such: a
    figure assumed for today's TFLM would be low for an older or full-struct build."""
    from tflm_model.arena_estimate import estimate_arena

    generation, why, revision = _generation(args, tree)
    return estimate_arena(args.models, kernels=args.kernels, pointer_bytes=args.pointer_size,
                          short_enums=args.short_enums, cpu_features="mve" if args.mve else "dsp",
                          generation=generation, why=why, revision=revision)


def generate(args: argparse.Namespace) -> tuple[int, str | None]:
    """(exit status, the text to write) for validated options; the text is None when there is nothing to write
    (--list printed its tables, or a gate failed)."""
    from tflm_model.operator_uses import read_model_uses
    from tflm_model.plan import build_plan
    from resolver_gen import render

    naming = render.Naming(args.name, args.namespace)
    overrides = parse_custom(args.custom)
    # Only JSON carries each model's SHA-256 (the header names the models by what was read from them, so it costs the
    # same for any model size): it is hashed on a background thread while this thread works, and a short switch
    # interval makes this thread hand the GIL over promptly at each hashed chunk instead of after the default 5 ms.
    hashing = args.format == "json" and not args.list
    if hashing:
        sys.setswitchinterval(0.0005)
    models = [read_model_uses(path, hash_in_background=hashing) for path in args.models]
    used_customs = {use.name for model in models for use in model.ops if use.is_custom}
    for name in sorted(set(overrides) - used_customs):
        raise ResolverGenError(f"--custom {name}: no model uses a custom op named {name!r}")
    tree = None
    if args.tflm:
        if args.format == "lite":
            raise ResolverGenError("--tflm checks the TFLM header against a TFLM tree, not --format lite (TFLite)")
        from resolver_gen.tflm_tree import read_tflm_tree

        tree = read_tflm_tree(args.tflm)
    # an older revision's kernels take types today's refuse (2020's uint8): its own type rules, where they are known
    generation = _generation(args, tree)[0] if args.tflm_revision or tree is not None else None
    linked = generation.kernel_types if generation is not None and generation.kernel_types else None
    plan = build_plan(models, overrides, reduce_types=args.reduce_types, linked_types=linked)
    if tree is not None:
        from resolver_gen.tflm_tree import restrict_to_tree

        plan = restrict_to_tree(plan, tree)

    if args.list:
        render.print_tables(plan)
        if args.arena:
            from resolver_gen.render_arena import print_arena

            print_arena(_estimate(args, tree))
        return 0, None
    if args.format != "json" and _gate(plan, args):
        return 1, None
    arena = _estimate(args, tree) if args.arena else None
    if args.format == "json":
        text = render.render_json(plan, arena, tree)
    elif args.format == "lite":
        text = render.render_lite(plan, naming, overrides, template=render.load_template("lite.cc.j2"))
    else:
        text = render.render_header(plan, naming, template=render.load_template("header.h.j2"), arena=arena,
                                    tree=tree)
    return 0, text
