"""gen-resolver command line: models -> minimal MicroMutableOpResolver header (or JSON).

Exit status: 0 ok; 1 a check failed (unsupported op, model without operators, --check header stale);
2 usage or input error (one line on stderr). Heavy imports (jinja2) happen only when rendering.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from resolver_gen import __version__
from resolver_gen.errors import ResolverGenError

PROG = "gen-resolver"


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise ResolverGenError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog=PROG, description="Write a minimal TFLM MicroMutableOpResolver header for .tflite models.")
    parser.add_argument("models", nargs="+", metavar="MODEL", help=".tflite model file(s); several give one union resolver")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE atomically instead of stdout")
    parser.add_argument("--name", metavar="NAME", help="prefix for kNumOps, OpResolver and RegisterOps (NAME_kNumOps, ...)")
    parser.add_argument("--allow-unsupported", action="store_true", help="write the header even if TFLM cannot run some op")
    parser.add_argument("--check", metavar="HEADER", help="exit 1 if HEADER differs from what would be generated")
    parser.add_argument("--format", choices=("header", "json"), default="header")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def write_atomically(path: Path, text: str) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise ResolverGenError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise ResolverGenError(f"{path}: cannot write ({error.strerror or error})") from None
        raise


def run(args: argparse.Namespace) -> int:
    from resolver_gen.plan import build_plan
    from resolver_gen.render import name_prefix, render_header, render_json
    from resolver_gen.tflite_reader import read_model
    from resolver_gen.tflm_registry import builtin_name

    name_prefix(args.name)  # validate before reading models
    models = [read_model(path, builtin_name) for path in args.models]
    failed = False
    for model in models:
        if not model.ops:
            print(f"{PROG}: {model.path}: the model has no operators (a resolver of size 0 is never useful)", file=sys.stderr)
            failed = True
    if failed:
        return 1
    plan = build_plan(models)
    if plan.unsupported and not args.allow_unsupported and args.format == "header":
        for op in plan.unsupported:
            for model in sorted(op.versions_by_model):
                print(f"{PROG}: unsupported op {op.name} in {model}: {op.registration.unsupported_reason}", file=sys.stderr)
        print(f"{PROG}: use --allow-unsupported to write the header anyway", file=sys.stderr)
        return 1
    text = render_json(plan) if args.format == "json" else render_header(plan, args.name)

    if args.check:
        check_path = Path(args.check)
        try:
            existing = check_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ResolverGenError(f"{check_path}: no such file") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ResolverGenError(f"{check_path}: cannot read ({error})") from None
        if existing == text:
            return 0
        import difflib

        sys.stderr.writelines(difflib.unified_diff(
            existing.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{check_path} (committed)", tofile=f"{check_path} (expected)",
        ))
        print(f"{PROG}: {check_path} is stale: regenerate it", file=sys.stderr)
        return 1
    if args.output:
        write_atomically(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return run(_parser().parse_args(argv))
    except ResolverGenError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
