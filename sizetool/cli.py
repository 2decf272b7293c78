"""The `size-report` entry point: picks the sub-command and turns errors into one line and an exit status.

    size-report ELF [options]            the flash/RAM report (sizetool/commands/report.py)
    size-report diff OLD NEW [options]   compare two builds (sizetool/commands/diff.py)
    size-report check ELF --budget FILE  budget and baseline gates (sizetool/commands/check.py)
    size-report history record|show|diff|plot|prune   the size history database (sizetool/commands/history.py)
    size-report profile ELF -o target.json   a target profile for gen-resolver --fit (sizetool/commands/profile.py)

Exit status: 0 success, 1 a gate or check failed, 2 usage or input error (one line on stderr, never a traceback).
"""

from __future__ import annotations

import importlib
import os
import sys

SUBCOMMANDS = {"diff": "sizetool.commands.diff", "check": "sizetool.commands.check",
               "history": "sizetool.commands.history", "profile": "sizetool.commands.profile"}
REPORT_COMMAND = "sizetool.commands.report"

EXIT_OK, EXIT_GATE_FAILED, EXIT_USAGE = 0, 1, 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        module_name, args, prog = SUBCOMMANDS[argv[0]], argv[1:], f"size-report {argv[0]}"
    else:
        module_name, args, prog = REPORT_COMMAND, argv, "size-report"
    from sizetool.errors import SizeToolError

    try:
        command = importlib.import_module(module_name)
        if hasattr(command, "main"):  # an argparse command (the report: no typer import on its fast path)
            status = command.main(args, prog)
        else:
            status = command.app(args=args, prog_name=prog, standalone_mode=False)
    except SizeToolError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_request:  # typer/click exits (help, usage errors) and explicit exits
        code = exit_request.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - the interface promises one line, never a traceback
        exit_code = getattr(error, "exit_code", None)
        if hasattr(error, "format_message") and isinstance(exit_code, int):  # typer/click usage errors
            print(f"{prog}: error: {error.format_message()} (see '{prog} --help')", file=sys.stderr)
            return EXIT_USAGE
        if type(error).__name__ == "Exit" and isinstance(exit_code, int):  # typer.Exit(code)
            return exit_code
        if type(error).__name__ == "Abort":
            return EXIT_USAGE
        if os.environ.get("SIZETOOL_DEBUG"):
            raise
        print(f"{prog}: internal error: {type(error).__name__}: {error} (set SIZETOOL_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_USAGE
    return status if isinstance(status, int) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
