"""Database engine and sessions; the one place that knows how to connect."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from marketplace.config import settings


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # noqa: ANN001
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def build_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        url = str(parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False))
    # 20 pooled connections: 16 concurrent requests must not open and close overflow connections.
    return create_engine(url, pool_pre_ping=True, pool_size=20, max_overflow=20)


@lru_cache(maxsize=1)
def get_engine() -> Engine:
    return build_engine(settings.database_url)


def set_engine(engine: Engine) -> None:
    """Point the app at another engine (tests)."""
    get_engine.cache_clear()
    _override[0] = engine


_override: list[Engine | None] = [None]


def engine() -> Engine:
    return _override[0] or get_engine()


@contextmanager
def session_scope() -> Iterator[Session]:
    """A unit of work: commit on success, roll back on any error."""
    with Session(engine(), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@lru_cache(maxsize=4)
def _autocommit(bound: Engine) -> Engine:
    # SQLite's driver opens no transaction for a read anyway; switching its isolation level on every checkout
    # and back costs a PRAGMA each way for nothing.
    return bound if bound.dialect.name == "sqlite" else bound.execution_options(isolation_level="AUTOCOMMIT")


@contextmanager
def autocommit_scope() -> Iterator[Session]:
    """Reads of one statement (a session lookup, a completion's rows) outside a transaction: each sees what was
    committed when it ran, and on PostgreSQL a transaction would add BEGIN and COMMIT, two more round trips.
    Never write in it (it is never committed: on SQLite a write would be rolled back). Reads that must agree
    with each other, and every write, use `session_scope`."""
    with Session(_autocommit(engine()), expire_on_commit=False) as session:
        yield session


def is_postgres() -> bool:
    return engine().dialect.name == "postgresql"
