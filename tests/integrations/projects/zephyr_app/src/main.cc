#include "ops.h"

alignas(16) unsigned char g_tensor_arena[Kws_kTensorArenaSize];

int main() {
  Kws_OpResolver resolver;
  return Kws_RegisterOps(resolver) == kTfLiteOk ? g_tensor_arena[0] : 1;
}
