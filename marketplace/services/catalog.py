"""The public catalog: stats, categories, browsing/searching agents, one agent, and what a user bought.

Only live agents (approved and not deleted) are public. Listing functions accept the raw query-string
values of `/api/agents` so that pages and the API validate them in one place; a bad value raises
`InvalidParameter` (422) naming the parameter. Every read returns API schemas (`AgentPublic`, ...),
built with a fixed number of queries per page (no N+1).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypedDict, Unpack

from pydantic import TypeAdapter
from sqlalchemy import (
    Integer,
    Select,
    String,
    Text,
    and_,
    bindparam,
    case,
    cast,
    exists,
    func,
    literal_column,
    null,
    select,
    true,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.engine import Connection
from sqlalchemy.sql import ColumnElement, FromClause
from sqlalchemy.sql.expression import UnaryExpression
from sqlalchemy.sql.operators import custom_op
from sqlmodel import Session

from marketplace import db
from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import (
    Agent,
    AgentFile,
    AgentListingCount,
    AgentPage,
    AgentPublic,
    AgentStatus,
    AgentTag,
    Category,
    CategoryPublic,
    CategoryRef,
    Favorite,
    Purchase,
    Report,
    Role,
    StatsPublic,
    User,
    VendorRef,
)
from marketplace.services import catalog_version
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
COUNTS = AgentListingCount.__table__


def live_clause(table: FromClause = AGENTS) -> ColumnElement[bool]:
    """Approved and not deleted. 'approved' is inlined (not a bound parameter) so that SQLite and
    PostgreSQL can use the partial indexes of revision 0002, whose WHERE clause is exactly this."""
    return and_(table.c.status == literal_column("'approved'"), table.c.deleted_at.is_(None))


LIVE = live_clause()

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

# Cells of `agent_listing_counts` (same edges as the CASE expressions of revision 0002).
# Price band b holds prices in (edge[b-1], edge[b]] (band 0: free; last band: above the last edge);
# rating band k holds averages >= floor[k-1] and below the next floor (band 0: below 2).
PRICE_BAND_EDGES = (0, 1_000, 2_500, 5_000, 10_000)
RATING_BAND_FLOORS = (2.0, 3.0, 4.0, 5.0)


def price_band(cents: int) -> int:
    return sum(cents > edge for edge in PRICE_BAND_EDGES)


def rating_band(avg_rating: float) -> int:
    return sum(avg_rating >= floor for floor in RATING_BAND_FLOORS)


def _price_bands(low: int | None, high: int | None) -> tuple[int, ...]:
    """The bands that exactly tile the price range (low, high]."""
    edges = (None, *PRICE_BAND_EDGES, None)
    if low not in edges or high not in edges:
        raise ValueError(f"price range ({low}, {high}] does not fall on band edges")
    return tuple(
        b for b in range(len(PRICE_BAND_EDGES) + 1)
        if (low is None or (edges[b] is not None and edges[b] >= low))
        and (high is None or (edges[b + 1] is not None and edges[b + 1] <= high))
    )


def _rating_bands(minimum: float) -> tuple[int, ...]:
    if minimum not in RATING_BAND_FLOORS:
        raise ValueError(f"rating floor {minimum} is not a band floor")
    return tuple(k for k in range(1, len(RATING_BAND_FLOORS) + 1) if RATING_BAND_FLOORS[k - 1] >= minimum)


PRICE_FILTER_BANDS = {key: _price_bands(*bounds) for key, bounds in PRICE_RANGES.items()}
RATING_FILTER_BANDS = {m: _rating_bands(m) for m in RATING_MINIMUMS.values() if m is not None}
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


def _whole_number(name: str, value: int | str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if not re.fullmatch(r"-?\d{1,9}", text):
        raise InvalidParameter(f"{name} must be a whole number", field=name)
    return int(text)


class RawFilters(TypedDict, total=False):
    """The query-string values of `/api/agents`, as `parse_filters` takes them."""

    search: str | None
    category: str | int | None
    price: str | None
    rating: str | None
    sort: str | None
    tags: Sequence[str] | str | None
    featured: str | bool | None
    limit: int | str | None
    offset: int | str | None


def parse_filters(
    *,
    search: str | None = None,
    category: str | int | None = None,
    price: str | None = None,
    rating: str | None = None,
    sort: str | None = None,
    tags: Sequence[str] | str | None = None,
    featured: str | bool | None = None,
    limit: int | str | None = None,
    offset: int | str | None = None,
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

    limit = DEFAULT_LIMIT if limit is None or limit == "" else _whole_number("limit", limit)
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidParameter(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    offset = 0 if offset is None or offset == "" else _whole_number("offset", offset)
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


def _band_case(column: ColumnElement, bounds: Sequence[float], *, upper_inclusive: bool) -> ColumnElement:
    """SQL for `price_band` (bounds are inclusive upper edges) or `rating_band` (inclusive floors)."""
    if upper_inclusive:
        return case(*((column <= edge, b) for b, edge in enumerate(bounds)), else_=len(bounds))
    return case(*((column >= floor, k) for k, floor in reversed(list(enumerate(bounds, start=1)))), else_=0)


def rebuild_listing_counts(connection: Connection) -> None:
    """Recompute `agent_listing_counts` from agents (after a bulk load that bypassed triggers)."""
    cells = select(
        func.coalesce(AGENTS.c.category_id, 0).label("category_id"),
        _band_case(AGENTS.c.price_cents, PRICE_BAND_EDGES, upper_inclusive=True).label("price_band"),
        _band_case(AGENTS.c.avg_rating, RATING_BAND_FLOORS, upper_inclusive=False).label("rating_band"),
        AGENTS.c.is_featured,
    ).where(LIVE).subquery()
    connection.execute(COUNTS.delete())
    connection.execute(
        COUNTS.insert().from_select(
            ["category_id", "price_band", "rating_band", "is_featured", "live_count"],
            select(cells.c.category_id, cells.c.price_band, cells.c.rating_band, cells.c.is_featured, func.count())
            .group_by(cells.c.category_id, cells.c.price_band, cells.c.rating_band, cells.c.is_featured),
        )
    )


# ---- stats and categories ---------------------------------------------------------------------------


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
    return {k: int(v) for k, v in session.execute(stmt.group_by(COUNTS.c.category_id)).tuples()}


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


def _order_by(table: FromClause, sort: str, rank: ColumnElement | None) -> list[ColumnElement]:
    a = table.c
    if sort == "relevance" and rank is not None:
        return [rank.asc(), a.id.asc()]
    return {
        "popularity": [a.sales_count.desc(), a.id.desc()],
        "rating": [a.avg_rating.desc(), a.review_count.desc(), a.id.desc()],
        "price-low": [a.price_cents.asc(), a.id.asc()],
        "price-high": [a.price_cents.desc(), a.id.desc()],
    }.get(sort, [a.created_at.desc(), a.id.desc()])


@dataclass(frozen=True)
class _Shape:
    """Everything about a listing that changes its SQL; the rest (ids, slugs, tags, words, paging) is bound."""

    dialect: str
    category: str | None  # "id" | "slug" | None
    price: str | None  # a PRICE_RANGES key
    min_rating: float | None
    featured: bool
    tags: int
    search: str | None  # "one" (single word) | "many" | None
    sort: str


def _shape_of(filters: AgentFilters, dialect_name: str) -> _Shape:
    search = None if filters.search is None else ("many" if filters.search.head else "one")
    return _Shape(
        dialect=dialect_name,
        category=None if filters.category is None else ("id" if isinstance(filters.category, int) else "slug"),
        price=None if filters.price is None else _price_key(filters.price),
        min_rating=filters.min_rating,
        featured=filters.featured,
        tags=len(filters.tags),
        search=search,
        sort=filters.sort or ("relevance" if search else "newest"),
    )


def _bind_values(filters: AgentFilters, dialect_name: str) -> dict[str, Any]:
    values: dict[str, Any] = {"page_limit": filters.limit, "page_offset": filters.offset}
    if filters.category is not None:
        values["category_ref"] = filters.category
    values.update({f"tag_{n}": tag for n, tag in enumerate(filters.tags)})
    if filters.search is not None:
        values.update(fulltext.bind_values(filters.search, dialect_name))
    return values


def _category_id(shape: _Shape) -> ColumnElement | None:
    if shape.category == "id":
        return bindparam("category_ref", type_=Integer)
    if shape.category == "slug":
        ref = bindparam("category_ref", type_=String)
        return select(CATEGORIES.c.id).where(CATEGORIES.c.slug == ref).scalar_subquery()
    return None


def _unindexed(column: ColumnElement) -> ColumnElement:
    """`+column`: SQLite will not use an index for this term (its documented planner hint)."""
    return UnaryExpression(column, operator=custom_op("+"), type_=column.type)


def _conditions(
    table: FromClause, shape: _Shape, category_id: ColumnElement | None, *, probe: bool = False
) -> ColumnElement:
    """WHERE terms for a listing. On SQLite, filter columns other than the sort key are wrapped in
    `+` so its planner walks the index of the requested order (stopping after a page) instead of
    range-scanning a filter index and sorting tens of thousands of rows; `probe` (rows reached by
    primary key from search matches) keeps it off every index. PostgreSQL chooses well unaided."""
    a = table.c
    sqlite = shape.dialect == "sqlite"

    def col(name: str, *, sort_key: bool) -> ColumnElement:
        return _unindexed(a[name]) if sqlite and (probe or not sort_key) else a[name]

    live = and_(col("status", sort_key=True) == literal_column("'approved'"), a.deleted_at.is_(None))
    conds: list[ColumnElement] = [live]
    if category_id is not None:
        conds.append(col("category_id", sort_key=shape.sort == "newest") == category_id)
    if shape.price is not None:
        low, high = PRICE_RANGES[shape.price]
        price = col("price_cents", sort_key=shape.sort in ("price-low", "price-high"))
        if low is not None:
            conds.append(price > literal_column(str(int(low))))
        if high is not None:
            conds.append(price <= literal_column(str(int(high))))
    if shape.min_rating is not None:
        rating = col("avg_rating", sort_key=shape.sort == "rating")
        conds.append(rating >= literal_column(repr(float(shape.min_rating))))
    if shape.featured:
        conds.append(a.is_featured.is_(True))
    conds.extend(
        exists().where(TAGS.c.agent_id == a.id, TAGS.c.tag == bindparam(f"tag_{n}", type_=String))
        for n in range(shape.tags)
    )
    return and_(*conds)


def _total(shape: _Shape, category_id: ColumnElement | None) -> ColumnElement:
    """The number of matches on all pages of a listing without text search. Without tags it is a sum
    over `agent_listing_counts` (a few hundred rows at most); with tags a real count."""
    if not shape.tags:
        stmt = select(func.coalesce(func.sum(COUNTS.c.live_count), 0))
        if category_id is not None:
            stmt = stmt.where(COUNTS.c.category_id == category_id)
        if shape.price is not None:
            bands = PRICE_FILTER_BANDS[shape.price]
            stmt = stmt.where(COUNTS.c.price_band.in_([literal_column(str(b)) for b in bands]))
        if shape.min_rating is not None:
            floors = RATING_FILTER_BANDS[shape.min_rating]
            stmt = stmt.where(COUNTS.c.rating_band.in_([literal_column(str(b)) for b in floors]))
        if shape.featured:
            stmt = stmt.where(COUNTS.c.is_featured.is_(True))
        return stmt.scalar_subquery()
    counted = AGENTS.alias("counted")
    return select(func.count()).select_from(counted).where(_conditions(counted, shape, category_id)).scalar_subquery()


def _price_key(bounds: tuple[int | None, int | None]) -> str:
    return next(key for key, value in PRICE_RANGES.items() if value == bounds)


def _key(name: str) -> ColumnElement:
    return literal_column(f"'{name}'")  # fixed identifiers, inlined rather than bound


def _n(value: int) -> ColumnElement:
    return literal_column(str(int(value)), type_=Integer)


def _concat(*parts: ColumnElement | str) -> ColumnElement:
    expr = None
    for part in parts:
        item = _key(part) if isinstance(part, str) else part
        expr = item if expr is None else expr.op("||")(item)
    return expr


def _decimal_text(hundredths: ColumnElement, dialect_name: str) -> ColumnElement:
    """An integer number of hundredths as "12.34", like `price_string`."""
    if dialect_name == "postgresql":
        return func.to_char(hundredths / literal_column("100.0"), _key("FM9999999990.00"))
    return func.printf(_key("%d.%02d"), hundredths // _n(100), hundredths % _n(100))


def _timestamp_text(column: ColumnElement, dialect_name: str) -> ColumnElement:
    """An aware UTC time the way pydantic writes it: ISO 8601, "Z", microseconds only when not zero."""
    if dialect_name == "postgresql":
        text = func.to_char(func.timezone(_key("UTC"), column), _key('YYYY-MM-DD"T"HH24:MI:SS.US'))
    else:  # SQLAlchemy stores "YYYY-MM-DD HH:MM:SS.ffffff" (UTC) on SQLite
        text = func.replace(column, _key(" "), _key("T"))
    return _concat(func.replace(text, _key(".000000"), _key("")), "Z")


def _agent_json(dialect_name: str) -> ColumnElement:
    """The `AgentPublic` JSON of the row's agent (with its joined vendor and category), built by the
    database: a listing page then costs Python one text column per row instead of ~25 typed columns
    and three models. `tests/unit/test_listing_json.py` holds it equal to the pydantic rendering."""
    a, u, c = AGENTS.c, USERS.c, CATEGORIES.c
    pg = dialect_name == "postgresql"
    obj = func.json_build_object if pg else func.json_object

    def flag(condition: ColumnElement) -> ColumnElement:
        return condition if pg else func.json(case((condition, _key("true")), else_=_key("false")))

    def nested(present: ColumnElement, value: ColumnElement) -> ColumnElement:
        chosen = case((present, value), else_=null())
        return chosen if pg else func.json(chosen)

    if pg:
        tags = func.coalesce(
            select(func.json_agg(aggregate_order_by(TAGS.c.tag, TAGS.c.position, TAGS.c.tag)))
            .where(TAGS.c.agent_id == a.id)
            .scalar_subquery(),
            literal_column("'[]'::json"),
        )
    else:
        tags = func.json(literal_column(
            "(SELECT json_group_array(tag) FROM (SELECT t.tag AS tag FROM agent_tags AS t "
            "WHERE t.agent_id = agents.id ORDER BY t.position, t.tag))"
        ))
    hundredths = (a.rating_sum * _n(200) + a.review_count) // (a.review_count * _n(2))  # half up, like rating_string
    fields: dict[str, ColumnElement] = {
        "id": a.id,
        "name": a.name,
        "shortDescription": a.short_description,
        "description": a.description,
        "price": _decimal_text(a.price_cents, dialect_name),
        "imageUrl": a.image_url,
        "demoUrl": a.demo_url,
        "fileUrl": case(
            (exists().where(FILES.c.agent_id == a.id), _concat("/api/agents/", a.id, "/download")), else_=null()
        ),
        "tags": tags,
        "isFeatured": flag(a.is_featured.is_(True)),
        "isApproved": flag(a.status == literal_column("'approved'")),
        "status": a.status,
        "rejectionReason": a.rejection_reason,
        "avgRating": case((a.review_count > _n(0), _decimal_text(hundredths, dialect_name)), else_=_key("0.00")),
        "reviewCount": a.review_count,
        "vendorId": a.vendor_id,
        "vendor": nested(u.id.is_not(None), obj(_key("id"), u.id, _key("username"), u.username)),
        "categoryId": a.category_id,
        "category": nested(
            c.id.is_not(None), obj(_key("id"), c.id, _key("name"), c.name, _key("slug"), c.slug, _key("emoji"), c.emoji)
        ),
        "createdAt": _timestamp_text(a.created_at, dialect_name),
        "updatedAt": _timestamp_text(a.updated_at, dialect_name),
    }
    document = obj(*(part for name, value in fields.items() for part in (_key(name), value)))
    return cast(document, Text) if pg else document


def _details(total: ColumnElement, dialect_name: str) -> Select:
    """A listing row: the agent as JSON, and the total over all pages."""
    return select(_agent_json(dialect_name).label("doc"), total.label("total"))


def _with_vendor_and_category(source: FromClause) -> FromClause:
    a = AGENTS.c
    return source.outerjoin(USERS, USERS.c.id == a.vendor_id).outerjoin(CATEGORIES, CATEGORIES.c.id == a.category_id)


@lru_cache(maxsize=256)
def _listing_statement(shape: _Shape) -> tuple[Select, Select]:
    """The page query (with the total as a column) and the lone total query, built once per shape.

    Browsing walks a partial index in the requested order and stops after one page. Searching first
    ranks the matches with narrow rows (id and rank, joined with agents only when a filter or another
    order needs their columns), takes one page of ids, and only then loads the page's details."""
    category_id = _category_id(shape)
    # Inlined: PostgreSQL then plans LIMIT 24 as such and can keep one generic plan per statement.
    limit = bindparam("page_limit", type_=Integer, literal_execute=True)
    offset = bindparam("page_offset", type_=Integer, literal_execute=True)
    if shape.search is None:
        total = _total(shape, category_id)
        page = (
            _details(total, shape.dialect)
            .select_from(_with_vendor_and_category(AGENTS))
            .where(_conditions(AGENTS, shape, category_id))
            .order_by(*_order_by(AGENTS, shape.sort, None))
            .limit(limit)
            .offset(offset)
        )
        return page, select(total)

    found = fulltext.matches(shape.search == "many", shape.dialect)
    filtered = shape.category is not None or shape.price is not None or shape.min_rating is not None
    needs_agents = shape.dialect != "postgresql" or filtered or shape.featured or bool(shape.tags)
    needs_agents = needs_agents or shape.sort != "relevance"

    def hits(alias: str) -> tuple[FromClause, ColumnElement, list[ColumnElement]]:
        if not needs_agents:
            return found, true(), [found.c.rank.asc(), found.c.agent_id.asc()]
        hit = AGENTS.alias(alias)
        return (
            found.join(hit, hit.c.id == found.c.agent_id),
            _conditions(hit, shape, category_id, probe=True),
            _order_by(hit, shape.sort, found.c.rank),
        )

    source, where, order = hits("hit")
    page_ids = (
        select(found.c.agent_id, found.c.rank).select_from(source).where(where).order_by(*order)
        .limit(limit).offset(offset).subquery("page")
    )
    if needs_agents:  # a correlated EXISTS keeps the matches as the outer loop (SQLite would scan agents)
        counted = AGENTS.alias("counted")
        passes = exists().where(counted.c.id == found.c.agent_id, _conditions(counted, shape, category_id, probe=True))
        total = select(func.count()).select_from(found).where(passes).scalar_subquery()
    else:
        total = select(func.count()).select_from(found).scalar_subquery()
    page = (
        _details(total, shape.dialect)
        .select_from(_with_vendor_and_category(page_ids.join(AGENTS, AGENTS.c.id == page_ids.c.agent_id)))
        .order_by(*_order_by(AGENTS, shape.sort, page_ids.c.rank))
    )
    return page, select(total)


