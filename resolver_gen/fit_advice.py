"""`gen-resolver MODEL --fit PROFILE --flash LIMIT` over its limit (or with --advise): the changes that would make it
fit, before any firmware exists (sizetool/advice/profile_advice.py), added to the --fit answer in its format."""

from __future__ import annotations

import json

from sizetool.advice.changes import combination
from sizetool.advice.profile_advice import profile_advice
from sizetool.render.advice import advice_lines, advice_markdown, advice_to_dict
from tflm_model.target_fit import FitReport


def with_advice(report: FitReport, text: str, output_format: str) -> str:
    main = report.main
    changes = profile_advice(report)
    plans = []
    if main.over_flash:
        plans.append(combination(changes, "flash", main.flash - main.flash_limit))
    if main.over_ram:
        plans.append(combination(changes, "ram", main.ram - main.ram_limit))
    if output_format == "json":
        data = json.loads(text)
        data.update(advice_to_dict(changes, plans))
        return json.dumps(data, indent=2, sort_keys=True) + "\n"
    lines = advice_markdown(changes, plans) if output_format == "markdown" else [""] + advice_lines(changes, plans)
    return text.rstrip("\n") + "\n" + "\n".join(lines).rstrip("\n") + "\n"
