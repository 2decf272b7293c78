"""gen-resolver --fit's advice names the type-reduced registrations it cannot size: today's profiles link only the
generic kernels, so with CMSIS-NN (where the variants are smaller kernels) the change is listed without a number,
and with the reference kernels (where a variant is the generic kernel) it is not listed at all."""

from sizetool.advice.profile_advice import profile_advice
from tflm_model.target_fit import fit_report


def test_the_variants_a_profile_lacks_are_named_unsized_with_cmsis_nn(shared_models):
    changes = profile_advice(fit_report("cortex-m4f-cmsis_nn", [shared_models / "person_detect.tflite"]))
    reduced = [c for c in changes if c.kind == "type-reduced"]
    assert len(reduced) == 1 and reduced[0].bytes is None and reduced[0].certainty == "unsized"
    assert "CONV_2D_INT8" in reduced[0].change and "--reduce-types" in reduced[0].how


def test_with_the_reference_kernels_no_type_reduced_change_is_listed(shared_models):
    changes = profile_advice(fit_report("cortex-m4f-reference", [shared_models / "person_detect.tflite"]))
    assert not [c for c in changes if c.kind == "type-reduced"]
