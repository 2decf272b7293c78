"""CI gates over finished reports: differences between two builds (diff), TOML budgets and baselines (budget) and
what a pipeline reads (ci_output: markdown, GitHub annotations, JUnit)."""
