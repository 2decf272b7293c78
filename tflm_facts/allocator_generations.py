"""TFLM's tensor-arena allocator over the years, as data: how each generation allocates, which revisions it covers,
which revisions were measured (the arena estimate is exact only for those), and how a build or a tree tells them apart.

Read from tflite-micro's history of micro_allocator.cc, micro_interpreter.cc, the memory allocators and the greedy
planner (and TensorFlow's tensorflow/lite/micro before the split, which Edge Impulse's SDK still carried in 2021):

- "2019": TensorFlow's micro to about 2020-06 (TF 2.1-2.2 and the master of spring 2020): the interpreter builds its
  own MicroAllocator (InitializeFromFlatbuffer, FinishTensorAllocation), every tensor has a persistent TfLiteTensor
  in the arena, no temporary ones; only CONV_2D, FULLY_CONNECTED, QUANTIZE, DEQUANTIZE and SVDF take arena memory in
  their kernels. Measured on the STM32 CIFAR-10 app's vendored TFLM (tflm_model.arena_tensor_array replays it).
- "2020-06": TensorFlow 2.3's micro (MicroAllocator::Create, StartModelAllocation; Edge Impulse's SDK to 2021-03):
  still a TfLiteTensor per tensor, but its kernels moved their OpData into the arena. Not measured and too unlike the
  others to be bounded by them: the estimate refuses it.
- "2020": TensorFlow 2.4 and 2.5's micro (TfLiteEvalTensor, from August 2020) up to tflite-micro 73c5fa4 (2021-05-12).
  One subgraph only (AllocateTensors() fails on more); a SimpleMemoryAllocator and the MicroAllocator are all the
  allocator objects in the arena (the planner and the builtin-data allocator live on the stack); no
  SubgraphAllocations; every GetInput()/GetOutput() in a kernel's Prepare takes a new temporary TfLiteTensor; the
  static plan must fit beside the scratch-request records still in the head, and variable tensors are allocated
  after the plan is committed; MEAN/SUM request only the int32 accumulator (int8/uint8).
- "2021-05": tflite-micro d7ac83e (2021-05-13) to a1f4b88 (2021-09-09): subgraphs (MicroGraph,
  SubgraphAllocations) and the builtin-data allocator in the arena, the GreedyMemoryPlanner still a local of
  CommitStaticMemoryPlan (on the stack: MicroAllocator has no memory_planner_), with the 2020 generation's plan and
  temporary tensors.
- "2021": a1f4b88 (2021-09-09) to 2022-01-06: as 2021-05 with the planner in the arena (MicroAllocator::Create
  places it between the allocator and the MicroAllocator). Measured at 606b7b2f0 (2021-12-31).
- "2022-01": tflite-micro 82f7e77 (2022-01-07, MicroContext) to 8c41f96 (2022-03-01): as 2021, with temporary
  tensors deallocated one by one (DeallocateTemp, AllocateTempInputTensor; memory still freed per node).
- "2022-03": 8c41f96 (2022-03-01, one plan across subgraphs, micro_allocation_info.cc) to 45022bb (2022-04-05): the
  2022-04 generation's allocation sequence with its own (smaller) allocator classes. Measured at d6eb8ce (2022-04-04).
- "2022-04": tflite-micro 45022bb (2022-04-05, the buffer-allocator interfaces) to 86abc0a: today's allocation
  sequence behind a SimpleMemoryAllocator, measured at 1bdc373d4 (2022-04-25); MEAN/SUM take only the accumulator.
- "2022": SingleArenaBufferAllocator (86abc0a, 2022-07-07) to today: the rules of tflm_facts.kernel_memory, measured
  at 90b983c (2026) and 02414075e (2023-06).

Facts of a generation that a build's DWARF does not give (a struct's size, an OpData, a temporary-tensor list) come
from its table here; what the table lacks is taken from kernel_memory (90b983c) and named in the answer as assumed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tflm_facts.kernel_memory import (CMSIS_NN_2021, CONCATENATION_PERSISTENT_SCALES, FULLY_CONNECTED_PER_TENSOR,
                                      IF_INTERMEDIATE_BUFFERS, REDUCE_ACCUMULATOR_ONLY, TRANSPOSE_CONV_INT8_SCRATCH_ONLY)

_IN0, _IN1, _OUT0 = ("i", 0), ("i", 1), ("o", 0)

# An allocator class of an older generation -> the kernel_memory.STRUCTS entry whose alignment (and, where the
# generation's table lacks its size, size: an assumption the answer names) stands in for it
STAND_INS = {"SimpleMemoryAllocator": "SingleArenaBufferAllocator"}


@dataclass(frozen=True)
class Generation:
    key: str  # "2020", "2021", "2022"
    label: str  # how answers name it
    covers: str  # the revisions it covers
    measured: tuple[str, ...]  # revisions whose smallest arenas were measured; () = the rules are not measured
    single_subgraph: bool  # AllocateTensors() refuses a model with more than one subgraph
    creation: tuple[str, ...]  # what MicroAllocator::Create places in the tail, in order (STRUCTS names)
    arena_builtin_allocator: bool  # MicroBuiltinDataAllocator allocated in the tail per model
    subgraph_allocations: bool  # the SubgraphAllocations array
    plan_beside_requests: bool  # the plan must fit between the scratch-request head and the tail (before release)
    variables_after_plan: bool  # variable tensors are allocated after CommitStaticMemoryPlan
    subgraph_sizes_array: bool  # FinishModelAllocation's temp size_t array per subgraph
    rules: frozenset[str] = frozenset()  # kernel_memory.REVISION_RULES that hold
    # ABI -> STRUCTS name -> sizeof, for the structs whose size differs from kernel_memory's (90b983c)
    structs: dict[str, dict[str, int]] = field(default_factory=dict)
    params: dict[str, dict[str, int]] = field(default_factory=dict)  # ABI -> PARAM_STRUCTS name -> sizeof
    # ABI -> op -> sizeof its reference OpData (what Init() allocates), where it differs from kernel_memory's
    op_data: dict[str, dict[str, int]] = field(default_factory=dict)
    # op -> temporary TfLiteTensors its Prepare takes (reference kernels), where they differ from kernel_memory's;
    # a callable of the operator's input type code where the list depends on it
    temp_tensors: dict[str, object] = field(default_factory=dict)
    # ops whose kernels' allocations were measured at this generation (reference kernels); others are assumed
    measured_ops: frozenset[str] = frozenset()
    measured_kernels: tuple[str, ...] = ()
    measured_abis: tuple[str, ...] = ()
    modelled: bool = True  # False: the estimate refuses it (its allocation is too unlike any measured generation's)
    tables_of: str = ""  # the one revision whose sizes the tables hold, when they are not the whole generation's
    tables_elsewhere: str = ""  # how far they were off for other revisions of the generation (measured)
    # ABI -> struct -> sizeof in a build without TF_LITE_STATIC_MEMORY (full TfLiteTensor and TfLiteNode), which
    # distributions such as Edge Impulse's SDK use: the tables' figure is no bound for them
    full_structs: dict[str, dict[str, int]] = field(default_factory=dict)
    # Part of the bound given when the revision is not known (a figure for "any TFLM"); False for a generation so
    # unlike today's that bounding it would raise every user's arena: an answer without a revision names it as left out
    in_unnamed_bound: bool = True
    # Revisions of the generation whose smallest arenas were measured never above the tables' figure (the tables are a
    # bound there without a full-struct build's sizes): how a revision string names them
    tables_bound_at: tuple[str, ...] = ()
    # The 2019 allocation (tflm_model.arena_tensor_array): a persistent TfLiteTensor per tensor, built by the
    # interpreter's own MicroAllocator; one arena per interpreter
    tensor_array: bool = False
    # op -> what its kernel takes from the arena, where the generation's kernels are all listed (kernel_ops): "op_data"
    # (Init: its OpData, op_data's size), "per_channel" / "per_channel_depthwise" (Prepare: two int32 arrays of the
    # filter's output channels, its dimension 0 / 3), "svdf_scratch" (Prepare: SVDF's scratch requests); an op not
    # listed takes nothing there
    arena_kernels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    kernel_ops: frozenset[str] = frozenset()  # the ops the revision has kernels for (); empty: not listed
    # op -> the element-type sets its kernels take (tflm_facts.linked_types' form), as the revision's builds link them:
    # the type rules applied when no firmware tells its own
    kernel_types: dict[str, tuple[frozenset[str], ...]] = field(default_factory=dict)
    planner_bytes_per_buffer: int = 0  # the greedy planner's working memory per buffer (0: kernel_memory's)
    quantization_scales_copied: bool = False  # a tensor's scales are copied into the arena (not only its zero points)
    offline_plans: bool = True  # the OfflineMemoryAllocation metadata is read
    planner_ties_first_added: bool = False  # equal-sized buffers are placed in the order added (a stable sort)
    # The revisions whose FinishModelAllocation plans each subgraph on its own (scratch handles and AllocationInfo
    # per subgraph, the head the largest plan), which the estimate does not replay: a model with more than one
    # subgraph gets a figure labelled unproven for them ("": every subgraph in one plan, as the estimate replays)
    per_subgraph_plans: str = ""
    # A non-constant tensor of zero bytes (a 0 dimension) still goes to the planner as a buffer of its own, which
    # takes planner memory like any other: tflite-micro before 78bb847 (2022-04); later revisions skip it
    zero_size_planned: bool = False
    # An operator output that no later operator reads (and no subgraph returns) is kept alive at its operator; False:
    # it lives for no time (tflite-micro 5e65f82), which the estimate does not replay: a multi-subgraph model with one
    # gets a figure labelled as a bound (single-subgraph models measured there were all exact)
    unread_outputs_live: bool = True
    # FinishModelAllocation allocates the scratch buffer handles (one per request) once per subgraph, each subgraph's
    # variables after its own: tflite-micro before 6f99907d3 (2022-08-25), which allocated them once
    scratch_handles_per_subgraph: bool = False
    # The generation's first revisions, which still allocate the scratch handles once per subgraph (where a build's
    # DWARF cannot tell them from later ones): a multi-subgraph model with scratch requests gets the larger figure there,
    # as a bound ("": none)
    handles_per_subgraph_until: str = ""


_INT8, _UINT8 = 9, 3


def _mean_2020(in_type: int) -> tuple:
    # PrepareMeanOrSum: input, output; then PrepareSimple: input, axis, and the output again for int8
    return (_IN0, _OUT0, _IN0, _IN1) + ((_OUT0,) if in_type == _INT8 else ())


def _reduce_max_2020(in_type: int) -> tuple:
    # PrepareMax: PrepareSimple (input, axis, output for int8), then input, output, axis
    return (_IN0, _IN1) + ((_OUT0,) if in_type == _INT8 else ()) + (_IN0, _OUT0, _IN1)


def _types(**uses: str) -> dict[str, tuple[frozenset[str], ...]]:
    """op -> its kernels' type sets, from "float32 int8 uint8|int32+uint8" (| between sets, + within one)."""
    return {op: tuple(frozenset(one.split("+")) for one in text.split(" ")) for op, text in uses.items()}


