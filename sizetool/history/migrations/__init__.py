"""Alembic migrations of the history database (run by sizetool.history.storage, never by hand)."""
