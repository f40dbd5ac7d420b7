"""Database engine and sessions; the one place that knows how to connect."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, create_engine

from marketplace.config import settings


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # noqa: ANN001
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def build_engine(url: str, *, single_statements: bool = False) -> Engine:
    """The app's engine; `single_statements`: the one `single_statements` runs on (autocommit, no pre-ping)."""
    parsed = make_url(url)
    # 20 pooled connections: 16 concurrent requests must not open and close overflow connections (on SQLite the
    # default 5 made validate open, set up and close a connection on most requests at concurrency 16).
    pool: dict[str, Any] = {"pool_size": 20, "max_overflow": 20}
    if single_statements:
        pool.update(isolation_level="AUTOCOMMIT", pool_reset_on_return=None)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database if parsed.database != ":memory:" else None
        in_file = bool(database)
        if database:
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        if not (in_file and single_statements):
            # Only the autocommit pool, whose writes each commit inside one call into SQLite, gets the 20: the
            # main engine's transactions hold the one writer lock until Python commits, and 20 of them queued on
            # it gave up after the busy timeout under 200 browsers (benchmarks/README.md "Websocket load").
            # A database in memory has one connection per thread: no pool size.
            pool = {key: value for key, value in pool.items() if key not in ("pool_size", "max_overflow")}
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10}, **pool)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        url = str(parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False))
    return create_engine(url, pool_pre_ping=not single_statements, **pool)


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


T = TypeVar("T")


@lru_cache(maxsize=4)
def _unpinged(bound: Engine) -> Engine:
    # Its own pool (the main one pings every checkout), in autocommit: each statement is its own transaction, so
    # a connection never goes back to the pool inside one and needs no rollback on return. On SQLite a write
    # statement then takes the writer lock and commits inside one call into SQLite, rather than holding it
    # from an implicit BEGIN until Python gets the GIL back to commit (16 threads queued on that lock).
    return build_engine(bound.url.render_as_string(hide_password=False), single_statements=True)


def single_statements(work: Callable[[Connection], T]) -> T:
    """Run `work`, a few statements that are each complete on their own (autocommit: no transaction spans them,
    each write commits by itself), on a pooled connection without the pool's pre-ping round trip: for the
    hottest public call (licence validate), where that ping was a third of the database time. Optimistic
    instead: when the connection turns out dead (the database restarted), SQLAlchemy invalidates the pool and
    `work` runs once more on a new connection. Only for work that may run twice: a statement whose connection
    died did not commit, but for a connection lost between its commit and its answer (validate would then count
    a request twice)."""
    for attempt in (1, 2):
        try:
            with _unpinged(engine()).connect() as connection:
                return work(connection)
        except DBAPIError as error:
            if attempt == 2 or not error.connection_invalidated:
                raise
    raise AssertionError("unreachable")


def is_postgres() -> bool:
    return engine().dialect.name == "postgresql"
