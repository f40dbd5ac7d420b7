"""The public catalog: stats, categories, browsing/searching agents, one agent, and what a user bought.

Only live agents (approved and not deleted) are public. Listing functions accept the raw query-string
values of `/api/agents` so that pages and the API validate them in one place; a bad value raises
`InvalidParameter` (422) naming the parameter. Every read returns API schemas (`AgentPublic`, ...),
built with a fixed number of queries per page (no N+1).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, exists, func, select, text
from sqlalchemy.sql import ColumnElement
from sqlmodel import Session

from marketplace.db import session_scope
from marketplace.models import (
    Agent,
    AgentFile,
    AgentPage,
    AgentPublic,
    AgentStatus,
    AgentTag,
    Category,
    CategoryPublic,
    CategoryRef,
    Purchase,
    Role,
    StatsPublic,
    User,
    VendorRef,
)
from marketplace.services import search as fulltext
from marketplace.services.errors import InvalidParameter, NotFound

DEFAULT_LIMIT = 24
MAX_LIMIT = 100
MAX_OFFSET = 1_000_000
MAX_TAGS = 10

AGENTS = Agent.__table__
USERS = User.__table__
CATEGORIES = Category.__table__
TAGS = AgentTag.__table__
FILES = AgentFile.__table__

# Written as literal SQL (not bound parameters) so SQLite and PostgreSQL can match the partial
# indexes of revision 0002, whose WHERE clause is exactly this.
LIVE = text("agents.status = 'approved' AND agents.deleted_at IS NULL")

# (lower bound exclusive, upper bound inclusive), in cents; None = unbounded. "free" is exactly 0.
# Browse offers free, 0-10, 10-50, 50-100, 100+; the home page offers free, 1-25, 26-50, 51-100, 100+.
# Both sets tile the paid range without overlap: 10.00 is in "0-10", 10.01 in "10-50", 100.50 in "100+".
PRICE_RANGES: dict[str, tuple[int | None, int | None]] = {
    "free": (None, 0),
    "0-10": (0, 1_000),
    "10-50": (1_000, 5_000),
    "50-100": (5_000, 10_000),
    "100+": (10_000, None),
    "1-25": (0, 2_500),
    "26-50": (2_500, 5_000),
    "51-100": (5_000, 10_000),
}
RATING_MINIMUMS: dict[str, float | None] = {"5": 5.0, "4+": 4.0, "3+": 3.0, "2+": 2.0, "any": None, "": None}
SORTS = ("newest", "popularity", "rating", "price-low", "price-high", "relevance")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off", ""}


def price_string(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def rating_string(rating_sum: int, review_count: int) -> str:
    """Average rating with two decimals, rounded half up in integer arithmetic ("4.50")."""
    if review_count <= 0:
        return "0.00"
    hundredths = (rating_sum * 200 + review_count) // (2 * review_count)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def download_url(agent_id: str) -> str:
    return f"/api/agents/{agent_id}/download"


def is_live(agent: Agent) -> bool:
    return agent.status == AgentStatus.APPROVED and agent.deleted_at is None


def can_see(agent: Agent, actor: User | None) -> bool:
    """Live agents are public; a pending or rejected one only to its vendor and admins."""
    if agent.deleted_at is not None:
        return False
    if agent.status == AgentStatus.APPROVED:
        return True
    return actor is not None and actor.deleted_at is None and (actor.role == Role.ADMIN or actor.id == agent.vendor_id)


# ---- query parameters -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgentFilters:
    """Validated `/api/agents` parameters."""

    search: fulltext.SearchQuery | None = None
    category: int | str | None = None  # id or slug
    price: tuple[int | None, int | None] | None = None
    min_rating: float | None = None
    tags: tuple[str, ...] = ()
    featured: bool = False
    sort: str | None = None
    limit: int = DEFAULT_LIMIT
    offset: int = 0


def _choice(name: str, value: str | None, options: Iterable[str]) -> str | None:
    if value is None:
        return None
    value = value.strip().lower()
    options = list(options)
    if value not in options:
        shown = ", ".join(o for o in options if o) or "nothing"
        raise InvalidParameter(f"{name} must be one of {shown}", field=name)
    return value


def parse_filters(
    *,
    search: str | None = None,
    category: str | int | None = None,
    price: str | None = None,
    rating: str | None = None,
    sort: str | None = None,
    tags: Sequence[str] | str | None = None,
    featured: str | bool | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> AgentFilters:
    """Check each parameter and say which one is wrong. Blank values mean "no filter"."""
    # A '+' typed into a URL arrives as a space ("4+" -> "4 "), so "4" and "100" are read as "4+", "100+".
    if price is not None and price.strip() == "100":
        price = "100+"
    if rating is not None and rating.strip() in {"4", "3", "2"}:
        rating = f"{rating.strip()}+"
    price_key = _choice("price", price, ["", "any", *PRICE_RANGES])
    rating_key = _choice("rating", rating, RATING_MINIMUMS)
    sort_key = _choice("sort", sort, ["", *SORTS]) or None

    category_ref: int | str | None = None
    if isinstance(category, int):
        category_ref = category
    elif category is not None and category.strip() and category.strip().lower() not in {"all", "any"}:
        value = category.strip().lower()
        if value.isdigit() and len(value) < 10:
            category_ref = int(value)
        elif _SLUG.match(value):
            category_ref = value
        else:
            raise InvalidParameter("category must be a category id or slug", field="category")

    if isinstance(tags, str):
        tags = [tags]
    tag_list = tuple(dict.fromkeys(t.strip().lower() for t in tags or () if t and t.strip()))
    if len(tag_list) > MAX_TAGS or any(len(t) > 50 for t in tag_list):
        raise InvalidParameter(f"tag: at most {MAX_TAGS} tags of at most 50 characters", field="tag")

    if isinstance(featured, str):
        flag = featured.strip().lower()
        if flag not in _TRUE | _FALSE:
            raise InvalidParameter("featured must be true or false", field="featured")
        featured = flag in _TRUE

    limit = DEFAULT_LIMIT if limit is None else limit
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidParameter(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    offset = 0 if offset is None else offset
    if not 0 <= offset <= MAX_OFFSET:
        raise InvalidParameter(f"offset must be between 0 and {MAX_OFFSET}", field="offset")

    return AgentFilters(
        search=fulltext.parse_query(search),
        category=category_ref,
        price=PRICE_RANGES.get(price_key or ""),
        min_rating=RATING_MINIMUMS[rating_key] if rating_key is not None else None,
        tags=tag_list,
        featured=bool(featured),
        sort=sort_key,
        limit=limit,
        offset=offset,
    )


# ---- serialisation ----------------------------------------------------------------------------------

_AGENT_COLUMNS = [
    AGENTS.c[name]
    for name in (
        "id", "name", "short_description", "description", "price_cents", "image_url", "demo_url", "is_featured",
        "status", "rejection_reason", "rating_sum", "review_count", "vendor_id", "category_id",
        "created_at", "updated_at",
    )
]  # fmt: skip


def _tags_by_agent(session: Session, ids: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    if ids:
        rows = session.execute(
            select(TAGS.c.agent_id, TAGS.c.tag)
            .where(TAGS.c.agent_id.in_(ids))
            .order_by(TAGS.c.agent_id, TAGS.c.position, TAGS.c.tag)
        )
        for agent_id, tag in rows:
            found[agent_id].append(tag)
    return found


def _public(row: Any, *, tags: list[str], vendor: VendorRef | None, category: CategoryRef | None,
            has_files: bool) -> AgentPublic:
    return AgentPublic(
        id=row.id,
        name=row.name,
        short_description=row.short_description,
        description=row.description,
        price=price_string(row.price_cents),
        image_url=row.image_url,
        demo_url=row.demo_url,
        file_url=download_url(row.id) if has_files else None,
        tags=tags,
        is_featured=row.is_featured,
        is_approved=row.status == AgentStatus.APPROVED,
        status=row.status,
        rejection_reason=row.rejection_reason,
        avg_rating=rating_string(row.rating_sum, row.review_count),
        review_count=row.review_count,
        vendor_id=row.vendor_id,
        vendor=vendor,
        category_id=row.category_id,
        category=category,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def agents_public(session: Session, agents: Sequence[Agent]) -> list[AgentPublic]:
    """Serialise ORM agents (any status) in order, loading tags, vendors, categories and files in batches."""
    if not agents:
        return []
    ids = [a.id for a in agents]
    vendor_ids = {a.vendor_id for a in agents if a.vendor_id}
    category_ids = {a.category_id for a in agents if a.category_id is not None}
    vendors = {
        r.id: VendorRef(id=r.id, username=r.username)
        for r in session.execute(select(USERS.c.id, USERS.c.username).where(USERS.c.id.in_(vendor_ids)))
    } if vendor_ids else {}
    categories = {
        r.id: CategoryRef(id=r.id, name=r.name, slug=r.slug, emoji=r.emoji)
        for r in session.execute(
            select(CATEGORIES.c.id, CATEGORIES.c.name, CATEGORIES.c.slug, CATEGORIES.c.emoji).where(
                CATEGORIES.c.id.in_(category_ids)
            )
        )
    } if category_ids else {}
    with_files = set(session.execute(select(FILES.c.agent_id).where(FILES.c.agent_id.in_(ids)).distinct()).scalars())
    tags = _tags_by_agent(session, ids)
    return [
        _public(
            a,
            tags=tags.get(a.id, []),
            vendor=vendors.get(a.vendor_id) if a.vendor_id else None,
            category=categories.get(a.category_id) if a.category_id is not None else None,
            has_files=a.id in with_files,
        )
        for a in agents
    ]


def agent_public(session: Session, agent: Agent) -> AgentPublic:
    return agents_public(session, [agent])[0]


# ---- stats and categories ---------------------------------------------------------------------------


def stats() -> StatsPublic:
    with session_scope() as session:
        agents = session.execute(select(func.count()).select_from(AGENTS).where(LIVE)).scalar_one()
        categories = session.execute(select(func.count()).select_from(CATEGORIES)).scalar_one()
        users = session.execute(
            select(func.count()).select_from(USERS).where(USERS.c.deleted_at.is_(None))
        ).scalar_one()
    return StatsPublic(total_agents=agents, total_categories=categories, total_users=users)


def _live_counts_by_category(session: Session, category_id: int | None = None) -> dict[int, int]:
    stmt = select(AGENTS.c.category_id, func.count()).where(LIVE, AGENTS.c.category_id.is_not(None))
    if category_id is not None:
        stmt = stmt.where(AGENTS.c.category_id == category_id)
    return dict(session.execute(stmt.group_by(AGENTS.c.category_id)).tuples().all())


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
    if value.isdigit() and len(value) < 10:
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


# ---- agents -----------------------------------------------------------------------------------------


def _order_by(sort: str, rank: ColumnElement | None) -> list[ColumnElement]:
    a = AGENTS.c
    if sort == "relevance" and rank is not None:
        return [rank.asc(), a.id.asc()]
    return {
        "popularity": [a.sales_count.desc(), a.id.desc()],
        "rating": [a.avg_rating.desc(), a.review_count.desc(), a.id.desc()],
        "price-low": [a.price_cents.asc(), a.id.asc()],
        "price-high": [a.price_cents.desc(), a.id.desc()],
    }.get(sort, [a.created_at.desc(), a.id.desc()])


def _conditions(session: Session, filters: AgentFilters) -> list[ColumnElement] | None:
    """WHERE terms for the filters; None when they cannot match anything (unknown category)."""
    a = AGENTS.c
    conds: list[ColumnElement] = [LIVE]
    if filters.category is not None:
        if isinstance(filters.category, int):
            conds.append(a.category_id == filters.category)
        else:
            category_id = session.execute(
                select(CATEGORIES.c.id).where(CATEGORIES.c.slug == filters.category)
            ).scalar_one_or_none()
            if category_id is None:
                return None
            conds.append(a.category_id == category_id)
    if filters.price is not None:
        low, high = filters.price
        if low is not None:
            conds.append(a.price_cents > low)
        if high is not None:
            conds.append(a.price_cents <= high)
    if filters.min_rating is not None:
        conds.append(a.avg_rating >= filters.min_rating)
    if filters.featured:
        conds.append(a.is_featured.is_(True))
    conds.extend(exists().where(TAGS.c.agent_id == a.id, TAGS.c.tag == tag) for tag in filters.tags)
    return conds


def search_agents(session: Session, filters: AgentFilters) -> AgentPage:
    """One page of live agents for validated filters, inside the caller's session."""
    conds = _conditions(session, filters)
    if conds is None:
        return AgentPage(items=[], total=0)
    a = AGENTS.c
    source = AGENTS
    rank = None
    if filters.search is not None:
        found = fulltext.matches(filters.search, session.get_bind().dialect)
        source = AGENTS.join(found, found.c.agent_id == a.id)
        rank = found.c.rank
    sort = filters.sort or ("relevance" if rank is not None else "newest")

    total = session.execute(select(func.count()).select_from(source).where(and_(*conds))).scalar_one()
    if total == 0 or filters.offset >= total:
        return AgentPage(items=[], total=total)

    has_files = exists().where(FILES.c.agent_id == a.id).label("has_files")
    stmt = (
        select(
            *_AGENT_COLUMNS,
            USERS.c.username.label("vendor_username"),
            CATEGORIES.c.name.label("category_name"),
            CATEGORIES.c.slug.label("category_slug"),
            CATEGORIES.c.emoji.label("category_emoji"),
            has_files,
        )
        .select_from(
            source.outerjoin(USERS, USERS.c.id == a.vendor_id).outerjoin(CATEGORIES, CATEGORIES.c.id == a.category_id)
        )
        .where(and_(*conds))
        .order_by(*_order_by(sort, rank))
        .limit(filters.limit)
        .offset(filters.offset)
    )
    rows = session.execute(stmt).all()
    tags = _tags_by_agent(session, [r.id for r in rows])
    items = [
        _public(
            r,
            tags=tags.get(r.id, []),
            vendor=VendorRef(id=r.vendor_id, username=r.vendor_username) if r.vendor_username is not None else None,
            category=CategoryRef(id=r.category_id, name=r.category_name, slug=r.category_slug,
                                 emoji=r.category_emoji) if r.category_name is not None else None,
            has_files=bool(r.has_files),
        )
        for r in rows
    ]
    return AgentPage(items=items, total=total)


