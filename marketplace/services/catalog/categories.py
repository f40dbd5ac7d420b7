"""Catalog stats and categories, each with its number of live agents (read from `agent_listing_counts`)."""

from __future__ import annotations

from pydantic import TypeAdapter
from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Row
from sqlmodel import Session

from marketplace.db import session_scope
from marketplace.models import Category, CategoryPublic, StatsPublic, User
from marketplace.services.catalog import reads
from marketplace.services.catalog.counts import COUNTS
from marketplace.services.errors import NotFound
from marketplace.services.text import is_digits

USERS = User.__table__
CATEGORIES = Category.__table__


CATEGORY_LIST = TypeAdapter(list[CategoryPublic])


def _stats(conn: Connection) -> bytes:
    agents = conn.execute(select(func.coalesce(func.sum(COUNTS.c.live_count), 0))).scalar_one()
    categories = conn.execute(select(func.count()).select_from(CATEGORIES)).scalar_one()
    users = conn.execute(select(func.count()).select_from(USERS).where(USERS.c.deleted_at.is_(None))).scalar_one()
    stats = StatsPublic(total_agents=agents, total_categories=categories, total_users=users)
    return stats.model_dump_json(by_alias=True).encode()


def stats_json() -> bytes:
    """The stats as JSON, cached per catalog version (which user sign-ups and deletions move too)."""
    return reads.cached(("stats",), _stats) or b""  # _stats always answers


def stats() -> StatsPublic:
    return StatsPublic.model_validate_json(stats_json())


def _live_counts_by_category(session: Session | Connection, category_id: int | None = None) -> dict[int, int]:
    stmt = select(COUNTS.c.category_id, func.sum(COUNTS.c.live_count)).where(COUNTS.c.category_id != 0)
    if category_id is not None:
        stmt = stmt.where(COUNTS.c.category_id == category_id)
    return {k: int(v) for k, v in session.execute(stmt.group_by(COUNTS.c.category_id))}


def _category_public(row: Category | Row, count: int) -> CategoryPublic:
    return CategoryPublic(
        id=row.id or 0, slug=row.slug, name=row.name, emoji=row.emoji, description=row.description,
        agent_count=count,
    )


def _categories(conn: Connection) -> bytes:
    c = CATEGORIES.c
    rows = conn.execute(select(CATEGORIES).order_by(c.sort_order, c.name, c.id)).all()
    counts = _live_counts_by_category(conn)
    return CATEGORY_LIST.dump_json([_category_public(row, counts.get(row.id or 0, 0)) for row in rows], by_alias=True)


def list_categories_json() -> bytes:
    """All categories in display order, each with its number of live agents, as JSON; cached per catalog
    version."""
    return reads.cached(("categories",), _categories) or b""  # _categories always answers


def list_categories() -> list[CategoryPublic]:
    """All categories in display order, each with its number of live agents."""
    return CATEGORY_LIST.validate_json(list_categories_json())


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
