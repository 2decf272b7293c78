#!/usr/bin/env bash
# TFLM 90b983c (the advice relinks' tree, /work/ext/advice) with the LSTM kernels added, and keep-only apps linked as
# benchmarks/tflm_relinks/relink.sh links (Cortex-M4F, -O2 -g, rdimon.specs): libtflm_lstm.a beside libtflm_reference.a
set -euo pipefail
E=/work/ext/advice; A=/work/ext/advice2/u90; T=$E/tflm
FLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -g -ffunction-sections -fdata-sections -fno-exceptions -fno-unwind-tables -fno-asynchronous-unwind-tables -fmessage-length=0 -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_MCU_DEBUG_LOG -DTF_LITE_USE_CTIME -I$T -I$E/third_party/flatbuffers/include -I$E/third_party/gemmlowp -I$E/third_party/ruy -ffile-prefix-map=$E/=/"
CXXFLAGS="-std=c++17 -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit"
cd $T
for k in lstm_eval lstm_eval_common unidirectional_sequence_lstm; do
  o=$A/obj/$k.o; [ -f $o ] || nice -n 10 arm-none-eabi-g++ $FLAGS $CXXFLAGS -c tensorflow/lite/micro/kernels/$k.cc -o $o
done
rm -f $A/libtflm_lstm.a; arm-none-eabi-ar rcs $A/libtflm_lstm.a $A/obj/*.o
for app in "$@"; do
  d=$A/apps/$app; mkdir -p $A/build/$app
  nice -n 10 arm-none-eabi-g++ $FLAGS $CXXFLAGS -I$d -c /work/advice2/benchmarks/advice_rebuilds/zephyr_main.cc -o $A/build/$app/main.o
  nice -n 10 arm-none-eabi-g++ $FLAGS $CXXFLAGS -c $d/model.cc -o $A/build/$app/model.o
  arm-none-eabi-g++ -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -specs=rdimon.specs -Wl,--gc-sections -Wl,-Map=$A/build/$app.elf.map \
    $A/build/$app/main.o $A/build/$app/model.o $A/libtflm_lstm.a $E/libtflm_reference.a -lm -o $A/build/$app.elf
  echo "ok $app"
done