def list_agents(
    *,
    search: str | None = None,
    category: str | int | None = None,
    price: str | None = None,
    rating: str | None = None,
    sort: str | None = None,
    tags: Sequence[str] | str | None = None,
    featured: str | bool | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> AgentPage:
    """Browse and search live agents. Default order: best match when searching, else newest first."""
    filters = parse_filters(
        search=search, category=category, price=price, rating=rating, sort=sort, tags=tags,
        featured=featured, limit=limit, offset=offset,
    )
    with session_scope() as session:
        return search_agents(session, filters)


def visible_agent(session: Session, *, agent_id: str, actor: User | None) -> Agent:
    """The agent row if `actor` may see it, else NotFound (the same answer as for a missing agent)."""
    agent = session.get(Agent, agent_id) if agent_id and len(agent_id) <= 64 else None
    if agent is None or not can_see(agent, actor):
        raise NotFound("Agent not found")
    return agent


def live_agent(session: Session, *, agent_id: str, lock: bool = False) -> Agent:
    """A live agent row (optionally locked for a counter update), else NotFound."""
    agent = None
    if agent_id and len(agent_id) <= 64:
        stmt = select(Agent).where(Agent.id == agent_id, LIVE)
        agent = session.execute(stmt.with_for_update() if lock else stmt).scalars().first()
    if agent is None:
        raise NotFound("Agent not found")
    return agent


def get_agent(*, agent_id: str, actor: User | None = None) -> AgentPublic:
    with session_scope() as session:
        return agent_public(session, visible_agent(session, agent_id=agent_id, actor=actor))


def purchased_agent_ids(*, actor: User | None) -> set[str]:
    """Ids of the agents `actor` has bought (empty when signed out), for "Already Bought" markers."""
    if actor is None:
        return set()
    with session_scope() as session:
        return set(session.execute(select(Purchase.agent_id).where(Purchase.user_id == actor.id)).scalars())