# The builtin params structs of the 2020 tensor-array revisions' builds (arm-none-eabi GCC, short enums; the same in
# both measured builds' DWARF)
_PARAMS_2020 = {"TfLiteAddParams": 1, "TfLiteArgMaxParams": 1, "TfLiteArgMinParams": 1,
    "TfLiteBatchMatMulParams": 2, "TfLiteCastParams": 2, "TfLiteConcatenationParams": 8,
    "TfLiteConvParams": 24, "TfLiteDepthToSpaceParams": 4, "TfLiteDepthwiseConvParams": 28,
    "TfLiteDivParams": 1, "TfLiteFullyConnectedParams": 4, "TfLiteGatherParams": 4,
    "TfLiteIfParams": 8, "TfLiteL2NormParams": 1, "TfLiteLSTMParams": 16,
    "TfLiteLeakyReluParams": 4, "TfLiteMirrorPaddingParams": 1, "TfLiteMulParams": 1,
    "TfLitePackParams": 8, "TfLitePoolParams": 40, "TfLiteReducerParams": 1,
    "TfLiteReshapeParams": 36, "TfLiteResizeBilinearParams": 2,
    "TfLiteResizeNearestNeighborParams": 2, "TfLiteSVDFParams": 8, "TfLiteShapeParams": 1,
    "TfLiteSoftmaxParams": 4, "TfLiteSpaceToDepthParams": 4, "TfLiteSplitParams": 4,
    "TfLiteSplitVParams": 4, "TfLiteSqueezeParams": 36, "TfLiteStridedSliceParams": 20,
    "TfLiteSubParams": 1, "TfLiteTransposeConvParams": 12,
    "TfLiteUnidirectionalSequenceLSTMParams": 16, "TfLiteUnpackParams": 8, "TfLiteWhileParams": 8}
# The ops their AllOpsResolver registers (the same 52 in both measured revisions)
_KERNEL_OPS_2020 = frozenset({
    "ABS", "ADD", "ARG_MAX", "ARG_MIN", "AVERAGE_POOL_2D", "CEIL", "CONCATENATION", "CONV_2D", "COS",
    "DEPTHWISE_CONV_2D", "DEQUANTIZE", "EQUAL", "FLOOR", "FULLY_CONNECTED", "GREATER", "GREATER_EQUAL",
    "L2_NORMALIZATION", "LESS", "LESS_EQUAL", "LOG", "LOGICAL_AND", "LOGICAL_NOT", "LOGICAL_OR", "LOGISTIC",
    "MAXIMUM", "MAX_POOL_2D", "MEAN", "MINIMUM", "MUL", "NEG", "NOT_EQUAL", "PACK", "PAD", "PADV2", "PRELU",
    "QUANTIZE", "RELU", "RELU6", "RESHAPE", "RESIZE_NEAREST_NEIGHBOR", "ROUND", "RSQRT", "SIN", "SOFTMAX",
    "SPLIT", "SQRT", "SQUARE", "STRIDED_SLICE", "SUB", "SVDF", "TANH", "UNPACK"})
