"""`gen-resolver MODEL ... --fit PROFILE --calibrate firmware.elf`: the flash answer calibrated on the user's own
firmware, from gen-resolver's side. The same computation and lines as `size-report fit firmware.elf MODEL ...
--profile PROFILE` (sizetool/profile/model_swap.py): the firmware running the models in place of the ones it embeds,
with the resolver gen-resolver writes for them: the registrations no model uses out, the operators it lacks from the
profile (scaled on the firmware when it was built otherwise), the embedded models' arrays out and theirs in."""

from __future__ import annotations

import json
import os

from resolver_gen.errors import ResolverGenError
from resolver_gen.render_fit import describe_build
from sizetool.errors import SizeToolError
from sizetool.render.model_swap import swap_lines, swap_to_dict
from sizetool.text_escaping import markdown_text
from tflm_facts.target_profile import load_profile


def calibrated_answer(profile_name: str, elf: str, model_paths: list[str], flash_limit: int | None = None):
    """(text lines, JSON dict, exit status) of the calibrated answer."""
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.operators.graph_cache import load_operator_graph
    from sizetool.inputs.firmware_models import embedded_models
    from sizetool.profile.model_swap import plan_swap, swap_models
    from sizetool.report.report_builder import build_report_keeping_image

    profile = load_profile(profile_name)
    try:
        report, image = build_report_keeping_image(elf)
        image = image if image is not None else read_elf(elf)
        graph = load_operator_graph(elf, None, image=image)
        plan = plan_swap(embedded_models(image) if report.models else [], elf, list(model_paths))
        answer = swap_models(image, graph, report.rom_total, plan, profile_name, strict=True)
    except SizeToolError as error:
        raise ResolverGenError(str(error)) from None
    over = flash_limit is not None and answer.flash > flash_limit
    head = (f"Calibrated fit of {len(model_paths)} model(s) on {os.path.basename(elf)} with profile {profile.name} "
            f"({describe_build(profile.build)})")
    lines = [head, *swap_lines(answer)]
    if flash_limit is not None:
        lines.append(f"flash limit {flash_limit:,}: " + (f"OVER by {answer.flash - flash_limit:,}" if over else
                                                          f"fits ({flash_limit - answer.flash:,} to spare)"))
    data = {"firmware": os.path.basename(elf), "profile": profile.name, "models": list(model_paths),
            "flash_limit": flash_limit, "over": over, **swap_to_dict(answer)}
    # (an op no kernel is counted for fails it, but not a custom op TFLM does not ship: the application links that)
    lacking = set(answer.ops.unprovided) - set(answer.ops.application_kernels)
    return lines, data, 1 if over or lacking else 0


def render_calibrated(profile_name: str, elf: str, model_paths: list[str], output_format: str,
                      flash_limit: int | None = None) -> tuple[str, int]:
    lines, data, status = calibrated_answer(profile_name, elf, model_paths, flash_limit)
    if output_format == "json":
        return json.dumps(data, indent=2, sort_keys=True) + "\n", status
    if output_format == "markdown":
        return "\n".join([f"### {markdown_text(lines[0])}", "", "```", *lines[1:], "```"]) + "\n", status
    return "\n".join(lines) + "\n", status
