"""Builders for catalog tests: categories, agents (with tags, files), purchases."""

from __future__ import annotations

import itertools
from datetime import timedelta

from sqlalchemy import event, text

from marketplace import db
from marketplace.models import Agent, AgentFile, AgentStatus, AgentTag, Category, Order, Purchase, User
from marketplace.models.base import utcnow
from marketplace.services.catalog import search

_clock = itertools.count(1)
_slugs = itertools.count(1)


def make_category(name: str = "Writing", *, slug: str | None = None, emoji: str = "✍️", sort_order: int = 0,
                  description: str = "") -> Category:
    category = Category(name=name, slug=slug or f"{name.lower().replace(' ', '-')}-{next(_slugs)}", emoji=emoji,
                        sort_order=sort_order, description=description)
    with db.session_scope() as session:
        session.add(category)
    return category


def make_agent(
    vendor: User | None,
    name: str = "Agent",
    *,
    tags: list[str] | tuple[str, ...] = (),
    files: int = 0,
    status: str = AgentStatus.APPROVED,
    price_cents: int = 1999,
    ratings: tuple[int, ...] = (),
    created_offset: int | None = None,
    **fields: object,
) -> Agent:
    """An agent; each call is one second newer than the last unless `created_offset` (seconds) is given."""
    when = utcnow() - timedelta(days=1) + timedelta(seconds=created_offset if created_offset is not None
                                                       else next(_clock))
    values: dict[str, object] = {
        "vendor_id": vendor.id if vendor else None,
        "name": name,
        "status": status,
        "price_cents": price_cents,
        "rating_sum": sum(ratings),
        "review_count": len(ratings),
        "avg_rating": sum(ratings) / len(ratings) if ratings else 0.0,
        "created_at": when,
        "updated_at": when,
    }
    agent = Agent(**{**values, **fields})
    with db.session_scope() as session:
        session.add(agent)
        session.flush()
        for position, tag in enumerate(tags):
            session.add(AgentTag(agent_id=agent.id, tag=tag, position=position))
        for n in range(files):
            session.add(AgentFile(agent_id=agent.id, storage_key=f"agents/{agent.id}/{n}.zip", filename=f"{n}.zip"))
    return agent


def make_purchase(user: User, agent: Agent, *, price_cents: int | None = None) -> Purchase:
    price = agent.price_cents if price_cents is None else price_cents
    with db.session_scope() as session:
        order = Order(user_id=user.id, agent_id=agent.id, vendor_id=agent.vendor_id, agent_name=agent.name,
                      total_amount_cents=price, original_price_usd_cents=price, commission_rate=20,
                      payment_intent_id=f"pi_{agent.id}_{user.id}")
        session.add(order)
        session.flush()
        purchase = Purchase(user_id=user.id, agent_id=agent.id, order_id=order.id, purchase_price_cents=price)
        session.add(purchase)
    return purchase


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
        return dict(rows.tuples().all())


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
