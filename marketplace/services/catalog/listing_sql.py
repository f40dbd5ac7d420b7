"""The SQL of a listing page: one statement per shape of filters (built once, values bound), returning
the page's agents as `AgentPublic` JSON built by the database, and the total over all pages."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

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
from sqlalchemy.sql import ColumnElement, FromClause
from sqlalchemy.sql.expression import UnaryExpression
from sqlalchemy.sql.operators import custom_op

from marketplace.models import AgentFile, AgentTag, Category, User
from marketplace.services.catalog import search as fulltext
from marketplace.services.catalog.counts import COUNTS, PRICE_FILTER_BANDS, RATING_FILTER_BANDS
from marketplace.services.catalog.filters import PRICE_RANGES, AgentFilters
from marketplace.services.catalog.visibility import AGENTS

USERS = User.__table__
CATEGORIES = Category.__table__
TAGS = AgentTag.__table__
FILES = AgentFile.__table__


def _order_by(table: FromClause, sort: str, rank: ColumnElement | None,
              tie: ColumnElement | None = None) -> list[ColumnElement]:
    """The ORDER BY of a sort; relevance: `rank`, then `tie` (the search's tiebreak, see `search.tiebreak`)."""
    a = table.c
    if sort == "relevance" and rank is not None:
        return [rank.asc(), (a.id if tie is None else tie).asc()]
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
    search: str | None  # "one" (single word) | "terms" (one word, from the term table) | "many" | "typos" | None
    sort: str
    fuzzy: tuple[bool, ...] | None = None  # "typos": the typo branch, `Corrections.shape`


def shape_of(filters: AgentFilters, dialect_name: str, typos: fulltext.Corrections | None = None) -> _Shape:
    """The shape of the listing of `filters`; with `typos`, of its typo branch (the agents found only through the
    corrections, each page after the exact matches)."""
    search = None
    if typos is not None:
        search = "typos"
    elif filters.search is not None:
        one = "terms" if fulltext.by_terms(filters.search, dialect_name) else "one"
        search = "many" if filters.search.head else one
    return _Shape(
        dialect=dialect_name,
        category=None if filters.category is None else ("id" if isinstance(filters.category, int) else "slug"),
        price=None if filters.price is None else price_key(filters.price),
        min_rating=filters.min_rating,
        featured=filters.featured,
        tags=len(filters.tags),
        search=search,
        sort=filters.sort or ("relevance" if search else "newest"),
        fuzzy=None if typos is None else typos.shape,
    )


def base_shape(dialect_name: str, *, featured: bool, tags: int) -> _Shape:
    """The shape of a list filtered by featured and tags only (the facets add the others by themselves)."""
    return _Shape(dialect=dialect_name, category=None, price=None, min_rating=None, featured=featured, tags=tags,
                  search=None, sort="newest")


def bind_values(filters: AgentFilters, dialect_name: str, typos: fulltext.Corrections | None = None
                ) -> dict[str, Any]:
    values: dict[str, Any] = {"page_limit": filters.limit, "page_offset": filters.offset}
    if filters.category is not None:
        values["category_ref"] = filters.category
    values.update({f"tag_{n}": tag for n, tag in enumerate(filters.tags)})
    if typos is not None:
        values.update(fulltext.fuzzy_bind_values(typos, dialect_name, only=True))
    elif filters.search is not None:
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


def filter_conditions(
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
    return (select(func.count()).select_from(counted).where(filter_conditions(counted, shape, category_id))
            .scalar_subquery())


def price_key(bounds: tuple[int | None, int | None]) -> str:
    return next(key for key, value in PRICE_RANGES.items() if value == bounds)


def _key(name: str) -> ColumnElement:
    return literal_column(f"'{name}'")  # fixed identifiers, inlined rather than bound


def _n(value: int) -> ColumnElement:
    return literal_column(str(int(value)), type_=Integer)


def _concat(first: ColumnElement | str, *parts: ColumnElement | str) -> ColumnElement:
    expr = _key(first) if isinstance(first, str) else first
    for part in parts:
        expr = expr.op("||")(_key(part) if isinstance(part, str) else part)
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
        tags: ColumnElement[Any] = func.coalesce(
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
        "pricingModel": a.pricing_model,
        "trialDays": a.trial_days,
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
        "scannedAt": null(),  # a scan's date is the agent page's alone (GET /api/agents/{id})
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
def listing_statement(shape: _Shape) -> tuple[Select, Select]:
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
            .where(filter_conditions(AGENTS, shape, category_id))
            .order_by(*_order_by(AGENTS, shape.sort, None))
            .limit(limit)
            .offset(offset)
        )
        return page, select(total)

    # Both dialects' matches are live agents only, so agents are joined only for a filter or another order.
    filtered = shape.category is not None or shape.price is not None or shape.min_rating is not None
    needs_agents = filtered or shape.featured or bool(shape.tags) or shape.sort != "relevance"
    terms = shape.search == "terms"
    sqlite = shape.dialect == "sqlite"
    has_head = shape.search == "many" or (shape.fuzzy is not None and len(shape.fuzzy) > 1)
    found = fulltext.matches(has_head, shape.dialect, terms=terms, page=(terms or sqlite) and not needs_agents,
                             fuzzy=shape.fuzzy, only=True)
    tie = fulltext.tiebreak(found, shape.dialect)

    def hits(alias: str) -> tuple[FromClause, ColumnElement, list[ColumnElement]]:
        if not needs_agents:
            return found, true(), [found.c.rank.asc(), tie.asc()]
        hit = AGENTS.alias(alias)
        return (
            found.join(hit, hit.c.id == found.c.agent_id),
            filter_conditions(hit, shape, category_id, probe=True),
            _order_by(hit, shape.sort, found.c.rank, tie),
        )

    source, where, order = hits("hit")
    page_ids = (
        select(found.c.agent_id, found.c.rank, tie.label("tie")).select_from(source).where(where).order_by(*order)
        .limit(limit).offset(offset).subquery("page")
    )
    if needs_agents:  # a correlated EXISTS keeps the matches as the outer loop (SQLite would scan agents)
        counted = AGENTS.alias("counted")
        passes = exists().where(counted.c.id == found.c.agent_id,
                                filter_conditions(counted, shape, category_id, probe=True))
        total = select(func.count()).select_from(found).where(passes).scalar_subquery()
    elif terms:  # the page's rows only; every row carries the number of all matches
        total = select(func.coalesce(func.max(found.c.matched), 0)).scalar_subquery()
    elif sqlite:  # the page's rows only; the FTS index (live documents) counts the matches
        total = fulltext.match_count(shape.dialect)
    else:
        total = select(func.count()).select_from(found).scalar_subquery()
    page = (
        _details(total, shape.dialect)
        .select_from(_with_vendor_and_category(page_ids.join(AGENTS, AGENTS.c.id == page_ids.c.agent_id)))
        .order_by(*_order_by(AGENTS, shape.sort, page_ids.c.rank, page_ids.c.tie))
    )
    return page, select(total)


@lru_cache(maxsize=4)
def live_agent_statement(dialect_name: str) -> Select:
    """One live agent's `AgentPublic` JSON (bound `agent_id`), the same document a listing page holds:
    one statement instead of the ORM row and four batch queries."""
    return (
        select(_agent_json(dialect_name).label("doc"))
        .select_from(_with_vendor_and_category(AGENTS))
        .where(AGENTS.c.id == bindparam("agent_id", type_=String), filter_conditions(AGENTS, _LIVE_ONLY[dialect_name],
                                                                                 None, probe=True))
    )


_LIVE_ONLY = {
    name: _Shape(dialect=name, category=None, price=None, min_rating=None, featured=False, tags=0, search=None,
                 sort="newest")
    for name in ("postgresql", "sqlite")
}
