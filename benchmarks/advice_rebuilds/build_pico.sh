#!/usr/bin/env bash
# pico-tflmicro RP2040 (CMSIS-NN, -O3) rebuilds behind the advice's truth rows: each app's main.cc/model.cc compiled
# and linked as /work/ext/swap/build2040 builds its keep-only apps (pico_app.py), one at a time.
set -uo pipefail
A=/work/ext/advice2
P=/work/venvs/advice2/bin/python
app() { $P $A/pico_app.py $A/papps/$1 ${2:-$1} "${@:3}" > $A/pbuild/$1${2:+.$2}.log 2>&1 && echo "ok $1 ${2:-}" || echo "FAIL $1 ${2:-}"; }
mkdir -p $A/pbuild
for a in ${APPS_TO_BUILD:-keep_person_detect keep_micro_speech_quantized all10_person_detect all10_micro_speech_quantized strip_person_detect \
         both_person_detect bothreduced_person_detect_AVERAGE_POOL_2D_INT8 bothreduced_person_detect_CONV_2D_INT8 \
         bothreduced_person_detect_DEPTHWISE_CONV_2D_INT8 bothreduced_person_detect_SOFTMAX_INT8 \
         reduced_person_detect_AVERAGE_POOL_2D_INT8 reduced_person_detect_CONV_2D_INT8 \
         reduced_person_detect_DEPTHWISE_CONV_2D_INT8 reduced_person_detect_SOFTMAX_INT8 arena_person_detect_100000 arena_person_detect_82316}; do app $a; done
# the unused registrations' lines deleted from the nine-call app (the resolver keeps its size)
app all10_person_detect omitunused_person_detect -DOMIT_ADD -DOMIT_FULLY_CONNECTED -DOMIT_QUANTIZE -DOMIT_SVDF
app all10_micro_speech_quantized omitunused_micro_speech_quantized -DOMIT_ADD -DOMIT_AVERAGE_POOL_2D -DOMIT_CONV_2D \
    -DOMIT_QUANTIZE -DOMIT_SVDF
dir=$A/prelinks/pico_rp2040; mkdir -p $dir
cp $A/pbuild/all10_person_detect.elf $dir/firmware.elf; cp $A/pbuild/all10_person_detect.elf.map $dir/firmware.map
for op in ADD AVERAGE_POOL_2D CONV_2D DEPTHWISE_CONV_2D FULLY_CONNECTED QUANTIZE RESHAPE SVDF SOFTMAX; do
  app all10_person_detect without_$op -DOMIT_$op; cp $A/pbuild/without_$op.elf $dir/without_$op.elf
done
echo ALLDONE
