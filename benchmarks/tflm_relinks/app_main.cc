#include <stdint.h>
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"
#include "tensorflow/lite/micro/micro_log.h"
extern const unsigned char g_model[];
alignas(16) static uint8_t tensor_arena[32 * 1024];
int main() {
  static tflite::MicroMutableOpResolver<10> resolver;
#ifndef OMIT_ADD
  resolver.AddAdd();
#endif
#ifndef OMIT_AVERAGE_POOL_2D
  resolver.AddAveragePool2D();
#endif
#ifndef OMIT_CONV_2D
  resolver.AddConv2D();
#endif
#ifndef OMIT_DEPTHWISE_CONV_2D
  resolver.AddDepthwiseConv2D();
#endif
#ifndef OMIT_FULLY_CONNECTED
  resolver.AddFullyConnected();
#endif
#ifndef OMIT_MAX_POOL_2D
  resolver.AddMaxPool2D();
#endif
#ifndef OMIT_QUANTIZE
  resolver.AddQuantize();
#endif
#ifndef OMIT_RESHAPE
  resolver.AddReshape();
#endif
#ifndef OMIT_SHAPE
  resolver.AddShape();
#endif
#ifndef OMIT_SOFTMAX
  resolver.AddSoftmax();
#endif
  const tflite::Model* model = tflite::GetModel(g_model);
#ifdef APP_MESSAGES
  // an app's own messages, as TFLM's examples print them: some are kernels' strings, some their tails
  if (model->version() != TFLITE_SCHEMA_VERSION) {
    MicroPrintf("%s:%d %s != %s (%d != %d)", __FILE__, __LINE__, "version", "schema", model->version(), 3);
    return 3;
  }
#endif
  tflite::MicroInterpreter interpreter(model, resolver, tensor_arena, sizeof(tensor_arena));
  if (interpreter.AllocateTensors() != kTfLiteOk) {
#ifdef APP_MESSAGES
    MicroPrintf("AllocateTensors() failed");
#endif
    return 1;
  }
  TfLiteTensor* input = interpreter.input(0);
#ifdef APP_MESSAGES
  if (input->type != kTfLiteInt8) {
    MicroPrintf("(%d) not supported.", input->type);
    MicroPrintf("Type %s (%d) not supported.", TfLiteTypeGetName(input->type), input->type);
    MicroPrintf("NumInputs(node)");
    return 4;
  }
#endif
  if (interpreter.Invoke() != kTfLiteOk) {
#ifdef APP_MESSAGES
    MicroPrintf("Invoke failed");
#endif
    return 2;
  }
  return input->bytes > 0 ? 0 : 5;
}
