// Registers the model's ops through the header tflm_op_resolver() generates, with a tensor arena of the size it
// estimated, and says so on the UART.
#include <cstdio>

#include "ops.h"
#include "pico/stdlib.h"

// External linkage: the compiler cannot fold its reads, so the arena stays in RAM.
alignas(16) unsigned char g_tensor_arena[Kws_kTensorArenaSize];

int main() {
  stdio_init_all();
  static Kws_OpResolver resolver;
  const bool registered = Kws_RegisterOps(resolver) == kTfLiteOk;
  printf("ops %s, arena %u bytes at %p\n", registered ? "registered" : "failed", (unsigned)sizeof g_tensor_arena,
         static_cast<void*>(g_tensor_arena));
  while (true) tight_loop_contents();
}