# The reference_ops instantiations the 2019 revision's builds link (the STM32 app's and the measuring harness's); the
# 2020-06 revision's kernels have the same type paths (its harness build links the same set but the CONV_2D and
# FULLY_CONNECTED ones, which it inlines)
_KERNEL_TYPES_2020 = _types(
    ADD="float32 int8 uint8", AVERAGE_POOL_2D="float32 int8 uint8", CONCATENATION="uint8",
    CONV_2D="float32 int32+uint8", DEPTHWISE_CONV_2D="float32", FULLY_CONNECTED="int32+int8 int32+uint8",
    L2_NORMALIZATION="int8 uint8", LOGISTIC="float32 int8", MAXIMUM="float32 int32 int64 int8 uint8",
    MAX_POOL_2D="float32 int8 uint8", MEAN="float32", MINIMUM="float32 int32 int64 int8 uint8",
    MUL="float32 int8 uint8", PAD="float32 int32 int8 uint8", PRELU="int8 uint8",
    RESIZE_NEAREST_NEIGHBOR="int32 int32+int8 int32+uint8", SOFTMAX="float32 int16+int8 int8 uint8",
    STRIDED_SLICE="float32 int8 uint8", SUB="int32+int8 int32+uint8 int8 uint8", TANH="int8")

# The interpreter's own MicroAllocator, a persistent TfLiteTensor per tensor (context->tensors) with its quantization
# arrays copied into the arena, no temporary tensors, one arena per interpreter. Read from the STM32 CIFAR-10 app's
# vendored TFLM (notaJiminLee/STM-Cube-TFLM- 61588d6, micro of about 2020-05/06) and measured on 46 models.
GEN_2019 = Generation(
    key="2019",
    label="TFLM to about 2020-06 (TensorFlow 2.2-era micro: a TfLiteTensor per tensor, the interpreter's own "
          "MicroAllocator)",
    covers="TensorFlow's tensorflow/lite/micro up to about 2020-06 (TF 2.1-2.2 and the master of spring 2020, before "
           "MicroAllocator::Create), as vendored by STM32Cube TFLM ports of 2020",
    measured=("the STM32 CIFAR-10 app's vendored TFLM (notaJiminLee/STM-Cube-TFLM- 61588d6; TensorFlow micro of "
              "about 2020-05/06)",),
    single_subgraph=True,
    creation=("SimpleMemoryAllocator",),
    arena_builtin_allocator=False,
    subgraph_allocations=False,
    plan_beside_requests=False,
    variables_after_plan=True,
    subgraph_sizes_array=False,
    tensor_array=True,
    in_unnamed_bound=False,  # far larger than today's: named with --tflm-revision, not in the unnamed bound
    # its build's DWARF (arm-none-eabi GCC, short enums, no TF_LITE_STATIC_MEMORY) and allocation records
    structs={"eabi": {"SimpleMemoryAllocator": 24, "MicroAllocator": 32, "NodeAndRegistration": 40,
                      "TfLiteTensor": 64, "TfLiteAffineQuantization": 12, "TfLiteIntArray": 4,
                      "ScratchBufferHandle": 12, "AllocationInfo": 20, "void*": 4}},
    params={"eabi": _PARAMS_2020},
    op_data={"eabi": {"CONV_2D": 40, "FULLY_CONNECTED": 20, "QUANTIZE": 8, "DEQUANTIZE": 8, "SVDF": 24}},
    arena_kernels={"CONV_2D": ("op_data", "per_channel"), "FULLY_CONNECTED": ("op_data",),
                   "QUANTIZE": ("op_data",), "DEQUANTIZE": ("op_data",), "SVDF": ("op_data", "svdf_scratch")},
    kernel_ops=_KERNEL_OPS_2020,
    kernel_types=_KERNEL_TYPES_2020,
    planner_bytes_per_buffer=36,
    planner_ties_first_added=True,
    quantization_scales_copied=True,
    offline_plans=False,
    measured_ops=frozenset({"ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "MEAN",
                            "RESHAPE", "SOFTMAX"}),
    measured_kernels=("reference",),
    measured_abis=("eabi",),
    tables_of="STM32 CIFAR-10 app TFLM 61588d6 (the TensorFlow micro of about 2020-05/06 the app vendors)",
    tables_elsewhere="its struct sizes, OpData sizes and kernel list are those of the one revision measured (the "
                     "STM32 app's TFLM of about 2020-05/06); other revisions of the generation were not measured",
)

# TensorFlow 2.3's micro: MicroAllocator::Create (the MicroAllocator in the arena too), still a TfLiteTensor per
# tensor, only the zero points copied, offline plans and today's greedy planner; its reference kernels' arena use as
# 2019's plus DEPTHWISE_CONV_2D's OpData and per-channel arrays. Measured on Edge Impulse's SDK of 2021-03.
GEN_2020_06 = replace(
    GEN_2019,
    key="2020-06",
    label="TFLM 2020-06 to 2020-08 (TensorFlow 2.3 micro: MicroAllocator::Create with a TfLiteTensor per tensor)",
    covers="TensorFlow 2.3's tensorflow/lite/micro (MicroAllocator::Create, before TfLiteEvalTensor of 2020-08), "
           "Edge Impulse's SDK up to 2021-03 (e.g. 7adcab5)",
    measured=("Edge Impulse inferencing-sdk-cpp of 2021-03 (TensorFlow 2.3-era micro)",),
    creation=("SimpleMemoryAllocator", "MicroAllocator"),
    # its build's DWARF (arm-none-eabi GCC, short enums, no TF_LITE_STATIC_MEMORY) and allocation records
    structs={"eabi": {**GEN_2019.structs["eabi"], "MicroAllocator": 24, "AllocationInfo": 24}},
    op_data={"eabi": {**GEN_2019.op_data["eabi"], "DEPTHWISE_CONV_2D": 40}},
    arena_kernels={**GEN_2019.arena_kernels, "DEPTHWISE_CONV_2D": ("op_data", "per_channel_depthwise")},
    planner_bytes_per_buffer=40,
    planner_ties_first_added=False,
    quantization_scales_copied=False,
    offline_plans=True,
    tables_of="Edge Impulse inferencing-sdk-cpp 2021-03 (its TensorFlow 2.3-era micro)",
    tables_elsewhere="its struct sizes, OpData sizes and kernel list are those of the one revision measured (Edge "
                     "Impulse's SDK of 2021-03); other revisions of the generation were not measured",
)

