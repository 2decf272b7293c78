#!/usr/bin/env bash
# the CMSIS-NN app with each model's array, as given and stripped of names and metadata
set -euo pipefail
E=/work/ext/advice
for f in micro_speech_quantized_orig micro_speech_quantized_stripped person_detect_orig person_detect_stripped; do
  nice -n 10 arm-none-eabi-g++ -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -g -fdata-sections -c $f.cc -o $f.o
  arm-none-eabi-g++ -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -specs=rdimon.specs -Wl,--gc-sections -Wl,-Map=$f.map \
    $E/relinks/cmsis_nn/main_firmware.o $f.o $E/libtflm_cmsis_nn.a -lm -o $f.elf
done
arm-none-eabi-size *.elf
