"""`--format json`: one memory in Zephyr size_report's rom.json/ram.json shape, or both as the saved-report form.

One memory: {"symbols": ROOT, "total_size": N, ...additive fields}, where every node has name, identifier and size,
inner nodes have children, and symbol leaves have address and section (plus mangled and aliases when useful).
total_size is physical (bytes in flash, or bytes of RAM); "berkeley" keeps `size`'s text/data/bss beside it, and
"regions" the memory regions of that memory, "embedded_models" (ROM) the TFLite models linked in (symbol, address, size,
sha256, operators, what stripping names and metadata saves), each with ld's "used" (its Used Size). With RAM, "ram_use" splits each
RAM region into static data, reserved (heap, stack) and free bytes (sizetool/report/ram_use.py).
"""

from __future__ import annotations

import os

from sizetool import __version__
from sizetool.report.ram_use import ram_use
from sizetool.report.report_model import (
    SizeReport, berkeley_to_dict, dump_report_json, map_source_to_dict, memory_to_dict, records_to_list, regions_to_list,
    report_to_dict,
)


def render_json(report: SizeReport, memories: list[str]) -> str:
    if len(memories) == 1:
        data = memory_to_dict(report, memories[0])
        data.update(
            {
                "memory": memories[0],
                "source": os.path.basename(report.source),
                "arch": report.arch,
                "tool": f"size-report {__version__}",
                "berkeley": berkeley_to_dict(report),
                "regions": [r for r in regions_to_list(report) if r["memory"] in ("", memories[0])],
                "warnings": list(report.warnings),
            }
        )
        if report.linker_map is not None:
            data["map"] = map_source_to_dict(report.linker_map)
        if report.input_format:
            data["input_format"] = report.input_format
        if memories[0] == "ram":
            data["ram_use"] = ram_use_to_list(report)
        elif report.models:
            data["embedded_models"] = records_to_list(report.models)
        return dump_report_json(data)
    data = report_to_dict(report)
    data["ram_use"] = ram_use_to_list(report)
    return dump_report_json(data)


def ram_use_to_list(report: SizeReport) -> list[dict]:
    return [{"region": u.region, "length": u.length, "used": u.used, "static": u.static, "reserved": u.reserved,
             "free": u.free} for u in ram_use(report)]