GEN_2020 = Generation(
    key="2020",
    zero_size_planned=True,
    label="TFLM 2020-2021 (TensorFlow 2.4-2.5 micro, tflite-micro to 73c5fa4 of 2021-05-12, Edge Impulse's 2021 SDK)",
    covers="TensorFlow 2.4-2.5 tensorflow/lite/micro (from 2020-08), tflite-micro a37043f to 73c5fa4 "
           "(2021-04-09 to 2021-05-12), Edge Impulse inferencing-sdk-cpp of 2021-04 to 2022-09 (e.g. be7b099, "
           "2021-08-31; 4c96547, 2022-09-16)",
    measured=("Edge Impulse inferencing-sdk-cpp be7b099 (2021-08-31; TFLM of tflite-micro a37043f)",
              "Edge Impulse inferencing-sdk-cpp 4c96547 (2022-09-16), held out: measured after the rules were written"),
    single_subgraph=True,
    creation=("SimpleMemoryAllocator", "MicroAllocator"),
    arena_builtin_allocator=False,
    subgraph_allocations=False,
    plan_beside_requests=True,
    variables_after_plan=True,
    subgraph_sizes_array=False,
    # all but the first found by the held-out run on Edge Impulse 4c96547 (tests/data/ei2022_arena_truth.csv)
    rules=frozenset({REDUCE_ACCUMULATOR_ONLY, FULLY_CONNECTED_PER_TENSOR, TRANSPOSE_CONV_INT8_SCRATCH_ONLY,
                     CONCATENATION_PERSISTENT_SCALES, CMSIS_NN_2021}),
    # Edge Impulse's build (arm-none-eabi GCC, short enums, no TF_LITE_STATIC_MEMORY: TfLiteTensor and TfLiteNode
    # carry their full fields), read from the measured build's DWARF and its allocation records
    structs={"eabi": {"SimpleMemoryAllocator": 28, "MicroAllocator": 24, "NodeAndRegistration": 40,
                      "TfLiteTensor": 64, "ScratchBufferRequest": 8, "TfLiteEvalTensor": 12,
                      "TfLiteAffineQuantization": 12, "TfLiteIntArray": 4, "ScratchBufferHandle": 4,
                      "AllocationInfo": 24, "void*": 4}},
    params={"eabi": {"TfLiteAddParams": 2, "TfLiteArgMaxParams": 1, "TfLiteArgMinParams": 1,
                     "TfLiteBatchMatMulParams": 3, "TfLiteCastParams": 2, "TfLiteConcatenationParams": 8,
                     "TfLiteConvParams": 24, "TfLiteCumsumParams": 2, "TfLiteDepthToSpaceParams": 4,
                     "TfLiteDepthwiseConvParams": 28, "TfLiteDivParams": 1, "TfLiteFullyConnectedParams": 4,
                     "TfLiteGatherParams": 8, "TfLiteL2NormParams": 1, "TfLiteLSTMParams": 16,
                     "TfLiteLeakyReluParams": 4, "TfLiteMirrorPaddingParams": 1, "TfLiteMulParams": 1,
                     "TfLitePackParams": 8, "TfLitePoolParams": 40, "TfLiteReducerParams": 1,
                     "TfLiteReshapeParams": 36, "TfLiteResizeBilinearParams": 2,
                     "TfLiteResizeNearestNeighborParams": 2, "TfLiteSVDFParams": 8, "TfLiteShapeParams": 1,
                     "TfLiteSoftmaxParams": 4, "TfLiteSpaceToDepthParams": 4, "TfLiteSplitParams": 4,
                     "TfLiteSplitVParams": 4, "TfLiteSqueezeParams": 36, "TfLiteStridedSliceParams": 20,
                     "TfLiteSubParams": 2, "TfLiteTransposeConvParams": 12,
                     "TfLiteUnidirectionalSequenceLSTMParams": 16, "TfLiteUnpackParams": 8}},
    # OpData sizes from the DWARF of both measured builds (be7b099's and 4c96547's agree; SELECT_V2 is 4c96547's):
    # pad.cc's own OpData (PadParams of 4 dimensions) and the kernels' plain "OpData" structs of that time
    op_data={"eabi": {"ADD": 60, "AVERAGE_POOL_2D": 32, "CONCATENATION": 24, "CONV_2D": 52, "DEPTHWISE_CONV_2D": 52,
                      "DEQUANTIZE": 32, "DIV": 28, "ELU": 256, "EQUAL": 32, "FULLY_CONNECTED": 32, "GREATER": 32,
                      "GREATER_EQUAL": 32, "L2_NORMALIZATION": 4, "LEAKY_RELU": 24, "LESS": 32, "LESS_EQUAL": 32,
                      "LOGISTIC": 16, "MAX_POOL_2D": 32, "MEAN": 36, "MUL": 36, "NOT_EQUAL": 32, "PAD": 48,
                      "PADV2": 48, "QUANTIZE": 32, "REDUCE_ALL": 36, "REDUCE_ANY": 36, "REDUCE_MAX": 36,
                      "REDUCE_MIN": 36, "RELU": 28, "RELU6": 4, "RESHAPE": 0, "SELECT_V2": 2, "SOFTMAX": 56,
                      "STRIDED_SLICE": 84, "SUB": 52, "SUM": 36, "SVDF": 32, "TANH": 16, "TRANSPOSE_CONV": 68}},
    temp_tensors={"RESHAPE": (_IN0, _OUT0), "MEAN": _mean_2020, "SUM": _mean_2020,
                  "REDUCE_MAX": _reduce_max_2020, "REDUCE_MIN": _reduce_max_2020},
    # be7b099's, and those of the held-out run on 4c96547 (exact on all its 205 models once its rules were in)
    measured_ops=frozenset({"ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "MEAN",
                            "QUANTIZE", "RESHAPE", "SOFTMAX", "SVDF", "TRANSPOSE_CONV", "CONCATENATION",
                            "DEQUANTIZE", "LEAKY_RELU", "LOGISTIC", "MAX_POOL_2D", "MUL", "PACK", "PAD", "SHAPE",
                            "STRIDED_SLICE", "SUB"}),
    measured_kernels=("reference",),
    measured_abis=("eabi",),
)