class _ListingCache:
    """Listing pages by (catalog version, filters), least recently used evicted first.

    `catalog_version` changes in the same commit as any data a listing shows or sorts by (triggers
    of revision 0004), and the version is learnt before the page is read (from the row, or on PostgreSQL
    from the listener of `catalog_version`): a page stored under a version is never older than that
    version. Per process; thread-safe."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[int, AgentFilters], AgentListing] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, AgentFilters]) -> AgentListing | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[int, AgentFilters], listing: AgentListing) -> None:
        with self._lock:
            if self._entries and next(reversed(self._entries))[0] < key[0]:
                self._entries.clear()  # the catalog changed: older pages can never be asked for again
            self._entries[key] = listing
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_cache = _ListingCache(settings.catalog_cache_entries)


@dataclass(frozen=True)
class AgentListing:
    """One page as JSON text (an array of `AgentPublic` objects, camelCase) and the total of all pages."""

    json: str
    total: int

    def page(self) -> AgentPage:
        return AgentPage(items=AGENT_LIST.validate_json(self.json), total=self.total)


AGENT_LIST = TypeAdapter(list[AgentPublic])


def search_agents_json(conn: Connection | Session, filters: AgentFilters) -> AgentListing:
    """One page of live agents for validated filters. A single statement returns the page (each agent
    with its vendor, category, tags and file URL, as JSON) and the total over all pages."""
    dialect_name = (conn.get_bind() if isinstance(conn, Session) else conn).dialect.name
    page, total_only = _listing_statement(_shape_of(filters, dialect_name))
    values = _bind_values(filters, dialect_name)
    rows = conn.execute(page, values).all()
    if not rows:
        # Past the last page (or nothing matched): the total still has to be told.
        count = 0 if filters.offset == 0 else conn.execute(total_only, values).scalar_one()
        return AgentListing(json="[]", total=int(count))
    return AgentListing(json="[" + ",".join(row[0] for row in rows) + "]", total=int(rows[0][1]))


def search_agents(conn: Connection | Session, filters: AgentFilters) -> AgentPage:
    return search_agents_json(conn, filters).page()


def list_agents_json(**raw: Unpack[RawFilters]) -> AgentListing:
    """Browse and search live agents. Default order: best match when searching, else newest first."""
    filters = parse_filters(**raw)
    engine = db.engine()
    caching = _cache.capacity > 0
    known = catalog_version.known(engine) if caching else None
    if known is not None and (hit := _cache.get((known, filters))) is not None:
        return hit  # no database work at all
    # Read-only: autocommit spares the BEGIN/COMMIT round trips; one statement sees one snapshot, so
    # the page and its total agree.
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        if not caching:
            return search_agents_json(conn, filters)
        # A page read after the version was learnt is at least that fresh, so it may be kept under it.
        version = known if known is not None else catalog_version.read(conn)
        cached = _cache.get((version, filters))
        if cached is None:
            cached = search_agents_json(conn, filters)
            _cache.put((version, filters), cached)
        return cached


def list_agents(**raw: Unpack[RawFilters]) -> AgentPage:
    """`list_agents_json` as models, for pages that work with Python objects."""
    return list_agents_json(**raw).page()


def visible_agent(session: Session, *, agent_id: str, actor: User | None) -> Agent:
    """The agent row if `actor` may see it, else NotFound (the same answer as for a missing agent)."""
    agent = session.get(Agent, agent_id) if agent_id and len(agent_id) <= 64 else None
    if agent is None or not can_see(agent, actor):
        raise NotFound("Agent not found")
    return agent


def has_mark(model: type[Favorite] | type[Report], *, actor: User | None, agent_id: str) -> bool:
    """Whether `actor` has a row of `model` (a favourite, a report) for an agent they may see. Signed-out
    callers get False, not 401: pages ask before they know who is signed in."""
    if actor is None:
        return False
    with session_scope() as session:
        agent = visible_agent(session, agent_id=agent_id, actor=actor)
        found = session.execute(select(model.id).where(model.user_id == actor.id, model.agent_id == agent.id)).first()
    return found is not None


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

