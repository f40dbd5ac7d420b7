"""Facet counts of the agents list: for each category, price filter and rating filter, how many live agents the
list would hold if that option were picked, the other filters staying as they are.

The rule: each facet ignores its own filter (a user sees what picking another category, price or rating would
give), and obeys every other one (search, tags, featured and the other two facets). An agent without a category
counts in no category. The counts come from cells `(category, price band, rating band) -> agents`: without search
or tags a sum over `agent_listing_counts` (a few hundred rows, kept by revision 0004's triggers), else the matching
agents grouped in one statement (a search with typos counts the typo matches too, as its list shows them); each
facet is then a sum of cells. Answers are cached per catalog version like the other catalogue reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Unpack

from sqlalchemy import String, bindparam, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import FromClause

from marketplace.models import AgentFacets
from marketplace.services.catalog import reads
from marketplace.services.catalog import search as fulltext
from marketplace.services.catalog.counts import (
    COUNTS,
    PRICE_FILTER_BANDS,
    RATING_FILTER_BANDS,
    price_band_sql,
    rating_band_sql,
)
from marketplace.services.catalog.filters import (
    PRICE_RANGES,
    RATING_FILTERS,
    RATING_MINIMUMS,
    AgentFilters,
    RawFilters,
    parse_filters,
)
from marketplace.services.catalog.listing_sql import CATEGORIES, TAGS, base_shape, filter_conditions, price_key
from marketplace.services.catalog.visibility import AGENTS


@dataclass(frozen=True)
class _Cell:
    category_id: int | None
    price_band: int
    rating_band: int
    count: int


def _cells_from_counts(conn: Connection, filters: AgentFilters) -> list[_Cell]:
    c = COUNTS.c
    stmt = select(c.category_id, c.price_band, c.rating_band, func.sum(c.live_count))
    if filters.featured:
        stmt = stmt.where(c.is_featured.is_(True))
    rows = conn.execute(stmt.group_by(c.category_id, c.price_band, c.rating_band))
    return [_Cell(cat or None, price, rating, int(n)) for cat, price, rating, n in rows]


def _cells_from_agents(conn: Connection, filters: AgentFilters) -> list[_Cell]:
    """The live agents passing search, tags and featured, grouped into cells."""
    dialect_name = conn.dialect.name
    shape = base_shape(dialect_name, featured=filters.featured, tags=len(filters.tags))
    agent = AGENTS.alias("agent")
    source: FromClause = agent
    values = {f"tag_{n}": tag for n, tag in enumerate(filters.tags)}
    if filters.search is not None:
        typos = fulltext.corrections(conn, filters.search) or fulltext.Corrections(
            filters.search, ((),) * len(filters.search.words))
        found = fulltext.matches(len(typos.shape) > 1, dialect_name, ranked=False, fuzzy=typos.shape)
        source = found.join(agent, agent.c.id == found.c.agent_id)
        values.update(fulltext.fuzzy_bind_values(typos, dialect_name, only=False))
    else:  # tags: the agents holding the first one (an index range), not every agent probed for it
        tagged = select(TAGS.c.agent_id).where(TAGS.c.tag == bindparam("tag_0", type_=String)).subquery("tagged")
        source = tagged.join(agent, agent.c.id == tagged.c.agent_id)
    cells = select(agent.c.category_id.label("category_id"),
                   price_band_sql(agent.c.price_cents).label("price_band"),
                   rating_band_sql(agent.c.avg_rating).label("rating_band")
                   ).select_from(source).where(filter_conditions(agent, shape, None, probe=True)).subquery("cells")
    rows = conn.execute(select(cells.c.category_id, cells.c.price_band, cells.c.rating_band, func.count())
                        .group_by(cells.c.category_id, cells.c.price_band, cells.c.rating_band), values)
    return [_Cell(cat, price, rating, int(n)) for cat, price, rating, n in rows]


def _facets(conn: Connection, filters: AgentFilters) -> str:
    categories = conn.execute(select(CATEGORIES.c.id, CATEGORIES.c.slug)
                              .order_by(CATEGORIES.c.sort_order, CATEGORIES.c.name, CATEGORIES.c.id)).all()
    by_slug = {slug: id_ for id_, slug in categories}
    wanted = by_slug.get(filters.category, 0) if isinstance(filters.category, str) else filters.category
    cells = (_cells_from_agents if filters.search is not None or filters.tags else _cells_from_counts)(conn, filters)
    price_bands = None if filters.price is None else PRICE_FILTER_BANDS[price_key(filters.price)]
    rating_bands = None if filters.min_rating is None else RATING_FILTER_BANDS[filters.min_rating]

    def total(*, category: bool = True, price: bool = True, rating: bool = True) -> dict[tuple[str, object], int]:
        """Counts by each option of the facet whose own filter is off (`category`/`price`/`rating` False)."""
        counts: dict[tuple[str, object], int] = {}
        for cell in cells:
            if ((category and wanted is not None and cell.category_id != wanted)
                    or (price and price_bands is not None and cell.price_band not in price_bands)
                    or (rating and rating_bands is not None and cell.rating_band not in rating_bands)):
                continue
            if not category:
                counts[("category", cell.category_id)] = counts.get(("category", cell.category_id), 0) + cell.count
            if not price:
                for key, bands in PRICE_FILTER_BANDS.items():
                    if cell.price_band in bands:
                        counts[("price", key)] = counts.get(("price", key), 0) + cell.count
            if not rating:
                for key in RATING_FILTERS:
                    minimum = RATING_MINIMUMS[key]
                    if minimum is not None and cell.rating_band in RATING_FILTER_BANDS[minimum]:
                        counts[("rating", key)] = counts.get(("rating", key), 0) + cell.count
        return counts

    by_category, by_price, by_rating = total(category=False), total(price=False), total(rating=False)
    return json.dumps({
        "categories": [{"id": id_, "slug": slug, "count": by_category.get(("category", id_), 0)}
                       for id_, slug in categories],
        "prices": [{"value": key, "count": by_price.get(("price", key), 0)} for key in PRICE_RANGES],
        "ratings": [{"value": key, "count": by_rating.get(("rating", key), 0)} for key in RATING_FILTERS],
    }, separators=(",", ":"))


def agent_facets_json(**raw: Unpack[RawFilters]) -> str:
    """The facet counts (`AgentFacets` as JSON) of the list `list_agents` gives for the same values; its paging and
    order do not change them. A bad value raises `InvalidParameter` (422) like the list."""
    filters = replace(parse_filters(**raw), sort=None, limit=0, offset=0)
    answer = reads.cached(("facets", filters), lambda conn: _facets(conn, filters))
    assert answer is not None
    return answer


def agent_facets(**raw: Unpack[RawFilters]) -> AgentFacets:
    return AgentFacets.model_validate_json(agent_facets_json(**raw))

