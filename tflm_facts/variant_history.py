"""When TFLM's headers began to declare each type-reduced registration, and which type its resolver methods take, so
that a firmware's DWARF can tell which registrations its TFLM has (size-report's suggestions, sizetool/operators/
tflm_offer.py).

Read from tflite-micro's history (`git log --reverse -S "Register_X(" -- <header>` for each of
type_rules.KERNEL_VARIANTS, each checked present in its header at 101d2bb93 and at 90b983c, August 2026):
- MicroMutableOpResolver's Add<Op>() methods take `const TFLMRegistration& registration` since 101d2bb93
  (2023-05-26, "TFLM swapping TfLiteRegistration_V1 struct to ... TFLMRegistration"); before it they took
  TfLiteRegistration, and the 2021 trees' methods took nothing (Edge Impulse's fork);
- the variants declared before that commit are declared in every revision whose resolver takes TFLMRegistration.
A firmware whose DWARF shows a method taking TFLMRegistration therefore has every variant of
DECLARED_BY_TFLM_REGISTRATION_ERA; later ones (INT4 kernels, PAD_INT8, TRANSPOSE_INT8, ...) it may lack.
"""

from __future__ import annotations

REGISTRATION_TYPE = "TFLMRegistration"
REGISTRATION_TYPE_SINCE = "tflite-micro 101d2bb93 (2023-05-26)"

# variant -> the upstream commit and date its header first declares it
VARIANT_SINCE: dict[str, tuple[str, str]] = {
    "ADD_INT8": ("48bfdf682", "2022-08-13"), "ADD_INT16": ("48bfdf682", "2022-08-13"),
    "AVERAGE_POOL_2D_INT8": ("4fe601b1f", "2022-08-13"), "AVERAGE_POOL_2D_INT16": ("4b0314f25", "2023-01-17"),
    "BATCH_MATMUL_INT8": ("89f99a9e7", "2024-09-09"), "BATCH_MATMUL_INT16": ("89f99a9e7", "2024-09-09"),
    "CONV_2D_INT4": ("5beca7c52", "2023-11-14"), "CONV_2D_INT8": ("1a0c74232", "2022-03-29"),
    "CONV_2D_INT16": ("1a0c74232", "2022-03-29"), "CONV_2D_INT8REF": ("36c507eb5", "2021-06-16"),
    "DEPTHWISE_CONV_2D_INT4": ("5beca7c52", "2023-11-14"), "DEPTHWISE_CONV_2D_INT8": ("7ad322134", "2022-05-11"),
    "DEPTHWISE_CONV_2D_INT16": ("7ad322134", "2022-05-11"), "FULLY_CONNECTED_INT4": ("5beca7c52", "2023-11-14"),
    "FULLY_CONNECTED_INT8": ("a37043ff7", "2021-04-09"), "FULLY_CONNECTED_INT16": ("b0afe2890", "2022-05-11"),
    "MAXIMUM_INT8": ("740cef388", "2025-02-05"), "MAX_POOL_2D_INT8": ("4fe601b1f", "2022-08-13"),
    "MAX_POOL_2D_INT16": ("4b0314f25", "2023-01-17"), "MINIMUM_INT8": ("740cef388", "2025-02-05"),
    "MUL_INT8": ("3c983db76", "2022-08-13"), "PAD_INT8": ("392b78f2f", "2025-03-20"),
    "SOFTMAX_INT8": ("a3e7bdad0", "2022-05-13"), "SOFTMAX_INT8_INT16": ("ac4d61df5", "2021-05-19"),
    "SOFTMAX_INT16": ("a3e7bdad0", "2022-05-13"), "SVDF_INT8": ("f9e68f115", "2021-08-27"),
    "TRANSPOSE_CONV_INT8": ("c845961df", "2023-11-07"), "TRANSPOSE_INT8": ("392b78f2f", "2025-03-20"),
    "UNIDIRECTIONAL_SEQUENCE_LSTM_INT8": ("c373ad48b", "2023-03-02"),
    "UNIDIRECTIONAL_SEQUENCE_LSTM_INT16": ("9741578df", "2024-04-23"),
    "RFFT_INT16": ("f22888af6", "2023-06-21"), "RFFT_INT32": ("f22888af6", "2023-06-21"),
    "RFFT_FLOAT": ("f22888af6", "2023-06-21"), "IRFFT_INT16": ("55037d2d5", "2023-07-20"),
    "IRFFT_INT32": ("55037d2d5", "2023-07-20"), "IRFFT_FLOAT": ("55037d2d5", "2023-07-20"),
}

DECLARED_BY_TFLM_REGISTRATION_ERA: frozenset[str] = frozenset(
    name for name, (_commit, date) in VARIANT_SINCE.items() if date < "2023-05-26")
