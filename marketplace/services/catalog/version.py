"""The catalog version that keys the listing cache, known on PostgreSQL without a database round trip.

Revision 0005's commit trigger NOTIFYs each new version. One daemon thread per process LISTENs and keeps
the latest number, so a cached listing page costs no database work (reading the row on every request
took two thirds of a cached page's time). `known()` answers None, and callers read the row as before,
whenever that number cannot be trusted: the listener not (yet) connected, or this process wrote
a moment ago and its own notification may still be on the way (read-your-writes). Another process's
write is seen once its notification arrives, normally within a millisecond of the commit.

SQLite: `PRAGMA data_version` on a connection of its own (that never writes) changes whenever any other
connection, of this process or another, has committed to the file since it was last asked. The version row
is read again only then, so a cached page costs that pragma instead of a pooled connection and a query, and
every commit is seen at once (no window).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from typing import Any

import psycopg
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

CHANNEL = "catalog_version"
APPLICATION_NAME = "catalog-version-listener"  # how its connection shows in pg_stat_activity
VERSION_SQL = "SELECT version FROM catalog_version WHERE id = 1"
WRITE_GRACE = 0.5  # seconds after this process commits a write during which the row is read
RESYNC_EVERY = 30.0  # seconds: re-read the row on the listening connection (also proves it alive)
RETRY_AFTER = 2.0  # seconds between reconnection attempts
WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "TRUNCATE", "MERGE", "COPY", "CREATE", "ALTER", "DROP")

log = logging.getLogger(__name__)


def read(conn: Connection) -> int:
    return conn.exec_driver_sql(VERSION_SQL).scalar_one()


class VersionListener:
    """LISTENs on its own connection (not a pooled one) and follows the version; see the module text."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.pid = os.getpid()  # a forked worker inherits this object but not its thread
        self._version: int | None = None
        self._last_write = float("-inf")
        self._stopped = threading.Event()
        event.listen(engine, "before_cursor_execute", self._note_statement)
        event.listen(engine, "commit", self._note_commit)
        event.listen(engine, "rollback", self._note_rollback)
        event.listen(engine, "checkin", self._note_checkin)
        self._thread = threading.Thread(target=self._run, name=APPLICATION_NAME, daemon=True)
        self._thread.start()

    def known(self) -> int | None:
        if time.monotonic() - self._last_write < WRITE_GRACE:
            return None
        return self._version

    def stop(self) -> None:
        self._stopped.set()
        event.remove(self.engine, "before_cursor_execute", self._note_statement)
        event.remove(self.engine, "commit", self._note_commit)
        event.remove(self.engine, "rollback", self._note_rollback)
        event.remove(self.engine, "checkin", self._note_checkin)
        self._thread.join(timeout=5)
        self._version = None

    # Only DML and DDL can change the catalog (the app has no writable CTEs or writing functions).
    def _note_statement(self, conn: Connection, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement[:64].lstrip()[:8].upper().startswith(WRITE_VERBS):  # not a copy of every listing query
            conn.info["catalog_wrote"] = True

    def _note_commit(self, conn: Connection) -> None:
        if conn.info.pop("catalog_wrote", False):
            self._last_write = time.monotonic()
            conn.info["catalog_committed"] = True

    # The commit event fires before COMMIT runs, which may wait for the version row's lock: start the
    # window again when the connection comes back to the pool, with the commit done.
    def _note_checkin(self, _dbapi_connection: Any, record: Any) -> None:
        if record.info.pop("catalog_committed", False):
            self._last_write = time.monotonic()

    def _note_rollback(self, conn: Connection) -> None:
        conn.info.pop("catalog_wrote", None)

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self._listen()
            except Exception:  # whatever broke: fall back to reading the row, reconnect
                log.warning("catalog version listener disconnected; retrying in %.0f s", RETRY_AFTER, exc_info=True)
            self._version = None
            self._stopped.wait(RETRY_AFTER)

    def _listen(self) -> None:
        args, kwargs = self.engine.dialect.create_connect_args(self.engine.url)
        with psycopg.connect(*args, **kwargs, autocommit=True, application_name=APPLICATION_NAME) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            resync_at = 0.0
            while not self._stopped.is_set():
                if time.monotonic() >= resync_at:
                    # The row is the truth (read after LISTEN, so nothing committed since is missed); it
                    # also brings the number back down after a database restore.
                    row = conn.execute(VERSION_SQL).fetchone()
                    self._version = row[0] if row else None
                    resync_at = time.monotonic() + RESYNC_EVERY
                for note in conn.notifies(timeout=1.0):
                    # Notifications arrive in commit order; max() keeps a late one from moving us back.
                    if self._version is not None:
                        self._version = max(self._version, int(note.payload))


class SqliteWatch:
    """The version of an SQLite file, re-read only when `PRAGMA data_version` says another connection committed."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.pid = os.getpid()
        self._conn = sqlite3.connect(engine.url.database or "", check_same_thread=False, isolation_level=None,
                                     timeout=10)
        self._lock = threading.Lock()
        self._data_version: int | None = None
        self._version: int | None = None

    def known(self) -> int | None:
        try:
            with self._lock:
                # fetchall: each statement runs to its end, so no read transaction (snapshot) stays open.
                changed = self._conn.execute("PRAGMA data_version").fetchall()[0][0]
                if changed != self._data_version or self._version is None:
                    # Read after the pragma: the number kept is at least as new as the state it vouches for.
                    rows = self._conn.execute(VERSION_SQL).fetchall()
                    self._data_version, self._version = changed, (rows[0][0] if rows else None)
                return self._version
        except sqlite3.Error:  # a missing table (not migrated yet), a locked file: read the row as before
            log.debug("catalog version watch failed", exc_info=True)
            return None

    def stop(self) -> None:
        with self._lock:
            self._conn.close()


_listener: list[VersionListener | None] = [None]
_sqlite: list[SqliteWatch | None] = [None]
_lock = threading.Lock()


def _sqlite_known(engine: Engine) -> int | None:
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None  # every connection of an in-memory database is a database of its own
    watch = _sqlite[0]
    if watch is None or watch.engine is not engine or watch.pid != os.getpid():
        with _lock:
            watch = _sqlite[0]
            if watch is None or watch.engine is not engine or watch.pid != os.getpid():
                if watch is not None and watch.pid == os.getpid():
                    watch.stop()
                watch = _sqlite[0] = SqliteWatch(engine)
    return watch.known()


def known(engine: Engine) -> int | None:
    """The current version if this process can vouch for it without a pooled connection, else None."""
    if engine.dialect.name == "sqlite":
        return _sqlite_known(engine)
    if engine.dialect.name != "postgresql":
        return None
    listener = _listener[0]
    if listener is None or listener.engine is not engine or listener.pid != os.getpid():
        with _lock:
            listener = _listener[0]
            if listener is None or listener.engine is not engine or listener.pid != os.getpid():
                if listener is not None:
                    listener.stop()
                listener = _listener[0] = VersionListener(engine)
    return listener.known()


def stop() -> None:
    """Stop this process's listener or SQLite watch (tests; an engine switch does it by itself)."""
    with _lock:
        if _listener[0] is not None:
            _listener[0].stop()
            _listener[0] = None
        if _sqlite[0] is not None:
            _sqlite[0].stop()
            _sqlite[0] = None
