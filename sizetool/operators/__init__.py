"""Operator cost: what each TFLM registration, each set of registrations and each model costs in flash.

Owns: the operator roots and AddXxx() call sites over the code graph (operator_graph, call_sites), what each root
keeps alive alone (retained), what a set of registrations keeps (operator_sets), the per-operator table
(operator_cost), the --drop/--keep answer (what_if), the cross-check against .tflite models (model_crosscheck), the
ROM split by operator the treemap and the history draw (operator_view), and the cache of graphs and tables by ELF
content (graph_cache). Reads the code graph (sizetool/code_graph) and the report; never the stack or fit analyses.
"""
