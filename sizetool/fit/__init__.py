"""Fit: does a model's tensor arena fit the firmware's RAM?

Owns: finding the arena array passed to the MicroInterpreter in the code (arena_finder) and the RAM answer of
`size-report fit` / `--model`: the arena the models need (tflm_model's estimate, for the kernel set the firmware
links) against the linked arena and the free RAM (model_fit).
"""