# Subgraphs (MicroGraph, SubgraphAllocations) and the builtin-data allocator in the arena, with the 2020 generation's
# plan (beside the scratch-request head, variables after it) and its temporary tensors (a new TfLiteTensor for every
# GetInput()/GetOutput() in Prepare). Measured at 606b7b2f0 (2021-12-31), whose GreedyMemoryPlanner is in the arena
# (since a1f4b88, 2021-09-09; before it, on the stack: GEN_2021_05 below).
GEN_2021 = Generation(
    key="2021",
    zero_size_planned=True,
    label="TFLM 2021 (tflite-micro a1f4b88 of 2021-09-09 to 2022-01-06, SimpleMemoryAllocator with subgraphs, the "
          "planner in the arena)",
    covers="tflite-micro a1f4b88 to 82f7e77 (2021-09-09 to 2022-01-06)",
    measured=("tflite-micro 606b7b2f0 (2021-12-31)",),
    single_subgraph=False,
    creation=("SimpleMemoryAllocator", "GreedyMemoryPlanner", "MicroAllocator"),
    arena_builtin_allocator=True,
    subgraph_allocations=True,
    plan_beside_requests=True,
    variables_after_plan=True,
    subgraph_sizes_array=False,
    rules=frozenset({REDUCE_ACCUMULATOR_ONLY}),  # its records: MEAN requests only the int32 accumulator (int8)
    # its build's DWARF (arm-none-eabi GCC, short enums, TF_LITE_STATIC_MEMORY) and allocation records
    structs={"eabi": {"SimpleMemoryAllocator": 28, "GreedyMemoryPlanner": 44, "MicroAllocator": 32,
                      "MicroBuiltinDataAllocator": 8, "SubgraphAllocations": 8, "NodeAndRegistration": 32,
                      "TfLiteTensor": 32, "ScratchBufferRequest": 8, "TfLiteEvalTensor": 12,
                      "TfLiteAffineQuantization": 12, "TfLiteIntArray": 4, "ScratchBufferHandle": 4,
                      "AllocationInfo": 24, "void*": 4}},
    params={"eabi": {"TfLiteAddParams": 2, "TfLiteArgMaxParams": 1, "TfLiteArgMinParams": 1, "TfLiteBatchMatMulParams": 3, "TfLiteCallOnceParams": 4, "TfLiteCastParams": 2, "TfLiteConcatenationParams": 8, "TfLiteConvParams": 24, "TfLiteCumsumParams": 2, "TfLiteDepthToSpaceParams": 4, "TfLiteDepthwiseConvParams": 28, "TfLiteDivParams": 1, "TfLiteFullyConnectedParams": 4, "TfLiteGatherParams": 8, "TfLiteIfParams": 8, "TfLiteL2NormParams": 1, "TfLiteLeakyReluParams": 4, "TfLiteMirrorPaddingParams": 1, "TfLiteMulParams": 1, "TfLitePackParams": 8, "TfLitePoolParams": 40, "TfLiteReducerParams": 1, "TfLiteReshapeParams": 36, "TfLiteResizeBilinearParams": 2, "TfLiteResizeNearestNeighborParams": 2, "TfLiteSVDFParams": 8, "TfLiteShapeParams": 1, "TfLiteSoftmaxParams": 4, "TfLiteSpaceToDepthParams": 4, "TfLiteSplitParams": 4, "TfLiteSplitVParams": 4, "TfLiteSqueezeParams": 36, "TfLiteStridedSliceParams": 20, "TfLiteSubParams": 2, "TfLiteTransposeConvParams": 12, "TfLiteUnidirectionalSequenceLSTMParams": 16, "TfLiteUnpackParams": 8, "TfLiteVarHandleParams": 8}},
    op_data={"eabi": {"ADD": 60, "AVERAGE_POOL_2D": 32, "CALL_ONCE": 8, "CONCATENATION": 24, "CONV_2D": 52, "DEPTHWISE_CONV_2D": 52, "DEQUANTIZE": 32, "FULLY_CONNECTED": 32, "IF": 8, "LESS": 32, "LOGISTIC": 16, "MAX_POOL_2D": 32, "MEAN": 36, "MUL": 36, "PAD": 56, "QUANTIZE": 32, "SOFTMAX": 56, "STRIDED_SLICE": 84, "SUB": 52, "SVDF": 36, "TRANSPOSE_CONV": 72}},
    temp_tensors=dict(GEN_2020.temp_tensors),
    per_subgraph_plans="tflite-micro before 8c41f96 (2022-03-01)",
    # the ops of the 49 models measured at 606b7b2f0, whose records (Init, Prepare, temporary tensors) the rules match
    # (IF and CALL_ONCE: the multi-subgraph fixtures arena_if and arena_call_once)
    measured_ops=frozenset({"ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "DEQUANTIZE", "FULLY_CONNECTED",
                            "MAX_POOL_2D", "MEAN", "QUANTIZE", "RESHAPE", "SOFTMAX", "SVDF", "TRANSPOSE_CONV", "IF",
                            "CALL_ONCE"}),
    measured_kernels=("reference",),
    measured_abis=("eabi",),
    tables_of="tflite-micro 606b7b2f0 (2021-12-31)",
    tables_elsewhere="its struct and OpData sizes are tflite-micro 606b7b2f0's; no other revision of 2021-09 to "
                     "2022-01 was measured",
)

# d7ac83e (2021-05-13) to a1f4b88 (2021-09-09): as 2021, but the GreedyMemoryPlanner is a local of
# CommitStaticMemoryPlan (on the stack), so MicroAllocator::Create places only the allocator and the MicroAllocator (no
# memory_planner_ member: 28 B) in the tail. A build's DWARF tells it by MicroAllocator's members, a tree by
# micro_allocator.h, an ELF without DWARF by GreedyMemoryPlanner's constructor taking the planner's buffer (no Init()).
GEN_2021_05 = replace(
    GEN_2021,
    key="2021-05",
    label="TFLM 2021-05 to 2021-09 (tflite-micro d7ac83e of 2021-05-13 to a1f4b88 of 2021-09-09, SimpleMemoryAllocator "
          "with subgraphs, the planner on the stack)",
    covers="tflite-micro d7ac83e to a1f4b88 (2021-05-13 to 2021-09-08)",
    creation=("SimpleMemoryAllocator", "MicroAllocator"),
    measured=("tflite-micro 5e65f82 (2021-09-08)",),
    # its build's DWARF (arm-none-eabi GCC, short enums, TF_LITE_STATIC_MEMORY): the OpData of every kernel it built
    # that kernel_memory names one for (SVDF's 32 B, not 2021's 36)
    structs={"eabi": {**GEN_2021.structs["eabi"], "MicroAllocator": 28}},
    params={"eabi": {name: size for name, size in GEN_2021.params["eabi"].items()
                     if name != "TfLiteMirrorPaddingParams"}},
    op_data={"eabi": {"ADD": 60, "AVERAGE_POOL_2D": 32, "CALL_ONCE": 8, "CONCATENATION": 24, "CONV_2D": 52,
                      "DEPTHWISE_CONV_2D": 52, "DEQUANTIZE": 32, "DETECTION_POSTPROCESS": 112, "ELU": 256, "EQUAL": 32,
                      "FULLY_CONNECTED": 32, "GREATER": 32, "GREATER_EQUAL": 32, "IF": 8, "L2_NORMALIZATION": 4,
                      "LEAKY_RELU": 24, "LESS": 32, "LESS_EQUAL": 32, "LOGISTIC": 16, "MAX_POOL_2D": 32, "MEAN": 36,
                      "MUL": 36, "NOT_EQUAL": 32, "PAD": 56, "PADV2": 56, "QUANTIZE": 32, "REDUCE_ALL": 36,
                      "REDUCE_ANY": 36, "REDUCE_MAX": 36, "REDUCE_MIN": 36, "RELU": 28, "RELU6": 2, "SOFTMAX": 56,
                      "STRIDED_SLICE": 84, "SUB": 52, "SUM": 36, "SVDF": 32, "TANH": 16, "TRANSPOSE_CONV": 72}},
    # the ops of the models measured at 5e65f82 (IF: arena_if)
    measured_ops=frozenset({"ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "DEQUANTIZE", "FULLY_CONNECTED",
                            "MAX_POOL_2D", "MEAN", "PAD", "QUANTIZE", "RESHAPE", "SOFTMAX", "SVDF", "TRANSPOSE",
                            "TRANSPOSE_CONV", "IF"}),
    # its AllocationInfoBuilder does not mark an operator's outputs as used: an output no operator reads and no
    # subgraph returns lives for no time (measured: arena_call_once's init subgraph, 1,024 B below the replay)
    unread_outputs_live=False,
    tables_of="tflite-micro 5e65f82 (2021-09-08)",
    tables_elsewhere="its struct and OpData sizes are tflite-micro 5e65f82's (no other revision of 2021-05 to "
                     "2021-09 was measured)",
)

