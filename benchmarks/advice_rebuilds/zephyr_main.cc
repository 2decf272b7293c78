// keep-only app: exactly one model's gen-resolver header (ops.h), the model as an alignas(16) array (model.cc)
#include <cstdio>
#include <cstdint>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/schema/schema_generated.h"
#include "ops.h"
#include "arena.h"

extern const unsigned char g_model[];
alignas(16) static uint8_t tensor_arena[kArenaSize];
static OpResolver resolver;

int main() {

  const tflite::Model* model = tflite::GetModel(g_model);
  if (RegisterOps(resolver) != kTfLiteOk) return 1;
  tflite::MicroInterpreter interpreter(model, resolver, tensor_arena, kArenaSize);
  if (interpreter.AllocateTensors() != kTfLiteOk) return 2;
  if (interpreter.Invoke() != kTfLiteOk) return 3;
  printf("%d\n", static_cast<int>(interpreter.output(0)->data.int8[0]));
  return 0;
}
