"""The admin Stats tab: revenue and sales per day, new users and agents per week (UTC calendar).

Every bucket of the period is present, zeros included, so a chart needs no gap filling. Revenue is USD from
completed orders, read from `order_day_totals` (per-day sums kept by triggers, revision 0011), each (day,
currency, rate) group converted at its own rate as the sales summary does.
Weeks start on Monday; sign-ups count users and agents not deleted, by creation date.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Date, cast, func
from sqlalchemy import select as sql_select
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, OrderDayTotal, User
from marketplace.services.errors import InvalidParameter
from marketplace.services.permissions import require_admin
from marketplace.services.vendors.sales import to_usd

MAX_DAYS = 366
MAX_WEEKS = 104


@dataclass(frozen=True)
class DayPoint:
    day: date
    revenue_cents: int  # USD
    sales: int


@dataclass(frozen=True)
class WeekPoint:
    week_start: date  # a Monday
    users: int
    agents: int


def _day(session: Session, column: Any) -> Any:
    """The UTC day of a timestamp in SQL: a date on PostgreSQL, 'YYYY-MM-DD' text on SQLite (stored as UTC)."""
    if session.get_bind().dialect.name == "postgresql":
        return cast(func.timezone("UTC", column), Date)
    return func.date(column)


def _as_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def _today(now: datetime | None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


def _bounds(first: date, last: date) -> tuple[datetime, datetime]:
    return datetime.combine(first, time(), tzinfo=UTC), datetime.combine(last + timedelta(days=1), time(), tzinfo=UTC)


def daily_sales(*, actor: User | None, days: int = 30, now: datetime | None = None) -> list[DayPoint]:
    """The last `days` days up to today, oldest first."""
    require_admin(actor)
    if not 1 <= days <= MAX_DAYS:
        raise InvalidParameter(f"days must be between 1 and {MAX_DAYS}", field="days")
    today = _today(now)
    first = today - timedelta(days=days - 1)
    with session_scope() as session:
        t = OrderDayTotal
        rows = session.execute(
            sql_select(t.day, t.currency, t.exchange_rate, func.sum(t.sales), func.sum(t.total_amount_cents))
            .where(t.day >= first, t.day <= today).group_by(t.day, t.currency, t.exchange_rate)).all()
    buckets = {first + timedelta(days=n): [0, 0] for n in range(days)}
    for raw, currency, rate, count, total in rows:
        bucket = buckets.get(_as_date(raw))
        if bucket is not None:
            bucket[0] += to_usd(total or 0, currency, rate)
            bucket[1] += int(count or 0)
    return [DayPoint(day=d, revenue_cents=r, sales=s) for d, (r, s) in buckets.items()]


def _per_day(session: Session, model: Any, since: datetime, until: datetime) -> dict[date, int]:
    day = _day(session, model.created_at).label("day")
    rows = session.exec(select(day, func.count()).where(model.deleted_at.is_(None), model.created_at >= since,
                                                        model.created_at < until).group_by(day)).all()
    return {_as_date(raw): int(n) for raw, n in rows}


def weekly_signups(*, actor: User | None, weeks: int = 12, now: datetime | None = None) -> list[WeekPoint]:
    """The last `weeks` weeks (this one included, Monday first), oldest first."""
    require_admin(actor)
    if not 1 <= weeks <= MAX_WEEKS:
        raise InvalidParameter(f"weeks must be between 1 and {MAX_WEEKS}", field="weeks")
    today = _today(now)
    this_week = today - timedelta(days=today.weekday())
    first = this_week - timedelta(weeks=weeks - 1)
    since, until = _bounds(first, today)
    with session_scope() as session:
        users = _per_day(session, User, since, until)
        agents = _per_day(session, Agent, since, until)
    points = []
    for n in range(weeks):
        start = first + timedelta(weeks=n)
        days = [start + timedelta(days=k) for k in range(7)]
        points.append(WeekPoint(week_start=start, users=sum(users.get(d, 0) for d in days),
                                agents=sum(agents.get(d, 0) for d in days)))
    return points
