"""Bring a database to the newest schema; the app runs this on start."""

from __future__ import annotations

from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Engine

from alembic import command
from marketplace.config import PROJECT_ROOT
from marketplace.db import engine as app_engine

_PG_LOCK_ID = 0x6D61726B  # several workers may start at once; one migrates, the others wait


def upgrade(engine: Engine | None = None) -> None:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    with (engine or app_engine()).begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


if __name__ == "__main__":
    upgrade()
