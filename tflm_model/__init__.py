"""A .tflite model as TFLM sees it: the library both commands read models through.

Owns: where a model's bytes come from, a .tflite or a byte array in C/C++ source (model_sources, c_arrays),
reading the FlatBuffer (tflite_reader), the typed operator uses per model and subgraph (operator_uses), which
uses TFLM's kernels refuse and which type-reduced registrations fit (type_support), the union of operators a resolver
registers (plan), and the tensor arena TFLM needs (memory_planner, arena_estimate). gen-resolver (resolver_gen/) renders
these as a header; size-report (sizetool/operators, sizetool/fit) checks firmware against them. Imports tflm_facts
only, never either command.
"""
