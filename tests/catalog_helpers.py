"""Catalog test inspection helpers: change or read an agent row, check the search index, record SQL.

Rows are built with tests.factories."""

from __future__ import annotations

from sqlalchemy import event, text

from marketplace import db
from marketplace.models import Agent
from marketplace.services.catalog import search


def update_agent(agent_id: str, **values: object) -> None:
    with db.session_scope() as session:
        row = session.get(Agent, agent_id)
        for key, value in values.items():
            setattr(row, key, value)
        session.add(row)


def agent_row(agent_id: str) -> Agent:
    with db.session_scope() as session:
        return session.get(Agent, agent_id)


def check_search_index() -> None:
    with db.engine().begin() as conn:
        search.check_index(conn)


def search_documents() -> dict[str, str]:
    """agent id -> indexed text (SQLite) or tsvector text (PostgreSQL)."""
    with db.engine().begin() as conn:
        if conn.dialect.name == "postgresql":
            rows = conn.execute(text("SELECT agent_id, document::text FROM agent_search"))
        else:
            rows = conn.execute(text(
                "SELECT agent_id, name || ' ' || short_description || ' ' || description || ' ' || tags || ' ' || "
                "vendor FROM agent_search_docs"
            ))
        return dict(rows.all())


def statements(fn) -> list[str]:
    """The SQL statements `fn()` sends through the app's engine."""
    seen: list[str] = []

    def _record(_conn, _cursor, statement, *_args):
        seen.append(statement)

    event.listen(db.engine(), "before_cursor_execute", _record)
    try:
        fn()
    finally:
        event.remove(db.engine(), "before_cursor_execute", _record)
    return seen
