"""Renderers of a SizeReport: one module per output format.

tree.py (terminal tree, the default), json_output.py (Zephyr size_report's rom.json/ram.json shape),
csv_output.py (flat rows), markdown.py (tables for pull requests), regions.py (the memory-region table the others
share), html.py (self-contained page) and operators.py (the per-operator table) - the last two from the CI-gates and
operator-cost work.
"""
