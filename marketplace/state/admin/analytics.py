"""The Analytics tab: approval history, agent quality, customer reports (moving them along) and four rankings.

Everything comes from services/admin/analytics.py and services/admin/reports.py; this state only turns the
figures into text and the links each ranking item opens.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import reflex as rx

from marketplace.models import User
from marketplace.services import money
from marketplace.services.admin import analytics
from marketplace.state.admin.page import AdminState, AdminToast
from marketplace.state.admin.reports import RESOLVE, REVIEW, report_type
from marketplace.state.display import format_day, time_zone
from marketplace.state.service_calls import attempt

RANKING = 5
REPORT_MOVES = {"reviewed": REVIEW, "resolved": RESOLVE}


@dataclass
class ReportCard:
    id: str
    type: str
    reason: str
    description: str
    date: str
    agent_id: str
    agent_name: str


@dataclass
class RankItem:
    rank: int
    name: str
    detail: str  # price, or the category's emoji
    count: str  # '3 sales', '2 saves', '4 reviews', '7 agents'
    extra: str  # most viewed: '120 views'
    href: str


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _agent_href(agent_id: str) -> str:
    return f"/agents/{agent_id}"


def _category_href(slug: str) -> str:
    """The category's address as the catalogue writes it (pages/categories.py): by slug, not by id."""
    return f"/agents?{urlencode({'category': slug})}"


def _figures(user: User | None) -> tuple[analytics.Analytics, list, list, list, list]:
    return (analytics.overview(actor=user), analytics.most_bought(actor=user, limit=RANKING),
            analytics.most_saved(actor=user, limit=RANKING), analytics.most_viewed(actor=user, limit=RANKING),
            analytics.top_categories(actor=user, limit=RANKING))


class AnalyticsState(AdminState):
    loading: bool = True
    # vendor applications
    applications_pending: int = 0
    applications_approved: int = 0
    applications_rejected: int = 0
    applications_total: int = 0
    # agent quality
    agents_total: int = 0
    agents_pending: int = 0
    agents_approved: int = 0
    average_rating: str = "0.0"
    rated_agents: int = 0
    # customer reports
    reports_pending: int = 0
    reports_reviewed: int = 0
    reports_resolved: int = 0
    reports_total: int = 0
    recent_reports: list[ReportCard] = []
    # rankings
    most_bought: list[RankItem] = []
    most_saved: list[RankItem] = []
    most_viewed: list[RankItem] = []
    top_categories: list[RankItem] = []
    busy: str = ""  # report being moved

    @rx.event
    async def on_open(self) -> AsyncIterator[Any]:
        """The tab opened: read the figures."""
        self.loading = True
        yield
        yield await self._refresh()

    async def _refresh(self) -> Any:
        done = await attempt(AdminToast(), _figures, await self.viewer())
        if done.failed:
            self.loading = False
            return done.events
        overview, bought, saved, viewed, categories = done.value
        self._show_overview(overview)
        self.most_bought = [
            RankItem(rank=n, name=r.agent_name, detail=money.price_label(r.agent_price_cents,
                                                                              pricing_model=r.pricing_model),
                     count=_count(r.purchase_count, "sale", "sales"), extra="", href=_agent_href(r.agent_id))
            for n, r in enumerate(bought, 1)]
        self.most_saved = [
            RankItem(rank=n, name=r.agent_name, detail=money.price_label(r.agent_price_cents,
                                                                              pricing_model=r.pricing_model),
                     count=_count(r.favorites_count, "save", "saves"), extra="", href=_agent_href(r.agent_id))
            for n, r in enumerate(saved, 1)]
        self.most_viewed = [
            RankItem(rank=n, name=r.name, detail=money.price_label(r.price_cents, pricing_model=r.pricing_model),
                     count=_count(r.review_count, "review", "reviews"), extra=_count(r.view_count, "view", "views"),
                     href=_agent_href(r.id))
            for n, r in enumerate(viewed, 1)]
        self.top_categories = [
            RankItem(rank=n, name=r.category_name, detail=r.category_emoji or "📁",
                     count=_count(r.agent_count, "agent", "agents"), extra="", href=_category_href(r.category_slug))
            for n, r in enumerate(categories, 1)]
        self.loading = False
        return None

    def _show_overview(self, overview: analytics.Analytics) -> None:
        history, quality, customer = (overview.vendor_approval_history, overview.agent_quality_summary,
                                      overview.customer_reports)
        self.applications_pending = history.pending
        self.applications_approved = history.approved
        self.applications_rejected = history.rejected
        self.applications_total = history.total_applications
        self.agents_total = quality.total_agents
        self.agents_pending = quality.pending_approval
        self.agents_approved = quality.approved
        self.average_rating = f"{float(quality.average_rating or 0):.1f}"
        self.rated_agents = quality.rated_agents
        self.reports_pending = customer.pending
        self.reports_reviewed = customer.reviewed
        self.reports_resolved = customer.resolved
        self.reports_total = customer.total_reports
        zone = time_zone(self.time_zone)
        self.recent_reports = [
            ReportCard(id=str(r.id), type=report_type(r.report_type), reason=r.reason or "",
                       description=r.description or "", date=format_day(r.created_at, zone),
                       agent_id=r.agent_id or "", agent_name=r.agent_name or "")
            for r in customer.recent_reports]

    @rx.event
    async def set_report_status(self, report_id: str, status: str) -> AsyncIterator[Any]:
        """Mark Reviewed / Resolve, the Reports tab's actions: the service decides which moves are allowed."""
        action = REPORT_MOVES.get(status)
        if self.busy or action is None:
            return
        self.busy = report_id
        yield
        # a refusal shows its reason; anything else is logged
        done = await attempt(AdminToast(action.failure, unexpected=True), action.service, actor=await self.viewer(),
                             report_id=report_id)
        self.busy = ""
        if done.failed:
            yield done.events
            return
        yield rx.toast(action.success[0], description=action.success[1])
        await self.refresh_counts_quietly()
        yield await self._refresh()
