"""The Stats tab: revenue and sales per day over 30 days, new users and agents per week over 12 weeks.

services/admin/stats.py answers every day and week (zeros included); this state only shapes the points for
the charts (dollars as floats, for drawing only) and sums them for the headline figures.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import reflex as rx

from marketplace.models import User
from marketplace.services import money
from marketplace.services.admin import stats
from marketplace.state.admin.page import AdminState, AdminToast
from marketplace.state.service_calls import attempt

DAYS = 30
WEEKS = 12


def _series(user: User | None) -> tuple[list[stats.DayPoint], list[stats.WeekPoint]]:
    """Both charts' series: sales by day and sign-ups by week."""
    return stats.daily_sales(actor=user, days=DAYS), stats.weekly_signups(actor=user, weeks=WEEKS)


def _day_label(day: date) -> str:
    return f"{day:%b} {day.day}"


class StatsState(AdminState):
    loading: bool = True
    daily: list[dict[str, Any]] = []
    weekly: list[dict[str, Any]] = []
    revenue: str = "$0.00"
    sales: int = 0
    new_users: int = 0
    new_agents: int = 0
    has_sales: bool = False
    has_signups: bool = False

    @rx.event
    async def on_open(self) -> AsyncIterator[Any]:
        """The tab opened: read both series."""
        self.loading = True
        yield
        user = await self.viewer()
        done = await attempt(AdminToast(), _series, user)
        if done.failed:
            self.loading = False
            yield done.events
            return
        days, weeks = done.value
        self.daily = [{"label": _day_label(p.day), "revenue": p.revenue_cents / 100, "sales": p.sales} for p in days]
        self.weekly = [{"label": f"Week of {_day_label(p.week_start)}", "short": _day_label(p.week_start),
                        "users": p.users, "agents": p.agents} for p in weeks]
        revenue_cents = sum(p.revenue_cents for p in days)
        self.revenue = money.format_amount(revenue_cents, "usd")
        self.sales = sum(p.sales for p in days)
        self.new_users = sum(p.users for p in weeks)
        self.new_agents = sum(p.agents for p in weeks)
        self.has_sales = self.sales > 0 or revenue_cents > 0
        self.has_signups = self.new_users > 0 or self.new_agents > 0
        self.loading = False
