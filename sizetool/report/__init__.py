"""The size report: every byte labelled once (labelling), the report built from an ELF (report_builder), the report
as data with its tree and saved JSON (report_model), and the cache of finished reports (report_cache)."""