# MicroContext (82f7e77, 2022-01-07) to one plan across subgraphs (8c41f96, 2022-03-01): the 2021 sequence, the
# SimpleMemoryAllocator counting its temporary allocations (DeallocateTemp, 2022-01-22; 8 B larger), kernels taking
# AllocateTempInputTensor (2022-01-27); temporaries are still freed only at the end of each node's Prepare, and the
# kernels take as many as 2021's did (MEAN five for int8). Measured at 05b427e (2022-03-01, the last revision before
# 8c41f96): the 2021 rules with its build's sizes give the minimum on all 46 models it ran.
GEN_2022_01 = replace(
    GEN_2021,
    key="2022-01",
    label="TFLM 2022-01 to 2022-03 (tflite-micro 82f7e77 of 2022-01-07 to 8c41f96 of 2022-03-01, SimpleMemoryAllocator "
          "with MicroContext, each subgraph planned on its own)",
    covers="tflite-micro 82f7e77 to 8c41f96 (2022-01-07 to 2022-03-01)",
    measured=("tflite-micro 05b427e (2022-03-01)",),
    # its build's DWARF (arm-none-eabi GCC, short enums, TF_LITE_STATIC_MEMORY): the OpData of every kernel it built
    # that kernel_memory names one for (IF's 16 B, not 2021's 8)
    structs={"eabi": {**GEN_2021.structs["eabi"], "SimpleMemoryAllocator": 36}},
    params={"eabi": {**GEN_2021.params["eabi"], "TfLiteLSTMParams": 16}},
    op_data={"eabi": {"ADD": 60, "AVERAGE_POOL_2D": 32, "CALL_ONCE": 8, "CONCATENATION": 24, "CONV_2D": 52,
                      "DEPTHWISE_CONV_2D": 52, "DEQUANTIZE": 32, "DETECTION_POSTPROCESS": 112, "ELU": 256, "EQUAL": 32,
                      "FULLY_CONNECTED": 32, "GREATER": 32, "GREATER_EQUAL": 32, "IF": 16, "L2_NORMALIZATION": 4,
                      "LEAKY_RELU": 24, "LESS": 32, "LESS_EQUAL": 32, "LOGISTIC": 16, "MAX_POOL_2D": 32, "MEAN": 36,
                      "MIRROR_PAD": 20, "MUL": 36, "NOT_EQUAL": 32, "PAD": 56, "PADV2": 56, "QUANTIZE": 32,
                      "REDUCE_ALL": 36, "REDUCE_ANY": 36, "REDUCE_MAX": 36, "REDUCE_MIN": 36, "RELU": 28, "RELU6": 2,
                      "SOFTMAX": 56, "STRIDED_SLICE": 84, "SUB": 52, "SUM": 36, "SVDF": 36, "TANH": 16,
                      "TRANSPOSE_CONV": 72}},
    # IF takes a temporary tensor for every input and output and two persistent buffers (IF_INTERMEDIATE_BUFFERS)
    rules=GEN_2021.rules | {IF_INTERMEDIATE_BUFFERS},
    temp_tensors={**GEN_2021.temp_tensors, "IF": "every"},
    # the ops of the 46 models measured at 05b427e, and IF and CALL_ONCE (arena_if, arena_call_once)
    measured_ops=frozenset({"ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "DEQUANTIZE", "FULLY_CONNECTED",
                            "MAX_POOL_2D", "MEAN", "QUANTIZE", "RESHAPE", "SOFTMAX", "SVDF", "TRANSPOSE_CONV", "IF",
                            "CALL_ONCE"}),
    tables_of="tflite-micro 05b427e (2022-03-01)",
    tables_elsewhere="its struct and OpData sizes are tflite-micro 05b427e's (no other revision of 2022-01 to "
                     "2022-03 was measured)",
)

# The current allocation sequence with a SimpleMemoryAllocator: measured at 1bdc373d4 (2022-04-25), where the
# estimate with the current generation's steps equals the smallest arena on all 50 models once MEAN/SUM take only
# the accumulator (the anonymous OpData of reduce.cc holds temp_buffer_idx, 36 B)
GEN_2022_04 = Generation(
    key="2022-04",
    label="tflite-micro 2022-04 to 2022-07 (SimpleMemoryAllocator behind the buffer-allocator interfaces)",
    covers="tflite-micro 45022bb (2022-04-05) to 86abc0a (2022-07-07)",
    measured=("tflite-micro 1bdc373d4 (2022-04-25)",),
    single_subgraph=False,
    creation=("SimpleMemoryAllocator", "GreedyMemoryPlanner", "MicroAllocator"),
    arena_builtin_allocator=True,
    subgraph_allocations=True,
    plan_beside_requests=False,
    variables_after_plan=False,
    subgraph_sizes_array=True,
    scratch_handles_per_subgraph=True,  # (until 6f99907d3, 2022-08-25: IF with a scratch request measured 16 B up)
    rules=frozenset({REDUCE_ACCUMULATOR_ONLY}),
    # its build's DWARF (arm-none-eabi GCC, short enums, TF_LITE_STATIC_MEMORY) and allocation records
    structs={"eabi": {"SimpleMemoryAllocator": 40, "GreedyMemoryPlanner": 44, "MicroAllocator": 40,
                      "MicroBuiltinDataAllocator": 8, "SubgraphAllocations": 8, "NodeAndRegistration": 32,
                      "TfLiteTensor": 32, "ScratchBufferRequest": 12, "TfLiteEvalTensor": 12,
                      "TfLiteAffineQuantization": 12, "TfLiteIntArray": 4, "ScratchBufferHandle": 4,
                      "AllocationInfo": 24, "void*": 4, "size_t": 4}},
    params={"eabi": {"TfLiteAddParams": 2, "TfLiteArgMaxParams": 1, "TfLiteArgMinParams": 1, "TfLiteBatchMatMulParams": 3, "TfLiteCallOnceParams": 4, "TfLiteCastParams": 2, "TfLiteConcatenationParams": 8, "TfLiteConvParams": 24, "TfLiteCumsumParams": 2, "TfLiteDepthToSpaceParams": 4, "TfLiteDepthwiseConvParams": 28, "TfLiteDivParams": 1, "TfLiteFullyConnectedParams": 4, "TfLiteGatherParams": 8, "TfLiteIfParams": 8, "TfLiteL2NormParams": 1, "TfLiteLSTMParams": 16, "TfLiteLeakyReluParams": 4, "TfLiteMirrorPaddingParams": 1, "TfLiteMulParams": 1, "TfLitePackParams": 8, "TfLitePoolParams": 40, "TfLiteReducerParams": 1, "TfLiteReshapeParams": 36, "TfLiteResizeBilinearParams": 2, "TfLiteResizeNearestNeighborParams": 2, "TfLiteSVDFParams": 8, "TfLiteShapeParams": 1, "TfLiteSoftmaxParams": 4, "TfLiteSpaceToDepthParams": 4, "TfLiteSplitParams": 4, "TfLiteSplitVParams": 4, "TfLiteSqueezeParams": 36, "TfLiteStridedSliceParams": 20, "TfLiteSubParams": 2, "TfLiteTransposeConvParams": 12, "TfLiteUnidirectionalSequenceLSTMParams": 16, "TfLiteUnpackParams": 8, "TfLiteVarHandleParams": 8, "TfLiteWhileParams": 8}},
    op_data={"eabi": {"ADD": 60, "AVERAGE_POOL_2D": 32, "CALL_ONCE": 8, "CONCATENATION": 24, "CONV_2D": 52, "DEPTHWISE_CONV_2D": 52, "DEQUANTIZE": 32, "EQUAL": 32, "FULLY_CONNECTED": 32, "GREATER": 32, "GREATER_EQUAL": 32, "IF": 8, "LESS": 32, "LESS_EQUAL": 32, "LOGISTIC": 16, "MAX_POOL_2D": 32, "MUL": 36, "NOT_EQUAL": 32, "QUANTIZE": 32, "RELU": 28, "SOFTMAX": 56, "STRIDED_SLICE": 84, "SUB": 52, "SVDF": 36, "TRANSPOSE_CONV": 72, "WHILE": 8, "MEAN": 36, "SUM": 36}},
    # (IF: arena_if, tests/data/subgraph_arena_truth.csv)
    measured_ops=frozenset(['ADD', 'AVERAGE_POOL_2D', 'CONV_2D', 'DEPTHWISE_CONV_2D', 'FULLY_CONNECTED', 'IF', 'LESS', 'MEAN', 'MUL', 'QUANTIZE', 'RESHAPE', 'SOFTMAX', 'SVDF', 'TRANSPOSE_CONV', 'WHILE']),
    measured_kernels=("reference",),
    measured_abis=("eabi",),
    tables_of="tflite-micro 1bdc373d4 (2022-04-25)",
    tables_elsewhere="its struct and OpData sizes are tflite-micro 1bdc373d4's (no other revision of 2022-04 to "
                     "2022-07 was measured)",
)

