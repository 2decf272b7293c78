"""The memory-region table Zephyr builds print: Memory region / Used Size / Region Size / %age Used."""

from __future__ import annotations

from sizetool.report.report_model import SizeReport


def regions_table(report: SizeReport) -> str:
    rows = [f"{'Memory region':<16}{'Used Size':>12}{'Region Size':>14}{'%age Used':>12}"]
    for region in report.regions:
        rows.append(f"{region.name + ':':<16}{region.used:>10} B{region.length:>12} B{region.percent_used:>11.2f}%")
    return "\n".join(rows) + "\n"
