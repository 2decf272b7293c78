#include "ops.h"

alignas(16) unsigned char g_tensor_arena[Kws_kTensorArenaSize];

extern "C" void app_main() {
  static Kws_OpResolver resolver;
  if (Kws_RegisterOps(resolver) != kTfLiteOk) g_tensor_arena[0] = 1;
}
