"""Alembic revisions, one per schema version: 0001 creates the tables."""
