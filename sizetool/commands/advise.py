"""The advice appended to a command's answer (`size-report fit --flash/--ram/--advise`, `size-report check`): the
changes that would save flash or RAM, ranked, and which of them reach the budget (sizetool/advice/)."""

from __future__ import annotations

import json


def firmware_advice_text(firmware, crosscheck, fit, models, options, text: str, over: dict[str, int]):
    """(the answer with the advice added in its format, the ranked changes); `over`: memory -> bytes over budget."""
    from sizetool.advice.changes import combination
    from sizetool.advice.firmware_advice import firmware_advice, firmware_facts
    from sizetool.render.advice import advice_lines, advice_markdown, advice_to_dict

    changes = firmware_advice(firmware_facts(firmware, crosscheck, fit, models))
    plans = [combination(changes, memory, bytes_over) for memory, bytes_over in sorted(over.items())]
    output_format = options.output.output_format
    if output_format == "json":
        from sizetool.report.report_model import dump_json

        data = json.loads(text)
        data["budget"] = {"flash": options.budget.flash_limit, "ram": options.budget.ram_limit, "over": over}
        data.update(advice_to_dict(changes, plans))
        return dump_json(data), changes
    if over or options.budget.advise:
        lines = advice_markdown(changes, plans) if output_format == "markdown" else [""] + advice_lines(changes,
                                                                                                      plans)
        text = text.rstrip("\n") + "\n" + "\n".join(lines).rstrip("\n") + "\n"
    return text, changes


def over_from_results(results) -> dict[str, int]:
    """memory ("flash"/"ram") -> bytes over, from the failed total and region rules of `size-report check`."""
    over: dict[str, int] = {}
    for result in results:
        if result.passed or result.rule.kind not in ("total", "region") or result.fails:
            continue
        memory = "flash" if result.rule.memory == "rom" else "ram"
        over[memory] = max(over.get(memory, 0), result.actual - result.limit)
    return {memory: bytes_over for memory, bytes_over in over.items() if bytes_over > 0}


def check_advice(options, report, results) -> tuple[str, list]:
    """`size-report check` on an ELF whose total or region rule failed: the advice for the models linked in (text,
    in the check's format), and the ranked changes ([] when nothing is over or the build is a saved report)."""
    from sizetool.advice.changes import combination
    from sizetool.advice.firmware_advice import firmware_advice, firmware_facts
    from sizetool.commands.firmware import Firmware, FirmwareOptions
    from sizetool.render.advice import advice_lines, advice_markdown, advice_to_dict

    over = over_from_results(results)
    if not over:
        return "", []
    firmware = Firmware(FirmwareOptions(options.build, options.map_file, options.flash_size, options.ram_size),
                        report)
    crosscheck = fit = None
    models = firmware.embedded_model_sources()
    if models and firmware.operator_graph().operators:
        from sizetool.commands.ops import ArenaOptions, arena_fit, crosscheck_models

        crosscheck = crosscheck_models(firmware, models)
        fit = arena_fit(firmware, models, ArenaOptions(options.kernels, None))
    changes = firmware_advice(firmware_facts(firmware, crosscheck, fit, models))
    plans = [combination(changes, memory, bytes_over) for memory, bytes_over in sorted(over.items())]
    output_format = options.outputs.output_format
    if output_format == "json":
        return json.dumps(advice_to_dict(changes, plans), indent=2, sort_keys=True), changes
    lines = advice_markdown(changes, plans) if output_format == "markdown" else [""] + advice_lines(changes, plans)
    return "\n".join(lines).rstrip("\n") + "\n", changes
