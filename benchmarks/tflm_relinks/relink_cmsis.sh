#!/usr/bin/env bash
# relink.sh SET: the app with all 10 ops and with each left out, against libtflm_SET.a; sizes to relinks_SET.csv
set -euo pipefail
SET=$1; APPDEFS=${APPDEFS:-}
E=/work/ext/advice
OUT=$E/relinks/${SET}${APPDEFS:+_messages}
mkdir -p $OUT
FLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -g -ffunction-sections -fdata-sections -fno-exceptions -fno-unwind-tables -fno-asynchronous-unwind-tables -DTF_LITE_STATIC_MEMORY -I$E/tflm -I$E/third_party/flatbuffers/include -I$E/third_party/gemmlowp -I$E/third_party/ruy -std=c++17 -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit -ffile-prefix-map=$E/=/"
OPS="ADD AVERAGE_POOL_2D CONV_2D DEPTHWISE_CONV_2D FULLY_CONNECTED MAX_POOL_2D QUANTIZE RESHAPE SHAPE SOFTMAX"
cd $E/app
arm-none-eabi-g++ $FLAGS -c model_data.cc -o $OUT/model_data.o
link() { # name defines
  name=$1; shift
  ref=$E/relinks/reference${APPDEFS:+_messages}/main_$name.o
  # main.cc is compiled without CMSIS_NN: the reference set-up's objects are the same
  if [ -f $ref ]; then cp $ref $OUT/main_$name.o; else nice -n 10 arm-none-eabi-g++ $FLAGS $APPDEFS "$@" -c main.cc -o $OUT/main_$name.o; fi
  arm-none-eabi-g++ -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -specs=rdimon.specs -Wl,--gc-sections -Wl,-Map=$OUT/$name.map \
     $OUT/main_$name.o $OUT/model_data.o $E/libtflm_$SET.a -lm -o $OUT/$name.elf
}
link firmware
for op in $OPS; do link without_$op -DOMIT_$op; done
echo "op,flash" > $OUT/sizes.csv
arm-none-eabi-size $OUT/firmware.elf $OUT/without_*.elf | tail -n +2 | awk '{n=$6; sub(".*/","",n); sub(".elf","",n); sub("without_","",n); print n","$1+$2}' >> $OUT/sizes.csv
cat $OUT/sizes.csv
