"""CMSIS-NN's scratch-buffer sizes as TFLM's cmsis_nn kernels request them, per core feature, as data.

CMSIS-NN's *_get_buffer_size functions branch on ARM_MATH_MVEI: a core with MVE (Helium: Cortex-M55, M85) asks for
other buffers than one with only the DSP extension. CMSIS_NN_SCRATCH_RULES maps each feature ("dsp", "mve") to one
rule per kernel family, each the formula of the CMSIS-NN function its docstring names, for the dims TFLM's
kernels/cmsis_nn/*.cc pass (CMSIS-NN 4ab83cc as TFLM 90b983c downloads it, compiled with GCC).
"""

from __future__ import annotations

from tflm_facts.op_view import OpView

# The core feature CMSIS-NN is compiled for: its *_get_buffer_size functions branch on ARM_MATH_MVEI.
CPU_FEATURES = {
    "dsp": "DSP extension, no MVE: Cortex-M4/M7/M33, Cortex-M55 built +nomve, 32-bit Arm Linux",
    "mve": "MVE (Helium, ARM_MATH_MVEI): Cortex-M55, Cortex-M85",
}


def _same_padding(in_size: int, filter_size: int, stride: int, dilation: int) -> int:
    """TFLM's ComputePaddingHeightWidth for SAME padding (the `padding.h/w` CMSIS-NN receives)."""
    effective = (filter_size - 1) * dilation + 1
    out = (in_size + stride - 1) // stride
    total = max(0, (out - 1) * stride + effective - in_size)
    return total // 2


def _padding(view: OpView, in_h: int, in_w: int, f_h: int, f_w: int) -> tuple[int, int]:
    """(padding.h, padding.w) as TFLM's CalculateOpDataConv/DepthwiseConv hand them to CMSIS-NN (0 for VALID)."""
    if view.option("padding") != 0:  # VALID
        return 0, 0
    return (_same_padding(in_h, f_h, view.option("stride_h", 1), view.option("dilation_h", 1)),
            _same_padding(in_w, f_w, view.option("stride_w", 1), view.option("dilation_w", 1)))


def _c_div(a: int, b: int) -> int:
    """C's int32 division (truncates toward zero)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def _c_mod(a: int, b: int) -> int:
    """C's % (the sign of the dividend)."""
    return a - b * _c_div(a, b)


def _cmsis_conv_s8_buffer(view: OpView) -> int:
    """arm_convolve_wrapper_s8_get_buffer_size for a DSP core (no MVE), compiled with GCC."""
    inp, flt = view.input(0), view.input(1)
    in_h, in_w, in_c = inp.dim(1), inp.dim(2), inp.dim(3)
    f_h, f_w, f_c = flt.dim(1), flt.dim(2), flt.dim(3)
    dil_w, dil_h = view.option("dilation_w", 1), view.option("dilation_h", 1)
    pad_h, pad_w = _padding(view, in_h, in_w, f_h, f_w)
    if pad_w == 0 and pad_h == 0 and f_w == 1 and f_h == 1 and dil_w == 1 and dil_h == 1 and in_c == f_c:
        return 0  # 1x1: the fast variant's buffer is 0 with GCC, the slow one takes none
    rhs_cols = f_w * f_h * in_c
    aligned = rhs_cols + (4 - rhs_cols % 4) % 4
    return 2 * aligned * 2  # 1xN and the generic im2col take the same on DSP


def cmsis_2021_conv_s8_buffer(view: OpView) -> int:
    """arm_convolve_wrapper_s8_get_buffer_size of the CMSIS-NN Edge Impulse's SDK of 2022-09 (4c96547) carries, on a
    DSP core: the 1x1 fast kernel (buffer 0) only for a 1x1 filter, no padding, stride 1 and input channels a
    multiple of 4; every other convolution (1xN or im2col) asks 2 int16 columns of input channels x filter area,
    not rounded up. Read from that SDK's sources; measured on Cortex-M4 (egg detection's 1x1 convolutions of 6, 25,
    51 and 102 input channels each ask 4 B per input channel, which 4ab83cc's rule, 1x1 fast for any channel count,
    left out)."""
    inp, flt = view.input(0), view.input(1)
    in_h, in_w, in_c = inp.dim(1), inp.dim(2), inp.dim(3)
    f_h, f_w = flt.dim(1), flt.dim(2)
    pad_h, pad_w = _padding(view, in_h, in_w, f_h, f_w)
    if pad_w == 0 and pad_h == 0 and in_c % 4 == 0 and view.option("stride_w", 1) == 1 \
            and view.option("stride_h", 1) == 1 and f_w == 1 and f_h == 1:
        return 0
    return 2 * in_c * f_w * f_h * 2


