"""The `size-report` entry point: picks the sub-command and turns errors into one line and an exit status.

    size-report ELF [options]            the flash/RAM tree (sizetool/commands/report.py)
    size-report ops ELF [MODEL ...]      what each operator, set of operators and model costs (commands/ops.py)
    size-report fit ELF MODEL ...        does the firmware fit the models: flash and RAM (commands/fit.py)
    size-report stack ELF [ROOT ...]     worst-case stack depth and its path (commands/stack.py)
    size-report diff OLD NEW [options]   compare two builds (sizetool/commands/diff.py)
    size-report check ELF --budget FILE  budget and baseline gates (sizetool/commands/check.py)
    size-report history record|show|diff|plot|prune   the size history database (commands/history.py)
    size-report profile ELF -o target.json   a target profile for gen-resolver --fit (commands/profile.py)

The report's flags --ops, --model, --drop, --keep and --stack stay as aliases of the ops and stack modes.

Exit status: 0 success, 1 a gate or check failed, 2 usage or input error (one line on stderr, never a traceback).
"""

from __future__ import annotations

import importlib
import os
import sys

SUBCOMMANDS = {"ops": "sizetool.commands.ops", "fit": "sizetool.commands.fit", "stack": "sizetool.commands.stack",
               "diff": "sizetool.commands.diff", "check": "sizetool.commands.check",
               "history": "sizetool.commands.history", "profile": "sizetool.commands.profile",
               "strip-model": "sizetool.commands.strip_model"}
REPORT_COMMAND = "sizetool.commands.report"

EXIT_OK, EXIT_GATE_FAILED, EXIT_USAGE = 0, 1, 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        module_name, args, prog = SUBCOMMANDS[argv[0]], argv[1:], f"size-report {argv[0]}"
    else:
        module_name, args, prog = REPORT_COMMAND, argv, "size-report"
    output_key = None
    kept_statuses = (EXIT_OK,)
    if module_name == REPORT_COMMAND or (argv and argv[0] in ("ops", "fit")):
        from sizetool.report import output_cache

        if module_name == REPORT_COMMAND:
            output_key = output_cache.output_key(args)
        else:  # an answer that failed its gate is as much an answer
            output_key, kept_statuses = output_cache.answer_key(argv[0], args), (EXIT_OK, EXIT_GATE_FAILED)
        replayed = output_cache.replay(output_key) if output_key else None
        if replayed is not None:  # the same run on unchanged inputs: its printed output, nothing else loaded
            return replayed
    from sizetool.errors import SizeToolError

    try:
        command = importlib.import_module(module_name)
        if output_key:
            status = output_cache.run_recorded(output_key, lambda: command.main(args, prog), kept_statuses)
        else:
            status = command.main(args, prog)
    except SizeToolError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_request:  # argparse's --help exits 0
        code = exit_request.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - the interface promises one line, never a traceback
        if os.environ.get("SIZETOOL_DEBUG"):
            raise
        print(f"{prog}: internal error: {type(error).__name__}: {error} (set SIZETOOL_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_USAGE
    return status if isinstance(status, int) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
