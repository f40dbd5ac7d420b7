"""Bring a database to the newest schema; the app runs this on start."""

from __future__ import annotations

from alembic.config import Config
from sqlalchemy.engine import Engine

from alembic import command
from marketplace.config import PROJECT_ROOT
from marketplace.db import engine as app_engine


def upgrade(engine: Engine | None = None) -> None:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    with (engine or app_engine()).begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


if __name__ == "__main__":
    upgrade()
