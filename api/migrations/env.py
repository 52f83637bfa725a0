"""Alembic's environment: the service hands it a connection (api/db.py ``migrate``)."""

from alembic import context

from api.tables import Base

connection = context.config.attributes["connection"]
# SQLite alters tables only by copying them: batch mode does that for later migrations.
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
