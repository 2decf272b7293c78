"""Renderers: one module per output, turning finished records into text.

tree.py (terminal tree, the default), json_output.py (Zephyr size_report's rom.json/ram.json shape), csv_output.py,
markdown.py, regions.py (the memory-region table the others share), html.py (self-contained treemap page),
operators.py (the per-operator table and the --drop/--keep answer), arena_fit.py (the RAM fit), stack.py (the stack
report), diff_output.py (two builds compared) and history_plot.py (the history page and figures).
"""
