"""`size-report strip-model MODEL -o OUT`: the model written again without what TFLM never reads (names, description,
signatures and metadata but the offline plan: --strip) and without the data of buffers no tensor uses
(--empty-unused-buffers), as a .tflite or as the C/C++ array the firmware links (tflm_model/model_writer.py). It is
the command the advice names for those savings; the line it prints says what the model saves."""

from __future__ import annotations

from sizetool.commands.arguments import OneLineParser
from sizetool.errors import SizeToolError

DESCRIPTION = ("Write a model again without the bytes TFLM never reads: names and metadata (--strip) and the data of "
               "buffers no tensor uses (--empty-unused-buffers), as a .tflite or, for an OUT ending in .cc, .c, .cpp "
               "or .h, as the C/C++ array the firmware links.")
EPILOG = "Exit status: 0 written, 2 usage or input error (nothing is written)."


def build_parser(prog: str = "size-report strip-model"):
    parser = OneLineParser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("model", metavar="MODEL",
                        help="A .tflite, a C/C++ file holding one model, or FILE:ARRAY.")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="The file to write (atomically): .tflite, or C/C++ source (.cc .c .cpp .h ...).")
    parser.add_argument("--strip", action="store_true",
                        help="Drop tensor and subgraph names, the description, signatures and metadata (the "
                             "OfflineMemoryAllocation plan is kept): TFLM never reads them.")
    parser.add_argument("--empty-unused-buffers", action="store_true",
                        help="Empty the data of buffers no tensor and no kept metadata uses (their entries stay, so "
                             "no index moves).")
    parser.add_argument("--name", metavar="ARRAY",
                        help="For C/C++ output: the array's name (default: the source array's, else g_model); "
                             "ARRAY_len holds its length.")
    return parser


def main(args: list[str], prog: str = "size-report strip-model") -> int:
    from sizetool.report.report_model import write_bytes_atomically
    from tflm_model.errors import ModelError
    from tflm_model.model_writer import rewritten_model

    options = build_parser(prog).parse_args(args)
    try:
        written = rewritten_model(options.model, options.output, options.strip, options.empty_unused_buffers,
                                  options.name)
    except ModelError as error:
        raise SizeToolError(str(error)) from None
    write_bytes_atomically(options.output, written.content)
    saved = written.size_before - written.size_after
    what = " and ".join(part for part, asked in (("names and metadata", options.strip),
                                                  ("unused buffers' data", options.empty_unused_buffers)) if asked)
    where = f" as the array {written.array}" if written.array else ""
    if saved > 0:
        verdict = (f"{saved:,} B less than {written.size_before:,} without {what} (regenerate or relink the firmware "
                   "to take the saving)")
    else:  # the writer's own packing outweighs what was dropped: say so rather than a negative saving
        verdict = (f"{-saved:,} B more than {written.size_before:,}: without {what} it is no smaller as this writer "
                   "packs it than the source is as its converter packed it; keep the source")
    print(f"wrote {options.output}{where}: the model is {written.size_after:,} B, {verdict}")
    return 0
