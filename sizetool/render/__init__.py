"""Renderers: a SizeReport as a rich tree, JSON (Zephyr size_report shape), CSV or markdown."""
