"""The advice appended to a command's answer (`size-report fit --flash/--ram/--advise`, `size-report check`): the
changes that would save flash or RAM, ranked, and which of them reach the budget (sizetool/advice/)."""

from __future__ import annotations

import json


def firmware_advice_text(firmware, crosscheck, fit, models, options, text: str):
    """(the answer with the advice added in its format, memory -> bytes over budget, the ranked changes)."""
    from sizetool.advice.changes import combination
    from sizetool.advice.firmware_advice import Budget, firmware_advice, firmware_facts, over_budget
    from sizetool.render.advice import advice_lines, advice_markdown, advice_to_dict

    report = firmware.report
    over = over_budget(Budget(options.flash_limit, options.ram_limit), report.rom_total, report.ram_total)
    changes = firmware_advice(firmware_facts(firmware, crosscheck, fit, models))
    plans = [combination(changes, memory, bytes_over) for memory, bytes_over in sorted(over.items())]
    output_format = options.output.output_format
    if output_format == "json":
        from sizetool.report.report_model import dump_json

        data = json.loads(text)
        data["budget"] = {"flash": options.flash_limit, "ram": options.ram_limit, "over": over}
        data.update(advice_to_dict(changes, plans))
        return dump_json(data), over, changes
    if over or options.advise:
        lines = advice_markdown(changes, plans) if output_format == "markdown" else [""] + advice_lines(changes,
                                                                                                      plans)
        text = text.rstrip("\n") + "\n" + "\n".join(lines).rstrip("\n") + "\n"
    return text, over, changes
