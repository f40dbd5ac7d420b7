"""Small public reads cached per process under the catalog version, like listing pages: one live agent, an agent's
reviews, the categories and the stats.

Each is the same for every caller (a live agent is public, and nothing in these answers depends on who asks), so
the answer is kept as JSON text under `(catalog_version, key)`. The version is learnt before the data is read, so
a value stored under a version is never older than it; the version moves in the same commit as anything these
answers show (revisions 0004 and 0014), and every process learns it from the database itself (the row on SQLite,
LISTEN/NOTIFY on PostgreSQL, `version.py`): no other channel is needed when several processes serve the app.
`CATALOG_CACHE_ENTRIES=0` turns this cache off with the listing cache.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from sqlalchemy.engine import Connection

from marketplace import db
from marketplace.config import settings
from marketplace.services.catalog import version as catalog_version
from marketplace.services.catalog.listing_cache import ListingCache

T = TypeVar("T")
ENTRIES_PER_LISTING_ENTRY = 8  # small answers (an agent is ~2 KB), and one per agent page visited

cache = ListingCache(settings.catalog_cache_entries * ENTRIES_PER_LISTING_ENTRY)


def cached(key: Hashable, compute: Callable[[Connection], T | None]) -> T | None:
    """`compute(conn)` (an autocommit connection), or its answer kept under the current catalog version. A None
    answer (not found, not public) is not kept: callers then take their slower, caller-specific path."""
    engine = db.engine()
    if cache.capacity <= 0:
        with engine.connect() as conn:
            return compute(conn.execution_options(isolation_level="AUTOCOMMIT"))
    known = catalog_version.known(engine)
    if known is not None and (hit := cache.get((known, key))) is not None:
        return hit  # no database work at all
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        version = known if known is not None else catalog_version.read(conn)
        hit = cache.get((version, key))
        if hit is None:
            hit = compute(conn)
            if hit is not None:
                cache.put((version, key), hit)
        return hit