# One plan across subgraphs (8c41f96, 2022-03-01; micro_allocation_info.cc) to the buffer-allocator interfaces
# (45022bb, 2022-04-05): the 2022-04 sequence (variables before the plan, the scratch-request head released before it,
# the subgraphs' offsets array) with smaller allocator classes (SimpleMemoryAllocator and MicroAllocator 36 B, not 40).
# Measured at d6eb8ce (2022-04-04, the last revision before 45022bb): its build's DWARF and allocation records.
GEN_2022_03 = replace(
    GEN_2022_04,
    key="2022-03",
    zero_size_planned=True,
    label="TFLM 2022-03 (tflite-micro 8c41f96 of 2022-03-01 to 45022bb of 2022-04-05, SimpleMemoryAllocator with "
          "MicroContext, one plan across subgraphs)",
    covers="tflite-micro 8c41f96 to 45022bb (2022-03-01 to 2022-04-04)",
    measured=("tflite-micro d6eb8ce (2022-04-04)",),
    structs={"eabi": {**GEN_2022_04.structs["eabi"], "SimpleMemoryAllocator": 36, "MicroAllocator": 36}},
    # its build's DWARF (arm-none-eabi GCC, short enums, TF_LITE_STATIC_MEMORY): the params structs are 1bdc373d4's
    params={"eabi": dict(GEN_2022_04.params["eabi"])},
    # the OpData of every kernel it built that kernel_memory names one for: 05b427e's, but IF's 8 B (not 16) and
    # WHILE, which 05b427e did not build
    op_data={"eabi": {**GEN_2022_01.op_data["eabi"], "IF": 8, "WHILE": 8}},
    measured_ops=frozenset({"ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "DEQUANTIZE", "FULLY_CONNECTED",
                            "IF", "LESS", "MAX_POOL_2D", "MEAN", "MUL", "QUANTIZE", "RESHAPE", "SOFTMAX", "SVDF",
                            "TRANSPOSE_CONV", "WHILE"}),
    tables_of="tflite-micro d6eb8ce (2022-04-04)",
    tables_elsewhere="its struct and OpData sizes are tflite-micro d6eb8ce's (no other revision of 2022-03 to "
                     "2022-04 was measured)",
)

GEN_2022 = Generation(
    key="2022",
    label="tflite-micro since 2022-07 (SingleArenaBufferAllocator)",
    covers="tflite-micro 86abc0a (2022-07-07) to 90b983c (2026) and the distributions synced from it "
           "(Arduino's and pico-tflmicro's syncs, esp-tflite-micro, Zephyr's module)",
    measured=("tflite-micro 90b983c (August 2026)", "tflite-micro 02414075e (2023-06-16), with its DWARF sizes",
              "pico-tflmicro dfea53b (2024-12), with its DWARF sizes",
              "Edge Impulse inferencing-sdk-cpp 29ca890 (2023-11-15), with its DWARF sizes"),
    tables_of="tflite-micro 90b983c (August 2026)",
    handles_per_subgraph_until="tflite-micro 86abc0a to 6f99907d3 (2022-07-07 to 2022-08-24)",
    tables_bound_at=("tflite-micro 02414075e", "pico-tflmicro dfea53b"),
    # eabi: Edge Impulse inferencing-sdk-cpp 29ca890's DWARF (measured); ilp32 and lp64: the same fields laid out by
    # the ABI's rules (not compiled)
    full_structs={"eabi": {"TfLiteTensor": 64, "NodeAndRegistration": 44},
                  "ilp32": {"TfLiteTensor": 64, "NodeAndRegistration": 44},
                  "lp64": {"TfLiteTensor": 112, "NodeAndRegistration": 88}},
    tables_elsewhere="its struct and OpData sizes are tflite-micro 90b983c's, or a build without "
                     "TF_LITE_STATIC_MEMORY's (full TfLiteTensor and TfLiteNode, as Edge Impulse's SDK), whichever "
                     "needs more; at 02414075e (2023-06) 90b983c's were 0 to 60 B above the measured minimum, at "
                     "pico-tflmicro dfea53b 0 to 36 B, and Edge Impulse's 2023 SDK needed up to 380 B more",
    single_subgraph=False,
    creation=("SingleArenaBufferAllocator", "GreedyMemoryPlanner", "MicroAllocator"),
    arena_builtin_allocator=True,
    subgraph_allocations=True,
    plan_beside_requests=False,
    variables_after_plan=False,
    subgraph_sizes_array=True,
    measured_kernels=("reference", "cmsis_nn", "esp_nn"),
    measured_abis=("ilp32", "eabi", "lp64"),
)

CURRENT = GEN_2022
GENERATIONS: tuple[Generation, ...] = (GEN_2019, GEN_2020_06, GEN_2020, GEN_2021_05, GEN_2021, GEN_2022_01,
                                        GEN_2022_03, GEN_2022_04, GEN_2022)
