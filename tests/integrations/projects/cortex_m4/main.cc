// Registers the model's ops (type-reduced kernels) through the header tflm_op_resolver() generates, with a tensor
// arena of the size it estimated for CMSIS-NN.
#include "ml/ops.h"

// External linkage: the compiler cannot fold its reads, so the arena stays in RAM.
alignas(16) unsigned char g_tensor_arena[Vision_kTensorArenaSize];

int main() {
  Vision_OpResolver resolver;
  return Vision_RegisterOps(resolver) == kTfLiteOk ? g_tensor_arena[0] : 1;
}
