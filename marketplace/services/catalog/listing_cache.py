"""The per-process cache of listing pages, keyed by catalog version and filters."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from marketplace.config import settings


class ListingCache:
    """Listing pages by (catalog version, filters), least recently used evicted first.

    `catalog_version` changes in the same commit as any data a listing shows or sorts by (triggers
    of revision 0004), and the version is learnt before the page is read (from the row, or on PostgreSQL
    from the listener of `catalog_version`): a page stored under a version is never older than that
    version. Per process; thread-safe. Also holds the small public reads of `reads.py` (its own instance),
    keyed by (catalog version, what was read)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[int, Hashable], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, Hashable]) -> Any:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[int, Hashable], listing: Any) -> None:
        with self._lock:
            if self._entries and next(reversed(self._entries))[0] < key[0]:
                self._entries.clear()  # the catalog changed: older pages can never be asked for again
            self._entries[key] = listing
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


cache = ListingCache(settings.catalog_cache_entries)