BY_KEY = {generation.key: generation for generation in GENERATIONS}
MEASURED = tuple(generation for generation in GENERATIONS if generation.measured)
CURRENT_REVISION_NAME = "90b983c"  # how a user names the current generation's tables' own revision (an ALIASES key)


# The classes from_struct_names tells a generation by: a reader that keeps only some DWARF types keeps these.
# GraphAllocationInfo (micro_allocation_info.h) came with one plan across subgraphs (8c41f96, 2022-03-01).
TELLING_CLASSES = frozenset({"SingleArenaBufferAllocator", "SimpleMemoryAllocator", "TfLiteEvalTensor",
                             "INonPersistentBufferAllocator", "IPersistentBufferAllocator", "SubgraphAllocations",
                             "MicroContext", "GraphAllocationInfo"})
# A class whose data members tell a generation -> the member: MicroAllocator holds memory_planner_ from a1f4b88
# (2021-09-09), when the GreedyMemoryPlanner moved from CommitStaticMemoryPlan's stack into the arena
TELLING_MEMBERS = {"MicroAllocator": "memory_planner_"}


def from_struct_names(names: set[str], members: dict[str, tuple[str, ...]] | None = None) -> Generation | None:
    """The generation a build's DWARF tells by the allocator classes it describes (names without namespaces), or None
    when it names none of them. members: the data members of TELLING_MEMBERS' classes as the DWARF lists them (a
    2021 build without them is taken for one with the planner in the arena, whose figure is the larger)."""
    if "SingleArenaBufferAllocator" in names:
        return GEN_2022
    if "SimpleMemoryAllocator" in names:
        if "TfLiteEvalTensor" not in names:  # a TfLiteTensor per tensor: 2019 or 2020-06, which the allocator's
            return GEN_2019                 # functions tell apart (from_symbols), not its classes
        if "INonPersistentBufferAllocator" in names or "IPersistentBufferAllocator" in names:
            return GEN_2022_04
        if "SubgraphAllocations" not in names:
            return GEN_2020
        if "MicroContext" in names:
            return GEN_2022_03 if "GraphAllocationInfo" in names else GEN_2022_01
        listed = (members or {}).get("MicroAllocator")
        return GEN_2021_05 if listed and TELLING_MEMBERS["MicroAllocator"] not in listed else GEN_2021
    return None


def from_symbols(names) -> Generation | None:
    """The generation a build's function names tell (demangled: "tflite::SimpleMemoryAllocator::AllocateTemp(...)"),
    for an ELF without DWARF; None when none of the allocator classes is named."""
    simple = graph = tensor_array = interfaces = own_allocator = context = across = planner_init = False
    planner_on_stack = False
    for name in names:
        if "SingleArenaBufferAllocator::" in name:
            return GEN_2022
        simple = simple or "SimpleMemoryAllocator::" in name
        graph = graph or "MicroGraph::" in name
        tensor_array = tensor_array or "MicroAllocator::AllocateTfLiteTensorArray" in name
        interfaces = interfaces or "PersistentBufferAllocator::" in name
        context = context or "MicroContext::" in name
        # one plan across subgraphs (8c41f96): the AllocationInfoBuilder of micro_allocation_info.cc walks them
        across = across or "AllocationInfoBuilder::MarkAllocationLifetimes" in name \
            or "AllocationInfoBuilder::MarkSubgraphLifetimesIfNecessary" in name
        # the planner in the arena (a1f4b88) is set up by Init(); on the stack, by its constructor with the buffer
        planner_init = planner_init or "GreedyMemoryPlanner::Init(" in name
        planner_on_stack = planner_on_stack or "GreedyMemoryPlanner::GreedyMemoryPlanner(unsigned char*" in name
        own_allocator = own_allocator or "MicroAllocator::InitializeFromFlatbuffer" in name \
            or "MicroAllocator::FinishTensorAllocation" in name
    if simple:
        if own_allocator:  # the interpreter's own MicroAllocator (before MicroAllocator::Create)
            return GEN_2019
        if tensor_array:
            return GEN_2020_06
        if interfaces:
            return GEN_2022_04
        if not graph:
            return GEN_2020
        if context:
            return GEN_2022_03 if across else GEN_2022_01
        return GEN_2021_05 if planner_on_stack and not planner_init else GEN_2021
    return None


def from_tree_files(has_file, header_text: str) -> Generation | None:
    """The generation of a TFLM source tree: has_file(path) tells whether tensorflow/lite/micro/<path> exists;
    header_text is its micro_allocator.h ("" when absent)."""
    if has_file("arena_allocator/single_arena_buffer_allocator.h") or has_file("single_arena_buffer_allocator.h"):
        return GEN_2022
    if has_file("simple_memory_allocator.h") or has_file("arena_allocator/simple_memory_allocator.h"):
        if "TfLiteEvalTensor" not in header_text:
            return GEN_2019 if "InitializeFromFlatbuffer" in header_text else GEN_2020_06
        if has_file("ibuffer_allocator.h") or has_file("arena_allocator/ibuffer_allocator.h"):
            return GEN_2022_04
        if "SubgraphAllocations" not in header_text:
            return GEN_2020
        if has_file("micro_context.h"):
            return GEN_2022_03 if has_file("micro_allocation_info.h") else GEN_2022_01
        return GEN_2021 if TELLING_MEMBERS["MicroAllocator"] in header_text else GEN_2021_05
    return None


# Names users give (--tflm-revision), besides the keys
ALIASES = {"1bdc373d4": GEN_2022_04, "d6eb8ce": GEN_2022_03, "05b427e": GEN_2022_01, "5e65f82": GEN_2021_05, "606b7b2f0": GEN_2021, "7adcab5": GEN_2020_06, "tf2.3": GEN_2020_06, "tf2.2": GEN_2019,
           "tf2.1": GEN_2019, "61588d6": GEN_2019, "current": GEN_2022, "90b983c": GEN_2022, "02414075e": GEN_2022,
           "edge-impulse-2021": GEN_2020, "be7b099": GEN_2020, "4c96547": GEN_2020, "a37043f": GEN_2020, "tf2.4": GEN_2020, "tf2.5": GEN_2020,
           # the shipped profiles' distributions, told from their trees (arena_allocator/single_arena_buffer_allocator.h)
           "ef64591": GEN_2022, "8d404de": GEN_2022,  # Zephyr's tflite-micro module (its TFLM, its own revision)
           "7948b85": GEN_2022,  # Arduino's tflite-micro sync of 2023-02-27
           "dfea53b": GEN_2022,  # pico-tflmicro's sync of 2024-12-26
           "d6465fd": GEN_2022}  # esp-tflite-micro's sync of 2026-07-20


def named(text: str) -> Generation:
    """The generation a user names (--tflm-revision): a key ("2020", "2021", "2022") or an alias; ValueError else."""
    key = text.strip().lower()
    found = BY_KEY.get(key) or ALIASES.get(key)
    if found is None:
        raise ValueError(f"unknown TFLM revision {text!r} (choose from {', '.join(list(BY_KEY) + list(ALIASES))})")
    return found
