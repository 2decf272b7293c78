"""Kept so that older imports keep working: the renderers now live in one module per format."""

from sizetool.render.csv_output import CSV_COLUMNS, render_csv  # noqa: F401
from sizetool.render.json_output import render_json  # noqa: F401
from sizetool.render.markdown import render_markdown, walk  # noqa: F401
from sizetool.render.regions import regions_table  # noqa: F401
