"""Catalog stats and categories, each with its number of live agents (read from `agent_listing_counts`)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlmodel import Session

from marketplace.db import session_scope
from marketplace.models import Category, CategoryPublic, StatsPublic, User
from marketplace.services.catalog.counts import COUNTS
from marketplace.services.errors import NotFound
from marketplace.services.text import is_digits

USERS = User.__table__
CATEGORIES = Category.__table__


def stats() -> StatsPublic:
    with session_scope() as session:
        agents = session.execute(select(func.coalesce(func.sum(COUNTS.c.live_count), 0))).scalar_one()
        categories = session.execute(select(func.count()).select_from(CATEGORIES)).scalar_one()
        users = session.execute(
            select(func.count()).select_from(USERS).where(USERS.c.deleted_at.is_(None))
        ).scalar_one()
    return StatsPublic(total_agents=agents, total_categories=categories, total_users=users)


def _live_counts_by_category(session: Session, category_id: int | None = None) -> dict[int, int]:
    stmt = select(COUNTS.c.category_id, func.sum(COUNTS.c.live_count)).where(COUNTS.c.category_id != 0)
    if category_id is not None:
        stmt = stmt.where(COUNTS.c.category_id == category_id)
    return {k: int(v) for k, v in session.execute(stmt.group_by(COUNTS.c.category_id))}


def _category_public(row: Category, count: int) -> CategoryPublic:
    return CategoryPublic(
        id=row.id or 0, slug=row.slug, name=row.name, emoji=row.emoji, description=row.description,
        agent_count=count,
    )


def list_categories() -> list[CategoryPublic]:
    """All categories in display order, each with its number of live agents."""
    with session_scope() as session:
        rows = session.execute(select(Category).order_by(Category.sort_order, Category.name, Category.id)).scalars()
        counts = _live_counts_by_category(session)
        return [_category_public(c, counts.get(c.id or 0, 0)) for c in rows]


def _category_row(session: Session, ref: int | str) -> Category | None:
    if isinstance(ref, int):
        return session.get(Category, ref)
    value = ref.strip().lower()
    if is_digits(value) and len(value) < 10:
        return session.get(Category, int(value))
    return session.execute(select(Category).where(Category.slug == value)).scalars().first()


def find_category(*, ref: int | str) -> CategoryPublic | None:
    """The category with this id (int or digits) or slug, or None."""
    with session_scope() as session:
        row = _category_row(session, ref)
        if row is None:
            return None
        return _category_public(row, _live_counts_by_category(session, row.id).get(row.id or 0, 0))


def get_category(*, ref: int | str) -> CategoryPublic:
    found = find_category(ref=ref)
    if found is None:
        raise NotFound("Category not found")
    return found
