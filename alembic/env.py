"""Alembic environment: migrates the app's own engine, or a connection handed in by the caller."""

from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import marketplace.models  # noqa: F401  (registers every table)
from alembic import context
from marketplace.db import engine

target_metadata = SQLModel.metadata

# Search and cache-version tables are created by hand in revision 0002; autogenerate must leave them alone.
SEARCH_TABLE_PREFIXES = ("agent_search", "agents_fts", "catalog_version", "catalog_touches")


def _include_name(name: str | None, type_: str, _parents: dict) -> bool:
    return not (type_ == "table" and name is not None and name.startswith(SEARCH_TABLE_PREFIXES))


def _migrate(connection: Connection) -> None:
    if connection.dialect.name == "sqlite":
        # Batch ("move and copy") steps rename a rebuilt table into place; without this, SQLite checks
        # every trigger against the half-built schema and refuses (catalog triggers join agents/users).
        connection.exec_driver_sql("PRAGMA legacy_alter_table=ON")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_name=_include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


given = context.config.attributes.get("connection")
if given is not None:
    _migrate(given)
else:
    with engine().connect() as conn:
        _migrate(conn)
