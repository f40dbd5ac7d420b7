"""Rate limits: at most `limit` counted requests per key in a sliding window, counted in the database (every
worker sees the same count). Used per client address for registration, reviews, reports and password-reset
requests; the limits are settings (`RATE_LIMIT_*`), so tests and deployments can change them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any, TypeVar, cast

from sqlalchemy import BigInteger, Integer, String, and_, bindparam, case, delete, func, literal, or_, union_all
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import CursorResult, Result
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Executable
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import BindParameter, ColumnElement
from sqlalchemy.sql.selectable import CTE, Exists, FromClause, Subquery
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import RateLimitCounter, RateLimitHit
from marketplace.models.base import utcnow
from marketplace.services.errors import TooManyRequests

MAX_KEY = 255
DEADLOCK = "40P01"  # PostgreSQL's SQLSTATE for a deadlock it broke by failing one of the transactions
COUNTING_ATTEMPTS = 3
T = TypeVar("T")
KEEP = timedelta(days=1)  # purge: no window is longer


def hit(*, key: str, limit: int, window_seconds: int, message: str | None = None) -> None:
    """Count one request under `key`; `TooManyRequests` (429, with Retry-After) once more than `limit` fall in the
    last `window_seconds`. The hit is written (and committed) before counting, so concurrent requests in several
    workers cannot all slip under the limit; a refused request counts too. `limit <= 0` turns the limit off."""
    if limit <= 0:
        return
    key = key[:MAX_KEY]
    now = utcnow()
    since = now - timedelta(seconds=window_seconds)
    with session_scope() as session:
        session.exec(delete(RateLimitHit).where(RateLimitHit.key == key, RateLimitHit.created_at < since))
        session.add(RateLimitHit(key=key, created_at=now))
    with session_scope() as session:
        count, oldest = session.exec(
            select(func.count(), func.min(RateLimitHit.created_at)).where(
                RateLimitHit.key == key, RateLimitHit.created_at >= since)
        ).one()
    if count > limit:
        wait = max(1, math.ceil(window_seconds - (now - oldest).total_seconds())) if oldest else window_seconds
        minutes = max(1, math.ceil(wait / 60))
        raise TooManyRequests(message or f"Too many requests. Please try again in {minutes} minute"
                              f"{'s' if minutes != 1 else ''}.", retry_after=wait)


def hit_per_address(*, action: str, address: str | None, limit: int) -> None:
    """`hit` for one action (`register`, `review`, ...) from one client address, in the shared window setting.
    No address (an internal call, not a client's request) is not limited."""
    if address:
        hit(key=f"{action}:{address}", limit=limit, window_seconds=settings.rate_limit_window_minutes * 60)


def _upsert(dialect: str, key: ColumnElement[str], window: ColumnElement[int], cap: ColumnElement[int],
            *where: ColumnElement[bool]) -> Insert:
    """Count one request under `key` (when every `where` holds), unless the key is at `cap` (`<= 0`: none): the
    row's own latest count decides, so even requests that race to create the row never pass `cap`."""
    counter = RateLimitCounter.__table__
    upsert = sqlite_insert if dialect == "sqlite" else postgresql_insert
    statement = upsert(counter).from_select(["key", "window_start", "count"],
                                            select(key, window, literal(1, Integer)).where(*where))
    same_window = counter.c.window_start == statement.excluded.window_start
    return statement.on_conflict_do_update(
        index_elements=[counter.c.key],
        set_={"count": case((same_window, counter.c.count + 1), else_=1),
              "window_start": statement.excluded.window_start},
        where=or_(cap <= 0, ~same_window, counter.c.count < cap),
    )


def counting(dialect: str, slots: int) -> Executable:
    """The statement that counts one request under `slots` keys (`rl_key_<n>`, each with its limit `rl_limit_<n>`,
    `<= 0` for none) in the fixed window starting at `rl_window` (seconds since the epoch) only when every key is
    under its limit: all counted, or none (a refused request is never counted). `counted` says how many keys it
    counted: fewer than `slots` means refused (`Window.refuse_unless`). One row per key, moved on by one upsert:
    the cost does not grow with the traffic (as `hit`'s rows do), for a public API called many times a second.
    A fixed window lets up to twice the limit through across a window's edge, which these limits allow for.

    Exact under concurrency. SQLite: one upsert of every key, which holds the database's one writer lock from its
    start, so its check reads the latest counts; no RETURNING (its row count is the keys counted), so in
    autocommit it locks, checks, counts and commits within one call into SQLite. PostgreSQL (`counted_rows`):
    the keys' rows are locked (`FOR UPDATE`) and checked, then each key's upsert runs only when the previous
    key's counted, and each upsert re-checks its own row's latest count; so when requests race to create a key's
    row, the refused ones count under no later key (put the key most likely to be new first). Built once per
    dialect and slot count (`counting_statement`)."""
    if dialect != "sqlite":
        rows = counted_rows(slots)
        return select(rows.c.key, rows.c.count)
    counter = RateLimitCounter.__table__
    names, caps, window = _bound(slots)
    # No CTE: SQLite's driver gives the row count only of a statement that starts with INSERT.
    limits = union_all(*(select(names[n].label("key")) for n in range(slots))).subquery("rl_limits")
    return _upsert(dialect, limits.c.key, window, case(*((counter.c.key == names[n], caps[n]) for n in range(slots))),
                   ~_over(counter, names, caps, window))


def _bound(slots: int) -> tuple[list[BindParameter[str]], list[BindParameter[int]], BindParameter[int]]:
    """The bound keys, their limits and the window (`Window.params`)."""
    return ([bindparam(f"rl_key_{n}", type_=String) for n in range(slots)],
            [bindparam(f"rl_limit_{n}", type_=Integer) for n in range(slots)], bindparam("rl_window", type_=BigInteger))


def _over(rows: FromClause, names: list[BindParameter[str]], caps: list[BindParameter[int]],
          window: BindParameter[int]) -> Exists:
    """'One of the keys is at its limit in this window', read from the counters' `rows`."""
    return select(rows.c.key).where(rows.c.window_start == window, or_(*(
        and_(rows.c.key == names[n], caps[n] > 0, rows.c.count >= caps[n]) for n in range(len(names))))).exists()


def counted_rows(slots: int) -> Subquery:
    """PostgreSQL: the rows `counting` counted (`key`, `count`), as a subquery another statement can select from
    (the licence API's validate reads its key in the same statement)."""
    counter = RateLimitCounter.__table__
    names, caps, window = _bound(slots)
    held = select(counter.c.key, counter.c.window_start, counter.c.count).where(
        counter.c.key.in_(names)).order_by(counter.c.key).with_for_update().cte("rl_held")  # locked in key order
    over = _over(held, names, caps, window)
    steps: list[CTE] = []
    for n in range(slots):
        after = [select(steps[-1].c.key).exists()] if steps else []
        step = _upsert("postgresql", names[n], window, caps[n], ~over, *after).returning(counter.c.key, counter.c.count)
        steps.append(step.cte(f"rl_counted_{n}"))
    return union_all(*(select(step.c.key, step.c.count) for step in steps)).subquery("rl_counted")


@lru_cache(maxsize=8)
def counting_statement(dialect: str, slots: int) -> Executable:
    return counting(dialect, slots)


def counted(dialect: str, result: Result[Any]) -> int:
    """How many keys a `counting` statement counted (its row count on SQLite, its rows on PostgreSQL)."""
    return cast(CursorResult[Any], result).rowcount if dialect == "sqlite" else len(result.all())


@dataclass(frozen=True)
class Window:
    """One request's counters: the keys (cut to the column's length) and limits, and the window it falls in."""

    limits: tuple[tuple[str, int], ...]
    window_seconds: int
    now: float

    @property
    def start(self) -> int:
        return int(self.now) // self.window_seconds * self.window_seconds

    def params(self) -> dict[str, object]:
        """The bound values of `counting(_, len(self.limits))`."""
        values: dict[str, object] = {"rl_window": self.start}
        for n, (key, limit) in enumerate(self.limits):
            values[f"rl_key_{n}"] = key
            values[f"rl_limit_{n}"] = limit
        return values

    def refuse_unless(self, counted: int, message: str) -> None:
        """`TooManyRequests` (429, Retry-After: the window's end) unless every key was counted."""
        if counted < len(self.limits):
            raise TooManyRequests(message, retry_after=max(1, math.ceil(self.start + self.window_seconds - self.now)))


def window(*, limits: Sequence[tuple[str, int]], window_seconds: int) -> Window:
    """The counters of one request now, under distinct keys."""
    return Window(limits=tuple((key[:MAX_KEY], limit) for key, limit in limits), window_seconds=window_seconds,
                  now=utcnow().timestamp())


def retry_deadlocks(count: Callable[[], T]) -> T:
    """`count()` again when PostgreSQL broke a deadlock by failing it. Counting locks the keys' existing rows first
    and creates the missing ones after, so two requests that race to create a window's rows can lock the same two
    rows in opposite orders; PostgreSQL fails one of them (after `deadlock_timeout`), whose retry then finds every
    row there and locks them in key order. `count` must have undone its own work when it fails (its own statement in
    autocommit, or a savepoint)."""
    for attempt in range(COUNTING_ATTEMPTS):
        try:
            return count()
        except DBAPIError as error:
            if getattr(error.orig, "sqlstate", None) != DEADLOCK or attempt == COUNTING_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # the loop returns or raises


def hit_counters(session: Session, *, limits: Sequence[tuple[str, int]], window_seconds: int, message: str) -> None:
    """Count one request under each `(key, limit)` (distinct keys), all or none (`counting`), in the caller's
    transaction; `TooManyRequests` when any key is at its limit."""
    request = window(limits=limits, window_seconds=window_seconds)
    dialect = session.get_bind().dialect.name
    statement = counting_statement(dialect, len(request.limits))
    if dialect == "sqlite":  # one writer: no deadlock
        request.refuse_unless(counted(dialect, session.execute(statement, request.params())), message)
        return

    def count() -> int:
        with session.begin_nested():  # a deadlock undoes this statement only, and its locks
            return counted(dialect, session.execute(statement, request.params()))

    request.refuse_unless(retry_deadlocks(count), message)


def purge() -> None:
    """Housekeeping on start: drop hits and counters older than any window."""
    with session_scope() as session:
        session.exec(delete(RateLimitHit).where(RateLimitHit.created_at < utcnow() - KEEP))
        session.exec(delete(RateLimitCounter).where(
            RateLimitCounter.window_start < (utcnow() - KEEP).timestamp()))
