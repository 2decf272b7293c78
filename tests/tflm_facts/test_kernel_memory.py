"""Kernel memory facts against TFLM itself: sizeof/alignof probes compiled against a checkout (beside the repo or
named by $TFLM_DIR) with the host g++ (lp64), arm-linux-gnueabihf-g++ (ilp32) and arm-none-eabi-g++ (eabi),
and each kernel's Init() allocating the struct the table names. Skips when the checkout or the compilers are absent."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tflm_facts.kernel_memory import (
    ABIS, CMSIS_NN_2021, CMSIS_NN_OP_DATA, ESP_NN_OP_DATA, GREEDY_PLANNER_BYTES_PER_BUFFER, PARAM_STRUCTS, PREPARE_OP_DATA, REFERENCE_OP_DATA, STRUCTS,
    OpView, TensorView, abi_for, op_data, prepare_allocations, temp_tensors,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
TFLM_DIR = Path(os.environ.get("TFLM_DIR", REPO_ROOT.parent / "ext" / "tflm"))
KERNELS = "tensorflow/lite/micro/kernels/"
# Names of the core structs as seen from namespace tflite, and the sources that define them.
CORE_EXPRESSIONS = {"ScratchBufferRequest": "internal::ScratchBufferRequest", "void*": "void*"}
CORE_SOURCES = ["tensorflow/lite/micro/micro_allocator.cc", "tensorflow/lite/micro/micro_allocation_info.h"]


@pytest.fixture(scope="module")
def tflm() -> Path:
    downloads = TFLM_DIR / "tensorflow" / "lite" / "micro" / "tools" / "make" / "downloads"
    if not (downloads / "flatbuffers" / "include").is_dir():
        pytest.skip(f"{TFLM_DIR} is not a tflite-micro checkout with its downloads (set TFLM_DIR)")
    return TFLM_DIR


# ABI -> (compiler, extra flags): 32-bit Linux (int enums), Arm bare metal (short enums), the 64-bit host.
ABI_COMPILERS = {
    "ilp32": ("arm-linux-gnueabihf-g++", []),
    "eabi": ("arm-none-eabi-g++", ["-mcpu=cortex-m4+nofp", "-mthumb", "-mfloat-abi=soft"]),
    "lp64": ("g++", []),
}


def _compilers() -> list[tuple[str, str]]:
    return [(abi, compiler) for abi, (compiler, _flags) in ABI_COMPILERS.items()
            if shutil.which(compiler) and shutil.which(compiler[:-3] + "nm")]


def _probe(tflm: Path, abi: str, includes: list[str], items: dict[str, str], tmp_path: Path) -> dict:
    """{label: (sizeof, alignof)} of each C++ expression, from the sizes nm reports for char arrays."""
    downloads = tflm / "tensorflow/lite/micro/tools/make/downloads"
    source = "".join(f'#include "{include}"\n' for include in includes)
    source += "namespace tflite {\n"
    for label, expression in items.items():
        source += (f'extern "C" {{ char sz_{label}[sizeof({expression})]; '
                   f"char al_{label}[alignof({expression})]; }}\n")
    source += "}\n"
    compiler, extra = ABI_COMPILERS[abi]
    path = tmp_path / f"probe_{abs(hash((compiler, tuple(includes), tuple(items))))}.cc"
    path.write_text(source)
    flags = ["-std=c++17", "-fno-exceptions", "-fno-rtti", "-c", "-w", "-DTF_LITE_STATIC_MEMORY", "-DCMSIS_NN",
             f"-I{tflm}", f"-I{downloads}/flatbuffers/include", f"-I{downloads}/gemmlowp", f"-I{downloads}/ruy",
             f"-I{downloads}/cmsis_nn", f"-I{downloads}/cmsis_nn/Include", f"-I{downloads}/kissfft"]
    result = subprocess.run([compiler, *flags, *extra, str(path), "-o", str(path.with_suffix(".o"))], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    symbols = subprocess.run([compiler[:-3] + "nm", "-S", str(path.with_suffix(".o"))], capture_output=True,
                             text=True).stdout
    sizes: dict[str, dict[str, int]] = {}
    for line in symbols.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[3][:3] in ("sz_", "al_"):
            sizes.setdefault(fields[3][3:], {})[fields[3][:2]] = int(fields[1], 16)
    return {label: (value["sz"], value["al"]) for label, value in sizes.items()}


@pytest.mark.parametrize("abi, compiler", _compilers() or [pytest.param(0, "", marks=pytest.mark.skip(
    reason="no g++ / arm-linux-gnueabihf-g++ with nm to compile sizeof probes"))])
def test_runtime_structs_match_the_checkout(tflm, tmp_path, abi, compiler):
    labels = {re.sub(r"\W", "_", name): CORE_EXPRESSIONS.get(name, name) for name in STRUCTS}
    measured = _probe(tflm, abi, CORE_SOURCES, labels, tmp_path)
    for name in STRUCTS:
        assert measured[re.sub(r"\W", "_", name)] == STRUCTS[name][abi], name


@pytest.mark.parametrize("abi, compiler", _compilers() or [pytest.param(0, "", marks=pytest.mark.skip(
    reason="no g++ / arm-linux-gnueabihf-g++ with nm to compile sizeof probes"))])
def test_builtin_params_match_the_checkout(tflm, tmp_path, abi, compiler):
    measured = _probe(tflm, abi, ["tensorflow/lite/core/c/builtin_op_data.h"],
                      {name: f"::{name}" for name in PARAM_STRUCTS}, tmp_path)
    for name, sizes in PARAM_STRUCTS.items():
        assert measured[name] == sizes[abi], name


@pytest.mark.parametrize("abi, compiler", _compilers() or [pytest.param(0, "", marks=pytest.mark.skip(
    reason="no g++ / arm-linux-gnueabihf-g++ with nm to compile sizeof probes"))])
def test_op_data_sizes_match_the_checkout(tflm, tmp_path, abi, compiler):
    # One compile per kernel source and ABI: about 2.5 minutes an ABI on this project's 2-core machine, so the suite
    # runs it only when asked for a checkout by name (TFLM_DIR=... python -m pytest tests/tflm_facts).
    if "TFLM_DIR" not in os.environ:
        pytest.skip("the per-kernel OpData probes compile ~80 sources per ABI: set TFLM_DIR to run them")
    for table in (REFERENCE_OP_DATA, CMSIS_NN_OP_DATA):
        for op, data in table.items():
            if data is None:
                continue
            include = KERNELS + data.source
            if data.struct == "StridedSliceParams":
                include = "tensorflow/lite/kernels/internal/types.h"
            measured = _probe(tflm, abi, [include], {"x": data.struct}, tmp_path)
            assert measured["x"][0] == data.bytes[abi], (op, data.source)


def _kernel_source(tflm: Path, op_data) -> str:
    name = op_data.source
    candidates = [name] if name.endswith(".cc") else []
    stem = name[:-2]
    candidates += [f"{stem}.cc", f"{stem}_common.cc"]
    return "".join((tflm / KERNELS / c).read_text() for c in candidates if (tflm / KERNELS / c).is_file())


def test_each_init_allocates_the_struct_the_table_names(tflm):
    for table in (REFERENCE_OP_DATA, CMSIS_NN_OP_DATA):
        for op, data in table.items():
            if data is None:
                continue
            text = _kernel_source(tflm, data)
            if not text:
                continue  # the struct lives in a header shared by several kernels (conv.h, lstm_shared.h ...)
            assert re.search(rf"AllocatePersistentBuffer\(\s*(context,\s*)?sizeof\((tflite::)?{data.struct}\)",
                             text), (op, data.source)


def test_kernels_without_op_data_do_not_allocate_in_init(tflm):
    for op, data in REFERENCE_OP_DATA.items():
        if data is None:
            source = tflm / KERNELS / f"{op.lower()}.cc"
            if source.is_file():
                assert "RegisterOp(nullptr" in source.read_text() or "RegisterOp(\n      nullptr" in \
                    source.read_text(), op


def test_greedy_planner_working_memory_per_buffer(tflm):
    header = (tflm / "tensorflow/lite/micro/memory_planner/greedy_memory_planner.h").read_text()
    assert "sizeof(BufferRequirements)" in header and "sizeof(ListEntry)" in header
    # BufferRequirements: 4 ints, ListEntry: 3 ints, plus sorted size, sorted id and offset: 10 ints
    assert GREEDY_PLANNER_BYTES_PER_BUFFER == 10 * 4


def test_conv_per_channel_arrays_follow_the_filter_channels():
    view = OpView("CONV_2D", (TensorView(9, (1, 8, 8, 3)), TensorView(9, (6, 3, 3, 3), 6), TensorView(2, (6,), 6)),
                  (TensorView(9, (1, 6, 6, 6)),), (("padding", 1), ("stride_w", 1), ("stride_h", 1)))
    assert prepare_allocations(view, "reference").persistent == (24, 24)
    cmsis = prepare_allocations(view, "cmsis_nn")
    assert cmsis.persistent == (24, 24)
    # arm_convolve_s8 (DSP): 2 x (3*3*3 rounded up to 4) int16
    assert cmsis.scratch == (2 * 28 * 2,)


def test_cmsis_1x1_conv_needs_no_scratch_with_gcc():
    view = OpView("CONV_2D", (TensorView(9, (1, 8, 8, 16)), TensorView(9, (4, 1, 1, 16), 4)),
                  (TensorView(9, (1, 8, 8, 4)),), (("padding", 1), ("stride_w", 1), ("stride_h", 1)))
    assert prepare_allocations(view, "cmsis_nn").scratch == ()


def test_signal_rfft_state_follows_kissfft():
    # fft_length 512 on int16 (TFLM's audio preprocessor): params 32 B, kiss_fftr state 2836 B (measured on TFLM),
    # and a scratch buffer of fft_length int16
    view = OpView("SignalRfft", (TensorView(7, (480,)),), (TensorView(7, (514,)),))
    effects = prepare_allocations(view, "reference")
    assert effects.init == (32, 2836) and effects.scratch == (1024,) and effects.exact
    bank = OpView("SignalFilterBank", (TensorView(15, (257,)),), (TensorView(12, (40,)),))
    assert prepare_allocations(bank, "reference").init == (36, 8 * 41)


# CMSIS-NN on a core with MVE (Helium, ARM_MATH_MVEI): each rule against the formula of the CMSIS-NN function named,
# computed by hand for the shapes given (CMSIS-NN 4ab83cc, GCC).
_I8, _I16, _I32, _I64 = 9, 7, 2, 4
_SAME, _VALID = (("padding", 0),), (("padding", 1),)


def _conv(in_shape, filter_shape, out_shape, options, in_type=_I8, bias_type=_I32, op="CONV_2D"):
    bias = TensorView(bias_type, (filter_shape[0] if op == "CONV_2D" else filter_shape[3],), 1, True)
    return OpView(op, (TensorView(in_type, in_shape), TensorView(_I8, filter_shape, 1, True), bias),
                  (TensorView(in_type, out_shape),), options)


def test_mve_conv_s8_im2col_is_four_columns_of_whole_q_registers():
    view = _conv((1, 8, 8, 3), (6, 3, 3, 3), (1, 6, 6, 6), _VALID + (("stride_w", 1), ("stride_h", 1)))
    # arm_convolve_s8_get_buffer_size_mve: col 3*3*3 = 27 -> 2 lanes of 16 -> 4 * 2 * 16
    assert prepare_allocations(view, "cmsis_nn", cpu_features="mve").scratch == (128,)
    assert prepare_allocations(view, "cmsis_nn", cpu_features="dsp").scratch == (2 * 28 * 2,)


def test_mve_conv_1x1_takes_no_scratch():
    view = _conv((1, 8, 8, 16), (4, 1, 1, 16), (1, 8, 8, 4), _VALID + (("stride_w", 2), ("stride_h", 2)))
    # arm_convolve_wrapper_s8_get_buffer_size_mve: 1x1 (fast or not) -> 0
    assert prepare_allocations(view, "cmsis_nn", cpu_features="mve").scratch == ()


def test_mve_conv_1_x_n_has_its_own_rule():
    same = _conv((1, 1, 10, 4), (8, 1, 3, 4), (1, 1, 10, 8), _SAME + (("stride_w", 1), ("stride_h", 1)))
    # arm_convolve_1_x_n_s8_get_buffer_size_mve: pad_x 1, total_pad 2, asym 0, right/left pad 1, no-pad 8 (sums to
    # output_x 10); MAX(3*4 + 1*4, 2*4 + 1*4) = 16
    assert prepare_allocations(same, "cmsis_nn", cpu_features="mve").scratch == (16,)
    valid = _conv((1, 1, 10, 4), (8, 1, 3, 4), (1, 1, 4, 8), _VALID + (("stride_w", 2), ("stride_h", 1)))
    # total_pad 3*2 + 3 - 10 = -1, C's -1 % 2 = -1: right pad 1 (of 4 * 1 channel elements), left 0;
    # MAX(3*4 + 0, 2*4 + 4) = 12
    assert prepare_allocations(valid, "cmsis_nn", cpu_features="mve").scratch == (12,)
    odd = _conv((1, 1, 10, 3), (8, 1, 3, 3), (1, 1, 8, 8), _VALID + (("stride_w", 1), ("stride_h", 1)))
    # stride.w * c = 3 is not a multiple of 4: not 1xN, arm_convolve_s8_get_buffer_size_mve: 9 -> 4 * 1 * 16
    assert prepare_allocations(odd, "cmsis_nn", cpu_features="mve").scratch == (64,)


def test_mve_conv_s16_im2col_is_four_columns_of_whole_q_registers():
    view = _conv((1, 8, 8, 3), (6, 3, 3, 3), (1, 6, 6, 6), _VALID, in_type=_I16, bias_type=_I64)
    # arm_convolve_s16_get_buffer_size_mve: 27 -> 4 lanes of 8 int16 -> 4 * 4 * 8 * 2
    assert prepare_allocations(view, "cmsis_nn", cpu_features="mve").scratch == (256,)
    # arm_convolve_s16_get_buffer_size (DSP): 2 * 27 * 2
    assert prepare_allocations(view, "cmsis_nn", cpu_features="dsp").scratch == (108,)


def test_mve_depthwise_opt_has_no_3x3_exception():
    view = _conv((1, 8, 8, 16), (1, 3, 3, 16), (1, 8, 8, 16), _SAME + (("stride_w", 1), ("stride_h", 1)),
                 op="DEPTHWISE_CONV_2D")
    # arm_depthwise_conv_s8_opt_get_buffer_size_mve: 4 * CH_IN_BLOCK_MVE (124) * 3 * 3
    mve = prepare_allocations(view, "cmsis_nn", cpu_features="mve")
    assert mve.scratch == (4464,) and mve.exact
    # arm_depthwise_conv_wrapper_s8_get_buffer_size (DSP): 3x3 with padding <= 1 runs arm_depthwise_conv_3x3_s8
    assert prepare_allocations(view, "cmsis_nn", cpu_features="dsp").scratch == ()


def test_mve_depthwise_with_one_input_channel_runs_as_a_conv():
    view = _conv((1, 8, 8, 1), (1, 3, 3, 8), (1, 6, 6, 8), _VALID + (("stride_w", 1), ("stride_h", 1)),
                 op="DEPTHWISE_CONV_2D")
    # arm_deptwise_conv_s8_one_in_ch_get_buffer_size_mve: conv wrapper (im2col of 1*3*3 -> 4 * 1 * 16 = 64) plus the
    # filter re-ordered, 8*3*3 = 72
    effects = prepare_allocations(view, "cmsis_nn", cpu_features="mve")
    assert effects.scratch == (136,) and effects.exact


def test_mve_depthwise_one_input_channel_1_x_n_is_a_flagged_bound():
    view = _conv((1, 1, 10, 1), (1, 1, 3, 8), (1, 1, 8, 8), _VALID + (("stride_w", 1), ("stride_h", 1)),
                 op="DEPTHWISE_CONV_2D")
    # 1xN depends on the stride TFLM leaves unset: MAX(im2col 64, 3 + 0, 2 + 8) = 64, plus 8*1*3 = 24
    effects = prepare_allocations(view, "cmsis_nn", cpu_features="mve")
    assert effects.scratch == (88,)
    assert not effects.exact and "DEPTHWISE_CONV_2D" in effects.note


def test_mve_transpose_conv_reverse_conv_im2col():
    view = OpView("TRANSPOSE_CONV", (TensorView(_I32, (4,), 0, True), TensorView(_I8, (8, 3, 3, 20), 8, True),
                                     TensorView(_I8, (1, 4, 4, 20))),
                  (TensorView(_I8, (1, 8, 8, 8)),), _SAME + (("stride_w", 2), ("stride_h", 2)))
    # arm_transpose_conv_s8_get_buffer_size_mve: reverse conv (stride <= 2, 20 > 16 channels), im2col of 3*3*20 =
    # 180 -> 12 lanes -> 4 * 12 * 16 = 768; arm_transpose_conv_s8_get_reverse_conv_buffer_size: 20*3*3*8 = 1440
    assert prepare_allocations(view, "cmsis_nn", cpu_features="mve").scratch == (768, 1440)
    assert prepare_allocations(view, "cmsis_nn", cpu_features="dsp").scratch == (2 * 180 * 2, 1440)


def test_mve_average_pool_takes_no_scratch():
    view = OpView("AVERAGE_POOL_2D", (TensorView(_I8, (1, 8, 8, 16)),), (TensorView(_I8, (1, 4, 4, 16)),))
    # arm_avgpool_s8_get_buffer_size_mve: 0; _dsp: one int32 per channel
    assert prepare_allocations(view, "cmsis_nn", cpu_features="mve").scratch == ()
    assert prepare_allocations(view, "cmsis_nn", cpu_features="dsp").scratch == (64,)


def test_mve_fully_connected_keeps_kernel_sums():
    def view(constant_filter):
        return OpView("FULLY_CONNECTED", (TensorView(_I8, (1, 10)), TensorView(_I8, (5, 10), 1, constant_filter),
                                          TensorView(_I32, (5,), 1, True)), (TensorView(_I8, (1, 5)),))
    # arm_fully_connected_s8_get_buffer_size_mve: filter_dims.c (5 outputs) int32; KERNELS_OPTIMIZED_FOR_SPEED keeps
    # them persistent when filter and bias are constant, else a scratch buffer
    assert prepare_allocations(view(True), "cmsis_nn", cpu_features="mve").persistent == (20,)
    assert prepare_allocations(view(False), "cmsis_nn", cpu_features="mve").scratch == (20,)
    dsp = prepare_allocations(view(True), "cmsis_nn", cpu_features="dsp")
    assert dsp.persistent == () and dsp.scratch == ()


def test_mve_svdf_keeps_kernel_sums():
    view = OpView("SVDF", (TensorView(_I8, (1, 8)), TensorView(_I8, (16, 8), 1, True), TensorView(_I16, (16, 10)),
                           TensorView(_I32, (8,)), TensorView(_I8, (1, 160))),
                  (TensorView(_I8, (1, 8)),), (("rank", 2),))
    # arm_svdf_s8_get_buffer_size_mve: weights_feature n (16) int32, persistent (KERNELS_OPTIMIZED_FOR_SPEED)
    mve = prepare_allocations(view, "cmsis_nn", cpu_features="mve")
    assert mve.persistent == (64,) and mve.scratch == (64, 32)
    assert prepare_allocations(view, "cmsis_nn", cpu_features="dsp").persistent == ()


def test_mve_batch_matmul_int8_asks_the_fully_connected_buffer():
    view = OpView("BATCH_MATMUL", (TensorView(_I8, (2, 3, 4)), TensorView(_I8, (2, 4, 5))),
                  (TensorView(_I8, (2, 3, 5)),), (("adj_y", 1),))
    # arm_fully_connected_s8_get_buffer_size_mve(&output_shape): FillVariableShape(3) puts 5 in .c -> 5 int32
    assert prepare_allocations(view, "cmsis_nn", cpu_features="mve").scratch == (20,)
    assert prepare_allocations(view, "cmsis_nn", cpu_features="dsp").scratch == ()


# esp-tflite-micro's esp_nn kernels (v1.3.8, esp-nn 1.2.3's generic C: what an ESP32-C3 builds)
def _softmax(shape, in_type=_I8, out_type=_I8):
    return OpView("SOFTMAX", (TensorView(in_type, shape),), (TensorView(out_type, shape),), (("beta", 1),))


def test_esp_nn_softmax_int8_scratch_is_four_bytes_per_input_dims_1():
    # esp_nn_get_softmax_scratch_size_opt(width = dims[1], height): width * 4
    assert prepare_allocations(_softmax((1, 300)), "esp_nn").scratch == (1200,)
    assert prepare_allocations(_softmax((1, 40, 30)), "esp_nn").scratch == (160,)  # not the row of 30
    assert prepare_allocations(_softmax((1, 300)), "reference").scratch == ()
    # int16 and int8 -> int16 take the reference kernel's path: its lookup tables, no esp-nn buffer
    int16 = prepare_allocations(_softmax((1, 300), _I16, _I16), "esp_nn")
    assert int16.scratch == () and int16 == prepare_allocations(_softmax((1, 300), _I16, _I16), "reference")
    assert prepare_allocations(_softmax((1, 300), _I8, _I16), "esp_nn").scratch == ()


def test_esp_nn_softmax_of_rank_1_is_flagged():
    # the kernel reads dims->data[1] past a rank-1 shape: not knowable from the model
    effects = prepare_allocations(_softmax((300,)), "esp_nn")
    assert not effects.exact and "rank 1" in effects.note


def test_esp_nn_convolutions_take_no_scratch_on_the_generic_c_and_keep_a_node_data():
    view = _conv((1, 8, 8, 3), (6, 3, 3, 3), (1, 6, 6, 6), _VALID + (("stride_w", 1), ("stride_h", 1)))
    assert prepare_allocations(view, "esp_nn") == prepare_allocations(view, "reference")
    # NodeData: the reference OpData and an int buffer_idx (SoftmaxParams holds a double: 8-aligned)
    assert op_data("CONV_2D", "esp_nn").bytes == {"ilp32": 60, "eabi": 60, "lp64": 80}
    assert op_data("SOFTMAX", "esp_nn").bytes == {"ilp32": 64, "eabi": 64, "lp64": 88}
    assert op_data("FULLY_CONNECTED", "esp_nn").bytes == REFERENCE_OP_DATA["FULLY_CONNECTED"].bytes
    assert op_data("TANH", "esp_nn") is REFERENCE_OP_DATA["TANH"]  # not an esp_nn kernel: the reference one
    assert temp_tensors(3, 1, "CONV_2D", "esp_nn", True) == temp_tensors(3, 1, "CONV_2D", "reference", True)


def test_each_esp_nn_init_allocates_the_struct_the_table_names():
    # with an esp-tflite-micro tree (ESP_TFLM_DIR: the folder holding tensorflow/), read each esp_nn kernel's Init
    tree = Path(os.environ.get("ESP_TFLM_DIR", REPO_ROOT.parent / "ext" / "esp-tflite-micro"))
    if not (tree / KERNELS / "esp_nn").is_dir():
        pytest.skip(f"{tree} is not an esp-tflite-micro tree (set ESP_TFLM_DIR)")
    for op, data in ESP_NN_OP_DATA.items():
        text = (tree / KERNELS / data.source).read_text()
        common = tree / KERNELS / data.source.replace("esp_nn/", "").replace(".cc", "_common.cc")
        if "Init(" not in text.split("RegisterOp(")[0] and common.is_file():  # MUL registers the shared MulInit
            text = common.read_text()
        assert re.search(rf"AllocatePersistentBuffer\(\s*(context,\s*)?sizeof\({data.struct}\)", text), op


def test_cmsis_2021_conv_1x1_is_fast_only_for_input_channels_a_multiple_of_4():
    # the CMSIS-NN of Edge Impulse's SDK of 2022-09 (revision rule cmsis_nn_2021, DSP core): a 1x1 convolution runs
    # arm_convolve_1x1_s8_fast (no buffer) only with input channels a multiple of 4, stride 1 and no padding; with
    # 25 input channels it runs arm_convolve_s8, 2 int16 columns of 25 (not rounded up): 100 B, as measured
    rules = frozenset({CMSIS_NN_2021})
    options = _VALID + (("stride_w", 1), ("stride_h", 1))
    odd = _conv((1, 24, 24, 25), (25, 1, 1, 25), (1, 24, 24, 25), options)
    assert prepare_allocations(odd, "cmsis_nn", "eabi", revision_rules=rules).scratch == (100,)
    assert prepare_allocations(odd, "cmsis_nn", "eabi").scratch == ()  # 4ab83cc: 1x1 fast for any channel count
    even = _conv((1, 24, 24, 12), (25, 1, 1, 12), (1, 24, 24, 25), options)
    assert prepare_allocations(even, "cmsis_nn", "eabi", revision_rules=rules).scratch == ()
    strided = _conv((1, 24, 24, 12), (25, 1, 1, 12), (1, 12, 12, 25), _VALID + (("stride_w", 2), ("stride_h", 2)))
    assert prepare_allocations(strided, "cmsis_nn", "eabi", revision_rules=rules).scratch == (48,)
    # 3x3 on 3 channels: 2 x 27 int16, where 4ab83cc rounds the column up to 28
    first = _conv((1, 96, 96, 3), (6, 3, 3, 3), (1, 48, 48, 6), _SAME + (("stride_w", 2), ("stride_h", 2)))
    assert prepare_allocations(first, "cmsis_nn", "eabi", revision_rules=rules).scratch == (108,)
    assert prepare_allocations(first, "cmsis_nn", "eabi").scratch == (112,)
    assert prepare_allocations(first, "cmsis_nn", "eabi", revision_rules=rules).persistent == (24, 24)
