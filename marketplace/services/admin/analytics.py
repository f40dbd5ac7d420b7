"""Admin analytics: application, agent-quality and report counts, recent reports, and the four rankings.

Rankings list live agents only (they open the public /agents/{id}) and only those with at least one
purchase, save or view; each is an index read: purchases rank by `agents.sales_count` (kept by checkout
completion), saves by `favorites_count` (kept by the favourites service), views by `view_count` (distinct
visitors per day, services/views.py), categories by the live counts kept in `agent_listing_counts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func
from sqlalchemy import select as sql_select
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentStatus, ApplicationStatus, Category, Report, ReportStatus, User
from marketplace.models import VendorApplication as Application
from marketplace.services.admin import moderation
from marketplace.services.catalog.counts import COUNTS
from marketplace.services.errors import InvalidParameter
from marketplace.services.permissions import require_admin

RECENT_REPORTS = 10
MAX_RANK = 50


@dataclass(frozen=True)
class ApprovalHistory:
    pending: int
    approved: int
    rejected: int
    total_applications: int


@dataclass(frozen=True)
class QualitySummary:
    total_agents: int  # not deleted, any status
    pending_approval: int  # new agents in the review queue (moderation.awaits_review: a fileless one is not)
    approved: int
    average_rating: float  # mean of the rated agents' averages, 2 decimals; 0 when none is rated
    rated_agents: int


@dataclass(frozen=True)
class ReportRow:
    id: str
    report_type: str
    reason: str
    description: str | None
    status: str
    created_at: datetime
    agent_id: str
    agent_name: str


@dataclass(frozen=True)
class ReportCounts:
    pending: int
    reviewed: int
    resolved: int
    total_reports: int
    recent_reports: list[ReportRow]  # pending ones, newest first, at most RECENT_REPORTS


@dataclass(frozen=True)
class Analytics:
    vendor_approval_history: ApprovalHistory
    agent_quality_summary: QualitySummary
    customer_reports: ReportCounts


@dataclass(frozen=True)
class BoughtRow:
    agent_id: str
    agent_name: str
    agent_price_cents: int
    purchase_count: int
    pricing_model: str = "monthly"


@dataclass(frozen=True)
class SavedRow:
    agent_id: str
    agent_name: str
    agent_price_cents: int
    favorites_count: int
    pricing_model: str = "monthly"


@dataclass(frozen=True)
class ViewedRow:
    id: str
    name: str
    price_cents: int
    review_count: int
    view_count: int
    pricing_model: str = "monthly"


@dataclass(frozen=True)
class CategoryRow:
    category_id: int
    category_name: str
    category_emoji: str
    category_slug: str  # its address in the catalogue (/agents?category={slug})
    agent_count: int  # live agents


def report_row(report: Report, agent_name: str) -> ReportRow:
    return ReportRow(id=report.id, report_type=report.report_type, reason=report.reason,
                     description=report.description, status=report.status, created_at=report.created_at,
                     agent_id=report.agent_id, agent_name=agent_name)


def _by_status(session: Session, status_column: Any) -> dict[str, int]:
    return {s: int(n) for s, n in session.exec(select(status_column, func.count()).group_by(status_column)).all()}


def _quality(session: Session) -> QualitySummary:
    rated = Agent.review_count > 0
    rows = session.exec(select(Agent.status, func.count(), func.sum(case((rated, 1), else_=0)),
                               func.sum(case((rated, Agent.avg_rating), else_=0.0)))
                        .where(Agent.deleted_at.is_(None)).group_by(Agent.status)).all()
    counts = {status: int(n) for status, n, _, _ in rows}
    rated_count = sum(int(r or 0) for _, _, r, _ in rows)
    rating_sum = sum(float(s or 0) for _, _, _, s in rows)
    return QualitySummary(
        total_agents=sum(counts.values()),
        pending_approval=session.exec(select(func.count()).select_from(Agent)
                                      .where(moderation.awaits_review())).one(),
        approved=counts.get(AgentStatus.APPROVED, 0), rated_agents=rated_count,
        average_rating=round(rating_sum / rated_count, 2) if rated_count else 0.0,
    )


def overview(*, actor: User | None) -> Analytics:
    """The three analytics cards and the pending reports list: a few grouped counts, whatever the size."""
    require_admin(actor)
    with session_scope() as session:
        applications = _by_status(session, Application.status)
        quality = _quality(session)
        reports = _by_status(session, Report.status)
        recent = session.exec(select(Report, Agent.name).join(Agent, Agent.id == Report.agent_id)
                              .where(Report.status == ReportStatus.PENDING)
                              .order_by(Report.created_at.desc(), Report.id.desc()).limit(RECENT_REPORTS)).all()
    return Analytics(
        vendor_approval_history=ApprovalHistory(
            pending=applications.get(ApplicationStatus.PENDING, 0),
            approved=applications.get(ApplicationStatus.APPROVED, 0),
            rejected=applications.get(ApplicationStatus.REJECTED, 0),
            total_applications=sum(applications.values())),
        agent_quality_summary=quality,
        customer_reports=ReportCounts(
            pending=reports.get(ReportStatus.PENDING, 0), reviewed=reports.get(ReportStatus.REVIEWED, 0),
            resolved=reports.get(ReportStatus.RESOLVED, 0), total_reports=sum(reports.values()),
            recent_reports=[report_row(r, name) for r, name in recent]),
    )


def _check(actor: User | None, limit: int) -> None:
    require_admin(actor)
    if not 1 <= limit <= MAX_RANK:
        raise InvalidParameter(f"limit must be between 1 and {MAX_RANK}", field="limit")


def _top(column: Any, limit: int) -> list[tuple[str, str, int, int, int, str]]:
    """Live agents with `column` > 0, highest first (ids break ties): the partial ix_agents_pub_* indexes."""
    live = (Agent.status == AgentStatus.APPROVED, Agent.deleted_at.is_(None))
    with session_scope() as session:
        return list(session.execute(
            sql_select(Agent.id, Agent.name, Agent.price_cents, Agent.review_count, column, Agent.pricing_model)
            .where(*live, column > 0).order_by(column.desc(), Agent.id.desc()).limit(limit)).all())


def most_bought(*, actor: User | None, limit: int = 5) -> list[BoughtRow]:
    _check(actor, limit)
    return [BoughtRow(i, n, p, c, m) for i, n, p, _, c, m in _top(Agent.sales_count, limit)]


def most_saved(*, actor: User | None, limit: int = 5) -> list[SavedRow]:
    _check(actor, limit)
    return [SavedRow(i, n, p, c, m) for i, n, p, _, c, m in _top(Agent.favorites_count, limit)]


def most_viewed(*, actor: User | None, limit: int = 5) -> list[ViewedRow]:
    _check(actor, limit)
    return [ViewedRow(i, n, p, r, c, m) for i, n, p, r, c, m in _top(Agent.view_count, limit)]


def top_categories(*, actor: User | None, limit: int = 5) -> list[CategoryRow]:
    """Categories by number of live agents, most first; empty categories are left out."""
    _check(actor, limit)
    live = func.sum(COUNTS.c.live_count).label("live")
    with session_scope() as session:
        rows = session.execute(
            sql_select(Category.id, Category.name, Category.emoji, Category.slug, live)
            .join(COUNTS, COUNTS.c.category_id == Category.id)
            .group_by(Category.id, Category.name, Category.emoji, Category.slug).having(live > 0)
            .order_by(live.desc(), Category.name, Category.id).limit(limit)).all()
    return [CategoryRow(category_id=i, category_name=n, category_emoji=e or "", category_slug=s, agent_count=int(c))
            for i, n, e, s, c in rows]
