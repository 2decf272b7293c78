"""What esp-tflite-micro's esp_nn kernels take from the tensor arena beyond the reference kernels, as data.

esp-tflite-micro (Espressif's TFLM distribution, v1.3.8) replaces seven kernels with its own in
tensorflow/lite/micro/kernels/esp_nn/ (conv, depthwise_conv, fully_connected, add, mul, pooling, softmax), which call
esp-nn (1.2.3). Their Prepare() is the reference one except:
- CONV_2D, DEPTHWISE_CONV_2D and SOFTMAX keep a `NodeData` in Init(): the reference OpData plus an `int buffer_idx`
  (4 bytes more, padded to the struct's alignment);
- for int8, they ask esp-nn for a scratch buffer (`esp_nn_get_conv_scratch_size`,
  `esp_nn_get_depthwise_conv_scratch_size`, `esp_nn_get_softmax_scratch_size(input dims[1], dims[2])`) and request it
  with RequestScratchBufferInArena when it is above 0.
FULLY_CONNECTED, ADD, MUL and the pools keep the reference OpData and Prepare.

Which esp-nn function those names reach is decided by esp-nn's esp_nn.h: with CONFIG_NN_OPTIMIZED (ESP-IDF's
default) the ESP32-S3 and ESP32-P4 get their own (esp_nn_esp32s3.h, esp_nn_esp32p4.h) and every other chip (ESP32,
ESP32-C2/C3/C6, H2, ...) the generic optimised C ("opt", esp_nn_generic_opt.h); without it, the ANSI C reference
("ansi", esp_nn_ansi_c.h). ESP_NN_SCRATCH_RULES holds the "opt" and "ansi" rules; the S3/P4 ones are not modelled.
"""

from __future__ import annotations

from tflm_facts.op_view import OpView

# esp-nn's C variants, by what esp_nn.h maps the esp_nn_get_*_scratch_size names to.
ESP_NN_VARIANTS = {
    "opt": "esp-nn's generic optimised C (CONFIG_NN_OPTIMIZED on a chip other than ESP32-S3/P4: ESP32, ESP32-C3, ...)",
    "ansi": "esp-nn's ANSI C reference (CONFIG_NN_OPTIMIZED off)",
}
ESP_NN_DEFAULT_VARIANT = "opt"


def _softmax_opt(view: OpView) -> int:
    """esp_nn_get_softmax_scratch_size_opt(width, height): width * 4, where the kernel passes input dims[1] as width."""
    return 4 * view.input(0).dim(1)


# esp_nn_get_*_scratch_size per variant, for the dims esp-tflite-micro's esp_nn/*.cc pass (int8 only).
ESP_NN_SCRATCH_RULES = {
    "opt": {"conv_s8": lambda view: 0, "depthwise_s8": lambda view: 0, "softmax_s8": _softmax_opt},
    "ansi": {"conv_s8": lambda view: 0, "depthwise_s8": lambda view: 0, "softmax_s8": lambda view: 0},
}

# The ops whose Init() allocates esp_nn's own NodeData: (source under kernels/, struct, the reference OpData it wraps).
ESP_NN_NODE_DATA = {
    "CONV_2D": ("esp_nn/conv.cc", "NodeData"),
    "DEPTHWISE_CONV_2D": ("esp_nn/depthwise_conv.cc", "NodeData"),
    "SOFTMAX": ("esp_nn/softmax.cc", "NodeData"),
}
# The ops served by an esp_nn kernel that keeps the reference OpData (read from that kernel's own unit in DWARF).
ESP_NN_REFERENCE_DATA = {
    "FULLY_CONNECTED": "esp_nn/fully_connected.cc", "ADD": "esp_nn/add.cc", "MUL": "esp_nn/mul.cc",
    "AVERAGE_POOL_2D": "esp_nn/pooling.cc", "MAX_POOL_2D": "esp_nn/pooling.cc",
}
NODE_DATA_EXTRA_BYTES = 4  # NodeData's `int buffer_idx` after the reference OpData
