"""The size report: where each byte is stored and runs (placement, map_placement, esp_idf_layout), every byte labelled
once (labelling; referenced_bytes places symbol-less bytes by what refers to them), top-level source roots
(source_roots), the report built from an ELF (report_builder), the report as data with its tree and saved JSON
(report_model, saved_schema), each RAM region's used/reserved/free (ram_use) and the cache of finished reports
(report_cache)."""
