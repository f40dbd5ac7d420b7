"""On PostgreSQL each process learns new catalog versions by LISTEN/NOTIFY, so a cached listing page costs
no database work; a process's own writes and a lost listener fall back to reading the row."""

import json
import time

import pytest
from sqlalchemy import text

from marketplace import db
from marketplace.config import settings
from marketplace.db import build_engine
from marketplace.models import Agent, Role
from marketplace.services import catalog
from marketplace.services.catalog import version as catalog_version
from tests.catalog_helpers import statements
from tests.factories import make_agent

postgres_only = pytest.mark.skipif(
    not settings.database_url.startswith("postgresql"), reason="LISTEN/NOTIFY is PostgreSQL's"
)


def row_version() -> int:
    with db.engine().connect() as conn:
        return conn.execute(text("SELECT version FROM catalog_version WHERE id = 1")).scalar_one()


def served(**filters):
    listing = catalog.list_agents_json(**filters)
    return json.loads(listing.json), listing.total


def wait_for(condition, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def caught_up() -> bool:
    return catalog_version.known(db.engine()) == row_version()


@pytest.fixture
def agent(make_user):
    return make_agent(make_user("maker", role=Role.VENDOR), "Listed", tags=["x"])


@pytest.fixture
def no_grace(monkeypatch):
    """Measure the listener alone, not the read-your-writes window after the test's own writes."""
    monkeypatch.setattr(catalog_version, "WRITE_GRACE", 0.0)


def test_sqlite_reads_the_row_only_after_a_commit(tmp_path):
    engine = build_engine(f"sqlite:///{tmp_path / 'any.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE catalog_version (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)")
        conn.exec_driver_sql("INSERT INTO catalog_version VALUES (1, 7)")
    try:
        assert catalog_version.known(engine) == 7
        assert catalog_version.known(engine) == 7
        with engine.begin() as conn:  # another connection (of this process) commits
            conn.exec_driver_sql("UPDATE catalog_version SET version = 8")
        assert catalog_version.known(engine) == 8
        with engine.begin() as conn:  # a commit that does not touch the version: read again, same number
            conn.exec_driver_sql("CREATE TABLE other (x INTEGER)")
        assert catalog_version.known(engine) == 8
    finally:
        catalog_version.stop()
        engine.dispose()
    memory = build_engine("sqlite://")
    assert catalog_version.known(memory) is None
    memory.dispose()


def test_sqlite_sees_another_process_commit_at_once(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "shared.db"
    engine = build_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE catalog_version (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)")
        conn.exec_driver_sql("INSERT INTO catalog_version VALUES (1, 1)")
    try:
        assert catalog_version.known(engine) == 1
        subprocess.run([sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                        "c.execute('UPDATE catalog_version SET version = 2'); c.commit()", str(path)], check=True)
        assert catalog_version.known(engine) == 2
    finally:
        catalog_version.stop()
        engine.dispose()


@postgres_only
def test_a_repeated_page_needs_no_database_work(agent, no_grace):
    wait_for(caught_up)
    first = served()
    assert statements(served) == []
    assert served() == first


@postgres_only
def test_another_process_commit_reaches_the_cache_by_notification(agent, no_grace):
    wait_for(caught_up)
    assert served()[0][0]["name"] == "Listed"
    other = build_engine(settings.database_url)  # another process: its writes are not noted here
    try:
        with other.begin() as conn:
            conn.execute(text("UPDATE agents SET name = 'Renamed' WHERE id = :id"), {"id": agent.id})
    finally:
        other.dispose()
    assert wait_for(lambda: served()[0][0]["name"] == "Renamed", timeout=5)
    assert catalog_version.known(db.engine()) == row_version()


@postgres_only
def test_this_process_reads_its_own_write_at_once(agent):
    wait_for(caught_up)  # past the window of the fixture's own writes
    served()
    with db.session_scope() as session:
        session.get(Agent, agent.id).name = "Mine"
    # No waiting for the notification: right after a local write the row is read.
    executed = statements(lambda: served())
    assert any("catalog_version" in s for s in executed)
    assert served()[0][0]["name"] == "Mine"


@postgres_only
def test_a_lost_listener_falls_back_to_reading_the_row_and_reconnects(agent, no_grace, monkeypatch):
    monkeypatch.setattr(catalog_version, "RETRY_AFTER", 0.3)
    wait_for(caught_up)
    served()
    with db.engine().begin() as conn:
        killed = conn.execute(
            text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                 " WHERE application_name = :name AND datname = current_database()"),
            {"name": catalog_version.APPLICATION_NAME},
        ).all()
    assert killed
    wait_for(lambda: catalog_version.known(db.engine()) is None, timeout=5)
    assert any("catalog_version" in s for s in statements(served))
    with db.engine().begin() as conn:  # changed while nobody listens
        conn.execute(text("UPDATE agents SET name = 'Changed meanwhile' WHERE id = :id"), {"id": agent.id})
    wait_for(caught_up, timeout=5)
    assert served()[0][0]["name"] == "Changed meanwhile"
    assert statements(served) == []


@postgres_only
def test_a_forked_worker_starts_its_own_listener(agent, no_grace, monkeypatch):
    wait_for(caught_up)
    inherited = catalog_version._listener[0]
    monkeypatch.setattr(inherited, "pid", -1)  # as a child process sees its parent's listener
    assert catalog_version.known(db.engine()) is None or catalog_version._listener[0] is not inherited
    assert catalog_version._listener[0] is not inherited
    wait_for(caught_up)


@postgres_only
def test_the_read_your_writes_window_restarts_when_the_commit_is_done(agent):
    wait_for(caught_up)
    listener = catalog_version._listener[0]
    with db.engine().connect() as conn:
        conn.execute(text("UPDATE agents SET name = 'Slow commit' WHERE id = :id"), {"id": agent.id})
        conn.commit()  # the commit event fires before COMMIT runs
        at_commit = listener._last_write
        assert catalog_version.known(db.engine()) is None
        time.sleep(0.05)
    assert listener._last_write > at_commit  # back in the pool: the commit has finished
