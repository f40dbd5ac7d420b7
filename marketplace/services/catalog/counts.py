"""Price and rating bands, and `agent_listing_counts`: live agents counted per (category, price band,
rating band, featured), kept current by the triggers of revision 0004, so that a listing's total without
text search or tags is a sum over a few hundred rows."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from sqlalchemy import case, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import ColumnElement

from marketplace.models import AgentListingCount
from marketplace.services.catalog.filters import PRICE_RANGES, RATING_MINIMUMS
from marketplace.services.catalog.visibility import AGENTS, LIVE

COUNTS = AgentListingCount.__table__


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
    bands = []
    for band, (lower, upper) in enumerate(pairwise(edges)):
        if ((low is None or (lower is not None and lower >= low))
                and (high is None or (upper is not None and upper <= high))):
            bands.append(band)
    return tuple(bands)


def _rating_bands(minimum: float) -> tuple[int, ...]:
    if minimum not in RATING_BAND_FLOORS:
        raise ValueError(f"rating floor {minimum} is not a band floor")
    return tuple(k for k in range(1, len(RATING_BAND_FLOORS) + 1) if RATING_BAND_FLOORS[k - 1] >= minimum)


PRICE_FILTER_BANDS = {key: _price_bands(*bounds) for key, bounds in PRICE_RANGES.items()}
RATING_FILTER_BANDS = {m: _rating_bands(m) for m in RATING_MINIMUMS.values() if m is not None}


def _band_case(column: ColumnElement, bounds: Sequence[float], *, upper_inclusive: bool) -> ColumnElement:
    """SQL for `price_band` (bounds are inclusive upper edges) or `rating_band` (inclusive floors)."""
    if upper_inclusive:
        return case(*((column <= edge, b) for b, edge in enumerate(bounds)), else_=len(bounds))
    return case(*((column >= floor, k) for k, floor in reversed(list(enumerate(bounds, start=1)))), else_=0)


def price_band_sql(column: ColumnElement) -> ColumnElement:
    """`price_band` in SQL."""
    return _band_case(column, PRICE_BAND_EDGES, upper_inclusive=True)


def rating_band_sql(column: ColumnElement) -> ColumnElement:
    """`rating_band` in SQL."""
    return _band_case(column, RATING_BAND_FLOORS, upper_inclusive=False)


def rebuild_listing_counts(connection: Connection) -> None:
    """Recompute `agent_listing_counts` from agents (after a bulk load that bypassed triggers)."""
    cells = select(
        func.coalesce(AGENTS.c.category_id, 0).label("category_id"),
        price_band_sql(AGENTS.c.price_cents).label("price_band"),
        rating_band_sql(AGENTS.c.avg_rating).label("rating_band"),
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
