"""tflm_facts.registrations: which firmware registration serves a model op, and the method and parser with it."""

import pytest

from tflm_facts.registrations import method_for_registration, model_op, parser_name, registration_methods


@pytest.mark.parametrize("kind,name,firmware_op,provides", [
    ("builtin", "CONV_2D", "CONV_2D", True),
    ("builtin", "CONV_2D", "CONV_2D_INT8", True),
    ("builtin", "CONV_2D", "CONV_2D_INT16", True),
    ("builtin", "FULLY_CONNECTED", "FULLY_CONNECTED_INT4", True),
    ("builtin", "SOFTMAX", "SOFTMAX_INT8_INT16", True),
    ("builtin", "CONV_2D", "DEPTHWISE_CONV_2D", False),
    ("builtin", "ADD", "ADD_N", False),  # a different builtin, not a variant
    ("builtin", "RELU", "RELU6", False),
    ("builtin", "CONV_2D", "CONV_2D_FOO", False),
    ("custom", "SignalWindow", "WINDOW", True),
    ("custom", "SignalRfft", "RFFT_INT16", True),
    ("custom", "SignalFilterBankLog", "FILTER_BANK_LOG", True),
    ("custom", "TFLite_Detection_PostProcess", "DETECTION_POSTPROCESS", True),
    ("custom", "ethos-u", "ETHOSU", True),  # TFLM's AddEthosU() calls Register_ETHOSU()
    ("custom", "Sinh", "SINH", True),
    ("custom", "Sinh", "SIN", False),
])
def test_which_registration_provides_a_model_op(kind, name, firmware_op, provides):
    assert model_op(kind, name).is_registered_by(firmware_op) is provides


@pytest.mark.parametrize("registration,method,parser", [
    ("CONV_2D", "AddConv2D", "conv2d"),
    ("CONV_2D_INT8", "AddConv2D", "conv2d"),  # a type-reduced variant goes through the generic method
    ("MAX_POOL_2D", "AddMaxPool2D", "pool"),  # pooling ops share ParsePool
    ("SUM", "AddSum", "reducer"),
    ("WINDOW", "AddWindow", "window"),  # a TFLM custom op, named as model_op names it
    ("DETECTION_POSTPROCESS", "AddDetectionPostprocess", "detectionpostprocess"),
    ("CONV_2D_FOO", None, None),
    ("SINH", None, None),  # a user custom op has no method of its own
])
def test_registration_to_method_and_parser(registration, method, parser):
    found = method_for_registration(registration, registration_methods())
    assert found == method
    assert parser_name(found) == parser