def _mve_im2col_s8(col_length: int) -> int:
    """arm_convolve_s8_get_buffer_size_mve: 4 im2col columns, each rounded up to whole 16-lane int8 Q registers."""
    return 4 * ((col_length + 15) // 16) * 16


def _mve_conv_1_x_n_s8(in_w: int, in_c: int, f_w: int, out_w: int, stride_w: int, pad_w: int, f_h: int) -> int:
    """arm_convolve_1_x_n_s8_get_buffer_size_mve (int32 arithmetic as in C)."""
    total_pad = (out_w - 1) * stride_w + f_w - in_w
    asym_pad = _c_mod(total_pad, 2)
    right_pad_num = max(1, _c_div(pad_w + asym_pad + stride_w - 1, stride_w)) if pad_w + asym_pad != 0 else 0
    left_pad_num = max(1, _c_div(pad_w + stride_w - 1, stride_w)) if pad_w != 0 else 0
    no_pad_num = max(out_w - (right_pad_num + left_pad_num), 0)
    if right_pad_num + no_pad_num + left_pad_num != out_w:
        return _mve_im2col_s8(in_c * f_w * f_h)
    pad_size_left = pad_w * in_c
    pad_size_right = right_pad_num * in_c if asym_pad else pad_size_left
    num_elem_left = f_w * in_c
    num_elem_right = num_elem_left - in_c
    return max(num_elem_left + pad_size_left, num_elem_right + pad_size_right)


def _cmsis_conv_s8_buffer_mve(view: OpView) -> int:
    """arm_convolve_wrapper_s8_get_buffer_size_mve: 1x1 (fast or not) takes none, 1xN its own rule, else im2col."""
    inp, flt, out = view.input(0), view.input(1), view.outputs[0]
    in_h, in_w, in_c = inp.dim(1), inp.dim(2), inp.dim(3)
    f_h, f_w, f_c = flt.dim(1), flt.dim(2), flt.dim(3)
    stride_w = view.option("stride_w", 1)
    dil_w, dil_h = view.option("dilation_w", 1), view.option("dilation_h", 1)
    pad_h, pad_w = _padding(view, in_h, in_w, f_h, f_w)
    if pad_w == 0 and pad_h == 0 and f_w == 1 and f_h == 1 and dil_w == 1 and dil_h == 1 and in_c == f_c:
        return 0  # arm_nn_is_convolve_1x1: arm_convolve_1x1_s8_fast_get_buffer_size is 0 with MVE
    if in_h == 1 and dil_w == 1 and f_h == 1 and (stride_w * in_c) % 4 == 0 and in_c == f_c:  # is_convolve_1_x_n
        return _mve_conv_1_x_n_s8(in_w, in_c, f_w, out.dim(2), stride_w, pad_w, f_h)
    return _mve_im2col_s8(in_c * f_w * f_h)


def _cmsis_conv_s16_buffer(view: OpView) -> int:
    """arm_convolve_wrapper_s16_get_buffer_size without MVE: 2 im2col columns of int16."""
    inp, flt = view.input(0), view.input(1)
    return 2 * inp.dim(3) * flt.dim(2) * flt.dim(1) * 2


def _cmsis_conv_s16_buffer_mve(view: OpView) -> int:
    """arm_convolve_s16_get_buffer_size_mve: 4 im2col columns rounded up to whole 8-lane int16 Q registers."""
    inp, flt = view.input(0), view.input(1)
    return 4 * ((inp.dim(3) * flt.dim(2) * flt.dim(1) + 7) // 8) * 8 * 2


DepthwiseScratch = tuple[int, "str | None"]  # (bytes, a note when the figure is only an upper bound)


def _cmsis_depthwise_s8_buffer(view: OpView) -> DepthwiseScratch:
    """arm_depthwise_conv_wrapper_s8_get_buffer_size without MVE."""
    inp, flt, out = view.input(0), view.input(1), view.outputs[0]
    in_h, in_w, in_c = inp.dim(1), inp.dim(2), inp.dim(3)
    f_h, f_w = flt.dim(1), flt.dim(2)
    dil_w, dil_h = view.option("dilation_w", 1), view.option("dilation_h", 1)
    pad_h, pad_w = _padding(view, in_h, in_w, f_h, f_w)
    if in_c == out.dim(3) and inp.dim(0) == 1 and dil_w == 1 and dil_h == 1:
        if f_w == 3 and f_h == 3 and pad_h <= 1 and pad_w <= 1:
            return 0, None
        return in_c * f_w * f_h * 2, None
    return 0, None


CH_IN_BLOCK_MVE = 124  # channels per block of arm_depthwise_conv_s8_opt on MVE (arm_nnsupportfunctions.h)
# A depthwise conv with one input channel and more output channels than this runs as a regular conv on MVE
# (CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD: 1 with GCC, 8 with Arm Compiler 6)
DW_ONE_INPUT_CH_THRESHOLD_GCC = 1


def _cmsis_depthwise_s8_buffer_mve(view: OpView) -> DepthwiseScratch:
    """arm_depthwise_conv_wrapper_s8_get_buffer_size with ARM_MATH_MVEI, compiled with GCC. One input channel and
    several output channels: arm_deptwise_conv_s8_one_in_ch_get_buffer_size_mve (the conv wrapper's buffer for the
    filter seen as a regular conv, plus the filter re-ordered); otherwise arm_depthwise_conv_s8_opt_get_buffer_size_mve
    (4 x CH_IN_BLOCK_MVE x filter area, the 3x3 case included) when channels match, batch 1, no dilation."""
    inp, flt, out = view.input(0), view.input(1), view.outputs[0]
    in_h, in_w, in_c = inp.dim(1), inp.dim(2), inp.dim(3)
    f_h, f_w = flt.dim(1), flt.dim(2)
    out_c = out.dim(3)
    dil_w, dil_h = view.option("dilation_w", 1), view.option("dilation_h", 1)
    if in_c == 1 and out_c > DW_ONE_INPUT_CH_THRESHOLD_GCC:
        pad_h, pad_w = _padding(view, in_h, in_w, f_h, f_w)
        reordered = out_c * f_h * f_w  # filter_dims c*h*w*n
        if pad_w == 0 and pad_h == 0 and f_w == 1 and f_h == 1 and dil_w == 1 and dil_h == 1:
            return reordered, None  # the regular conv is 1x1: no im2col buffer
        im2col = _mve_im2col_s8(f_w * f_h)
        if in_h == 1 and dil_w == 1 and f_h == 1:
            # arm_nn_is_convolve_1_x_n then depends on stride.w, which TFLM's depthwise Prepare leaves unset in the
            # cmsis_nn_dw_conv_params it passes: bound the 1xN rule over every stride (right_pad_num <= output width)
            bound = max(im2col, f_w + pad_w, f_w - 1 + max(pad_w, out.dim(2)))
            return bound + reordered, ("DEPTHWISE_CONV_2D with one input channel on CMSIS-NN MVE: the scratch buffer "
                                       "depends on a stride TFLM leaves unset; bounded over every stride")
        return im2col + reordered, None
    if in_c == out_c and inp.dim(0) == 1 and dil_w == 1 and dil_h == 1:
        return 4 * CH_IN_BLOCK_MVE * f_w * f_h, None
    return 0, None


def _cmsis_transpose_conv_s8_buffers(view: OpView) -> tuple[int, int]:
    """arm_transpose_conv_s8_get_buffer_size (no MVE) and arm_transpose_conv_s8_get_reverse_conv_buffer_size."""
    return _transpose_conv_s8(view, lambda cols: 2 * (cols + (4 - cols % 4) % 4) * 2)


def _cmsis_transpose_conv_s8_buffers_mve(view: OpView) -> tuple[int, int]:
    """arm_transpose_conv_s8_get_buffer_size_mve (the reverse conv's im2col by arm_convolve_s8_get_buffer_size_mve)
    and arm_transpose_conv_s8_get_reverse_conv_buffer_size."""
    return _transpose_conv_s8(view, _mve_im2col_s8)


def _transpose_conv_s8(view: OpView, im2col) -> tuple[int, int]:
    inp, flt, out = view.input(2), view.input(1), view.outputs[0]
    stride_w, stride_h = view.option("stride_w", 1), view.option("stride_h", 1)
    in_c = inp.dim(3)
    if stride_w <= 2 and stride_h <= 2 and in_c > 16:  # REVERSE_TCOL_EFFICIENT_THRESHOLD
        return im2col(flt.dim(2) * flt.dim(1) * in_c), in_c * flt.dim(2) * flt.dim(1) * flt.dim(0)
    buf_x = ((inp.dim(2) - 1) * stride_w + max(flt.dim(2), stride_h)) * out.dim(3)
    buf_y = max(flt.dim(1), stride_h)
    return buf_x * buf_y * 4, 0


def _cmsis_avgpool_buffer(view: OpView) -> int:
    """arm_avgpool_s8/s16_get_buffer_size_dsp: one int32 per channel."""
    return 4 * view.outputs[0].dim(3)


def _cmsis_avgpool_buffer_mve(view: OpView) -> int:
    """arm_avgpool_s8/s16_get_buffer_size_mve: none."""
    return 0


def _cmsis_fully_connected_s8_buffer(view: OpView) -> int:
    """arm_fully_connected_s8_get_buffer_size_dsp: none."""
    return 0


def _cmsis_fully_connected_s8_buffer_mve(view: OpView) -> int:
    """arm_fully_connected_s8_get_buffer_size_mve: one int32 kernel sum per output channel (filter_dims.c, which
    TFLM sets to the output's last dimension)."""
    return 4 * view.outputs[0].dim(-1)


def _cmsis_svdf_s8_buffer(view: OpView) -> int:
    """arm_svdf_s8_get_buffer_size_dsp: none."""
    return 0


def _cmsis_svdf_s8_buffer_mve(view: OpView) -> int:
    """arm_svdf_s8_get_buffer_size_mve: one int32 per filter (weights_feature_dims.n = weights_feature dim 0)."""
    return 4 * view.input(1).dim(0)


def _cmsis_batch_matmul_s8_buffer_mve(view: OpView) -> int:
    """arm_fully_connected_s8_get_buffer_size_mve(&output_shape): TFLM's FillVariableShape puts the output's last
    dimension in .c for ranks 2 to 4 and 1 otherwise."""
    out = view.outputs[0]
    return 4 * (out.dim(-1) if 2 <= len(out.shape) <= 4 else 1)


# CMSIS-NN's scratch-buffer rules per core feature: what each *_get_buffer_size returns for the dims TFLM's
# cmsis_nn/*.cc kernels pass (CMSIS-NN 4ab83cc, GCC). Depthwise rules return (bytes, note when bounded).
CMSIS_NN_SCRATCH_RULES = {
    "dsp": {
        "conv_s8": _cmsis_conv_s8_buffer, "conv_s16": _cmsis_conv_s16_buffer,
        "depthwise_s8": _cmsis_depthwise_s8_buffer, "transpose_conv_s8": _cmsis_transpose_conv_s8_buffers,
        "avgpool": _cmsis_avgpool_buffer, "fully_connected_s8": _cmsis_fully_connected_s8_buffer,
        "svdf_s8": _cmsis_svdf_s8_buffer, "batch_matmul_s8": lambda view: 0,
    },
    "mve": {
        "conv_s8": _cmsis_conv_s8_buffer_mve, "conv_s16": _cmsis_conv_s16_buffer_mve,
        "depthwise_s8": _cmsis_depthwise_s8_buffer_mve, "transpose_conv_s8": _cmsis_transpose_conv_s8_buffers_mve,
        "avgpool": _cmsis_avgpool_buffer_mve, "fully_connected_s8": _cmsis_fully_connected_s8_buffer_mve,
        "svdf_s8": _cmsis_svdf_s8_buffer_mve, "batch_matmul_s8": _cmsis_batch_matmul_s8_buffer_mve,
    },
}
