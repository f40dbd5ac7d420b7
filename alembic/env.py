"""Alembic environment: migrates the app's own engine, or a connection handed in by the caller."""

from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import marketplace.models  # noqa: F401  (registers every table)
from alembic import context
from marketplace.db import engine

target_metadata = SQLModel.metadata


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


given = context.config.attributes.get("connection")
if given is not None:
    _migrate(given)
else:
    with engine().connect() as conn:
        _migrate(conn)
