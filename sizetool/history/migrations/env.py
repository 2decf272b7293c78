"""Alembic environment: storage.upgrade_schema passes an open connection inside its locked transaction."""

from alembic import context

from sizetool.history.schema import VERSION_TABLE, metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, version_table=VERSION_TABLE, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
