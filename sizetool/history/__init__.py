"""Size history: every build's report kept in a database (SQLite file or PostgreSQL), read back as tables, diffs,
plots and baselines.

    storage.py     open a database by path or URL, check it is ours, upgrade its schema (Alembic), lock writers
    schema.py      the tables (SQLAlchemy Core); migrations/ holds the Alembic revisions that create and change them
    build_info.py  commit, branch, time and CI link of a build: options first, then CI variables, then git
    record.py      a SizeReport -> one stored build (trimmed report, summary parts, changes against its predecessor)
    queries.py     builds in order per series, predecessors, deltas and movers, lookups by reference, pruning
    show_output.py `history show` as a rich table, JSON, CSV or markdown
    plot.py        `history plot`: the series, stacks and steps it draws (render/history_plot.py draws them)
    baseline.py    `check --baseline db:DB@BRANCH`: the baseline report from the history
"""
