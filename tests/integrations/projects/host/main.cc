// Registers the ops of the models through the header tflm_op_resolver() generates, with an arena of the size it
// estimated.
#include "ops.h"

// External linkage: the compiler cannot fold its reads, so the arena stays in RAM.
alignas(16) unsigned char g_tensor_arena[Kws_kTensorArenaSize];

int main() {
  Kws_OpResolver resolver;
  static_assert(Kws_kNumOps > 0, "the models' ops");
  return Kws_RegisterOps(resolver) == kTfLiteOk ? g_tensor_arena[0] : 1;
}
