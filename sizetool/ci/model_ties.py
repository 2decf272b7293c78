"""What ties a firmware to its model: the gate's answers to "is the model linked in the one we meant?" and "was the
committed resolver header made from it?".

- `--embedded-model MODEL`: MODEL (a .tflite or a C array; read through tflm_model.model_source.read_model_argument, the one place
  a model argument is read) must be byte for byte one of the models linked into the firmware. It fails naming both
  SHA-256 digests (with several models linked in, each one's), or when the firmware holds no model.
- `--header OPS.h`: the header must be what gen-resolver writes for the firmware's own models (its --check, comment
  lines aside, with `--header-args` giving the options the header was made with): a header made from another model,
  or from the model before it changed, fails.
Each answer is a RuleResult (kind "embedded_model" or "header"), so every output of `check` (text, JSON, markdown,
JUnit, annotations, summaries) carries it; its `reason` says why it failed in words rather than bytes.
"""

from __future__ import annotations

import os

from resolver_gen.errors import ResolverGenError
from resolver_gen.generation import check_header
from sizetool.ci.budget import Limit, Rule, RuleResult
from sizetool.errors import SizeToolError
from tflm_model.errors import ModelError


def embedded_model_results(arguments: list[str], linked) -> list[RuleResult]:
    """One result per model argument against the linked models (records with symbol and sha256)."""
    from tflm_model.model_source import read_model_argument

    results = []
    for argument in arguments:
        try:
            model = read_model_argument(argument)
        except ModelError as error:
            raise SizeToolError(str(error)) from None
        rule = Rule(f"embedded_model[{os.path.basename(argument)}]", "rom", "embedded_model", Limit("identical"))
        digest = model.sha256
        match = next((m for m in linked if m.sha256 == digest), None)
        if match is not None:
            results.append(RuleResult(rule, 0, 0, note=f"{match.symbol} is {os.path.basename(argument)} byte for byte "
                                                       f"(sha256 {digest})"))
            continue
        if not linked:
            reason = f"the firmware holds no TFLite model; {os.path.basename(argument)} has sha256 {digest}"
        else:
            held = "; ".join(f"{m.symbol} sha256 {m.sha256}" for m in linked)
            reason = f"the firmware's model differs from {os.path.basename(argument)}: firmware {held}; " \
                     f"{os.path.basename(argument)} sha256 {digest}"
        results.append(RuleResult(rule, 0, 0, note=reason, fails=True, reason=reason))
    return results


def header_result(header: str, sources: list, names: list[str], options: list[str]) -> RuleResult:
    """The committed header against what gen-resolver writes for the firmware's models (`sources`, held by the
    symbols `names`)."""
    if not os.path.isfile(header):  # a bad argument, whatever the firmware holds
        raise SizeToolError(f"{header}: {'is a directory, not a header' if os.path.isdir(header) else 'no such file'}")
    rule = Rule(f"header[{os.path.basename(header)}]", "rom", "header", Limit("matches"))
    if not sources:
        reason = f"the firmware holds no TFLite model to check {os.path.basename(header)} against"
        return RuleResult(rule, 0, 0, note=reason, fails=True, reason=reason)
    try:
        status = check_header(header, sources, options)
    except (ResolverGenError, ModelError) as error:
        raise SizeToolError(str(error)) from None
    names = ", ".join(names)
    if status == 0:
        return RuleResult(rule, 0, 0, note=f"{os.path.basename(header)} registers the ops of {names}")
    reason = (f"{os.path.basename(header)} is not what gen-resolver writes for the firmware's models ({names}): "
              "regenerate it (the diff is on stderr)")
    return RuleResult(rule, 0, 0, note=reason, fails=True, reason=reason)
