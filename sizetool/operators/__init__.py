"""Operator cost for TFLM firmware: what code refers to (disassembly), the reference graph over symbols
(reference_graph), what each registration keeps alive (operator_cost) and the cross-check against .tflite models
(model_crosscheck)."""
