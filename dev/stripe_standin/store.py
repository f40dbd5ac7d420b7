"""localstripe's store, made to keep up: indexed by object type, written to the state file in the background.

localstripe keeps every object in one dict keyed `"<object>:<id>"`, pickles the whole dict to disk on every
insertion, and answers every list by scanning all keys. Under many buyers at once that was the stand-in's
bottleneck (two thirds of its time went to pickling). Here:

- the same dict gains an index by object type, so lists and balances read only their own kind;
- writes only mark the store dirty; one background task pickles it (on the event loop, so the snapshot is
  consistent: no handler runs half-way through it) and writes the file in a worker thread, atomically
  (temporary file + rename), at most every `interval` seconds and never more than ~10% of the loop's time;
- the state file is also written when the server stops (SIGTERM/SIGINT): a crash loses at most the last
  `interval` seconds of changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from localstripe import resources as ls

log = logging.getLogger("stripe_standin")


def _kind(key: str) -> str:
    return key.split(":", 1)[0]


class IndexedStore(ls.Store):
    """localstripe's Store plus an index by object type (`of("invoice")`) and a dirty flag for persistence.

    Events are kept like Stripe keeps them for a while, not forever: beyond `MAX_EVENTS` the oldest go (they
    were most of what a long demo session's state file held, and of what each save pickled)."""

    MAX_EVENTS = 10_000
    _index: dict[str, dict[str, Any]]
    _dirty: bool

    def _reindex(self) -> None:
        self._index = {}
        for key, value in dict.items(self):
            self._index.setdefault(_kind(key), {})[key] = value

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        kind = _kind(key)
        same = self._index.setdefault(kind, {})
        same[key] = value
        self._dirty = True
        if kind == "event" and len(same) > self.MAX_EVENTS:
            oldest = next(iter(same))
            del same[oldest]
            dict.pop(self, oldest, None)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self._index.get(_kind(key), {}).pop(key, None)
        self._dirty = True

    def pop(self, key: str, *default: Any) -> Any:
        self._index.get(_kind(key), {}).pop(key, None)
        self._dirty = True
        return dict.pop(self, key, *default)

    def clear(self) -> None:
        dict.clear(self)
        self._index = {}
        self._dirty = True

    def replace_all(self, objects: dict[str, Any]) -> None:
        dict.clear(self)
        dict.update(self, objects)
        self._reindex()

    def of(self, kind: str) -> Iterator[Any]:
        """Every stored object of one type (`"subscription"`), in insertion order."""
        return iter(list(self._index.get(kind, {}).values()))

    def mark_dirty(self) -> None:
        self._dirty = True

    # localstripe calls these; persistence is the Persistence task's job.
    def dump_to_disk(self) -> None:
        self._dirty = True

    def try_load_from_disk(self) -> None:
        pass


def install() -> IndexedStore:
    """Turn localstripe's module-level store into an IndexedStore in place (every module keeps its reference)."""
    store = ls.store
    if not isinstance(store, IndexedStore):
        store.__class__ = IndexedStore
        store._dirty = False
        store._reindex()
    return store  # type: ignore[return-value]


def _list_all(cls: type, url: str, limit: Any = None, starting_after: Any = None, **kwargs: Any) -> Any:
    """localstripe's base list, reading the type index instead of scanning every key."""
    if kwargs:
        raise ls.UserError(400, "Unexpected " + ", ".join(kwargs.keys()))
    li = ls.List(url, limit=limit, starting_after=starting_after)
    li._list = list(ls.store.of(cls.object))  # type: ignore[attr-defined]
    return li


def patch_lists() -> None:
    ls.StripeObject._api_list_all = classmethod(_list_all)  # type: ignore[assignment]


class Persistence:
    """Writes the store to `path` in the background when it changed (see the module docstring)."""

    def __init__(self, path: Path | None, interval: float = 0.5) -> None:
        self.path = path
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._last_cost = 0.0

    def load(self) -> None:
        store = install()
        if self.path is not None and self.path.is_file():
            with self.path.open("rb") as f:
                store.replace_all(pickle.load(f))
        store._dirty = False

    def _snapshot(self) -> bytes:
        started = time.perf_counter()
        ls.store._dirty = False  # type: ignore[attr-defined]
        data = pickle.dumps(dict(ls.store), protocol=pickle.HIGHEST_PROTOCOL)
        self._last_cost = time.perf_counter() - started
        return data

    def _write(self, data: bytes) -> None:
        assert self.path is not None
        tmp = self.path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(self.path)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            # Pickling runs on the loop: keep it under ~10% of the loop's time as the store grows.
            await asyncio.sleep(max(self.interval, self._last_cost * 10))
            if ls.store._dirty:  # type: ignore[attr-defined]
                data = self._snapshot()
                try:
                    await loop.run_in_executor(None, self._write, data)
                except OSError as exc:
                    log.warning("could not write the state file: %s", exc)
                    ls.store.mark_dirty()  # type: ignore[attr-defined]

    def flush(self) -> None:
        """Write now if anything changed (on shutdown)."""
        if self.path is not None and ls.store._dirty:  # type: ignore[attr-defined]
            self._write(self._snapshot())

    async def start(self, _app: Any = None) -> None:
        if self.path is not None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self, _app: Any = None) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.flush()
