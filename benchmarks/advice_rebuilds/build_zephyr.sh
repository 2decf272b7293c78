#!/usr/bin/env bash
# Every rebuild behind the advice's Zephyr truth rows, one app at a time (nice -n 10).
set -uo pipefail
A=/work/ext/advice2
cd $A/zcmsis
app() { # SET APP [OUT-NAME] [APPDEFS]
  local set=$1 app=$2 name=${3:-$2} defs=${4:-}
  nice -n 10 make -s app SET=$set APP=$name APPDIR=$A/zapps/$app APPDEFS="$defs" OUT=$A/zbuild/$set > $A/zbuild/$set.$name.log 2>&1 \
    && echo "ok $set $name" || echo "FAIL $set $name"
}
relinks() { # SET MODEL: all10_MODEL whole and without each op, as benchmarks/drop_relinks.py reads them
  local set=$1 m=$2 dir=$A/zrelinks/${1}
  mkdir -p $dir
  app $set all10_$m all10_$m
  cp $A/zbuild/$set/all10_$m.elf $dir/firmware.elf; cp $A/zbuild/$set/all10_$m.elf.map $dir/firmware.map
  for op in ADD AVERAGE_POOL_2D CONV_2D DEPTHWISE_CONV_2D FULLY_CONNECTED MAX_POOL_2D QUANTIZE RESHAPE SHAPE SOFTMAX; do
    app $set all10_$m without_$op -DOMIT_$op
    cp $A/zbuild/$set/without_$op.elf $dir/without_$op.elf
  done
}
mkdir -p $A/zbuild
for set in reference cmsis_nn; do
  for m in person_detect micro_speech_quantized mlperf_kws_ds_cnn_int8 mlperf_ic_resnet_int8; do app $set keep_$m; done
  app $set all10_micro_speech_quantized
done
for a in strip_person_detect strip_micro_speech_quantized keep_trained_lstm_int8 nobuf_trained_lstm_int8 \
         arena_person_detect_100000 arena_person_detect_82732; do app reference $a; done
for a in both_person_detect bothreduced_person_detect_AVERAGE_POOL_2D_INT8 bothreduced_person_detect_CONV_2D_INT8 \
         bothreduced_person_detect_DEPTHWISE_CONV_2D_INT8 bothreduced_person_detect_SOFTMAX_INT8 reduced_person_detect \
         reduced_person_detect_AVERAGE_POOL_2D_INT8 reduced_person_detect_CONV_2D_INT8 \
         reduced_person_detect_DEPTHWISE_CONV_2D_INT8 reduced_person_detect_SOFTMAX_INT8; do app cmsis_nn $a; done
relinks reference person_detect
relinks cmsis_nn person_detect
echo ALLDONE
