"""`db.single_statements`, the licence validate's connections: no pre-ping round trip, so a connection the database
dropped (a restart) must fail once and the work run again on a new connection, not answer 500 for every pooled
connection in turn."""

from __future__ import annotations

from sqlalchemy import text

from marketplace import db


def _backend(connection) -> object:
    if connection.dialect.name == "sqlite":
        return connection.execute(text("select 1")).scalar()  # one connection, in-process: nothing to drop
    return connection.execute(text("select pg_backend_pid()")).scalar()


def test_work_runs_again_on_a_new_connection_when_its_pooled_one_was_dropped():
    first = db.single_statements(_backend)
    if db.is_postgres():
        with db.engine().connect().execution_options(isolation_level="AUTOCOMMIT") as other:  # as a restart does
            dropped = other.execute(text("select pg_terminate_backend(pid) from pg_stat_activity where datname = "
                                         "current_database() and pid <> pg_backend_pid()")).scalars().all()
            assert dropped and all(dropped)
    runs = []

    def work(connection) -> object:
        runs.append(1)
        return _backend(connection)

    second = db.single_statements(work)
    if db.is_postgres():
        assert second != first and len(runs) == 2  # the dropped connection failed once, then a new one answered
    else:
        assert second == first == 1 and len(runs) == 1
