#!/usr/bin/env bash
# build_lib.sh SET (reference|cmsis_nn): TFLM 90b983c as libtflm_SET.a, Cortex-M4, -O2 -g
set -euo pipefail
SET=$1
E=/work/ext/advice
T=$E/tflm
OBJ=$E/obj_$SET
mkdir -p $OBJ
FLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -g -ffunction-sections -fdata-sections -fno-exceptions -fno-unwind-tables -fno-asynchronous-unwind-tables -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_MCU_DEBUG_LOG -DTF_LITE_USE_CTIME -I$T -I$E/third_party/flatbuffers/include -I$E/third_party/gemmlowp -I$E/third_party/ruy -ffile-prefix-map=$E/=/"
CXXFLAGS="-std=c++17 -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit"
if [ "$SET" = cmsis_nn ]; then FLAGS="$FLAGS -DCMSIS_NN -I$E/cmsis_nn -I$E/cmsis_nn/Include"; fi
cd $T
SRCS=$( (ls tensorflow/lite/micro/*.cc tensorflow/lite/micro/arena_allocator/*.cc tensorflow/lite/micro/memory_planner/*.cc tensorflow/lite/micro/tflite_bridge/*.cc $(for k in add add_common pooling pooling_common conv conv_common depthwise_conv depthwise_conv_common fully_connected fully_connected_common quantize quantize_common reshape reshape_common shape softmax softmax_common kernel_util micro_tensor_utils activations activations_common; do echo tensorflow/lite/micro/kernels/$k.cc; done) tensorflow/lite/kernels/internal/*.cc tensorflow/lite/kernels/internal/reference/portable_tensor_utils.cc tensorflow/lite/kernels/kernel_util.cc tensorflow/lite/core/c/common.cc tensorflow/lite/core/api/*.cc tensorflow/compiler/mlir/lite/core/api/error_reporter.cc tensorflow/compiler/mlir/lite/schema/schema_utils.cc) 2>/dev/null | grep -v '_test\.cc$' | grep -v 'test_helper' | grep -v mock_micro_graph | grep -v fake_micro_context)
LIST=""
for s in $SRCS; do
  b=$(basename $s)
  if [ "$SET" = cmsis_nn ] && [ "$(dirname $s)" = tensorflow/lite/micro/kernels ] && [ -f tensorflow/lite/micro/kernels/cmsis_nn/$b ]; then s=tensorflow/lite/micro/kernels/cmsis_nn/$b; fi
  LIST="$LIST $s"
done
# CMSIS-NN: the sources the ten kernels reach (cmsis_needed.txt, their arm_* calls followed through the sources)
if [ "$SET" = cmsis_nn ]; then LIST="$LIST $(cat $E/cmsis_needed.txt)"; fi
echo "$LIST" | tr ' ' '\n' | grep . > $OBJ/sources.txt
compile() {
  s=$1; o=$OBJ/$(echo $s | sed 's|^\.\./||; s|/|_|g').o
  [ -f $o ] && return 0
  # the framework (not kernels, not CMSIS-NN) compiles the same for both kernel sets: reuse the reference object
  case $s in tensorflow/lite/micro/kernels/*|../*) ;; *) r=$E/obj_reference/$(basename $o); [ "$OBJ" != $E/obj_reference ] && [ -f $r ] && { cp $r $o; return 0; } ;; esac
  case $s in *.c) arm-none-eabi-gcc $FLAGS -std=c11 -c $s -o $o ;; *) arm-none-eabi-g++ $FLAGS $CXXFLAGS -c $s -o $o ;; esac || { echo "FAIL $s" >&2; return 0; }
}
export -f compile; export FLAGS CXXFLAGS OBJ E
nice -n 10 xargs -P2 -n1 bash -c 'compile "$0"' < $OBJ/sources.txt
rm -f $E/libtflm_$SET.a
arm-none-eabi-ar rcs $E/libtflm_$SET.a $OBJ/*.o
echo built $E/libtflm_$SET.a $(ls $OBJ/*.o | wc -l) objects
