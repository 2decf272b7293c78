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
    ABIS, CMSIS_NN_OP_DATA, GREEDY_PLANNER_BYTES_PER_BUFFER, PARAM_STRUCTS, PREPARE_OP_DATA, REFERENCE_OP_DATA, STRUCTS,
    OpView, TensorView, abi_for, prepare_allocations, temp_tensors,
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
