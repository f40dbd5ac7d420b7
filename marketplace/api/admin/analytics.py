"""Admin analytics: the cards and recent reports, the four rankings, and report status moves (admin only)."""

from __future__ import annotations

from fastapi import APIRouter, Query

from marketplace.api.deps import OptionalUser
from marketplace.models.admin_reads import (
    AdminReportPublic,
    AnalyticsPublic,
    ApprovalHistoryPublic,
    CustomerReportsPublic,
    MostBoughtPublic,
    MostSavedPublic,
    MostViewedPublic,
    QualitySummaryPublic,
    ReportStatusIn,
    TopCategoryPublic,
)
from marketplace.services import money
from marketplace.services.admin import analytics, reports

router = APIRouter(prefix="/api/admin", tags=["admin"])
_cents = money.format_cents


@router.get("/analytics", response_model=AnalyticsPublic)
def overview(user: OptionalUser) -> AnalyticsPublic:
    a = analytics.overview(actor=user)
    r = a.customer_reports
    return AnalyticsPublic(
        vendor_approval_history=ApprovalHistoryPublic.model_validate(a.vendor_approval_history),
        agent_quality_summary=QualitySummaryPublic.model_validate(a.agent_quality_summary),
        customer_reports=CustomerReportsPublic(
            pending=r.pending, reviewed=r.reviewed, resolved=r.resolved, total_reports=r.total_reports,
            recent_reports=[AdminReportPublic.model_validate(x) for x in r.recent_reports]),
    )


@router.get("/analytics/most-bought", response_model=list[MostBoughtPublic])
def most_bought(user: OptionalUser, limit: int = Query(5)) -> list[MostBoughtPublic]:
    return [MostBoughtPublic(agent_id=r.agent_id, agent_name=r.agent_name, agent_price=_cents(r.agent_price_cents),
                             purchase_count=r.purchase_count, pricing_model=r.pricing_model)
            for r in analytics.most_bought(actor=user, limit=limit)]


@router.get("/analytics/most-saved", response_model=list[MostSavedPublic])
def most_saved(user: OptionalUser, limit: int = Query(5)) -> list[MostSavedPublic]:
    return [MostSavedPublic(agent_id=r.agent_id, agent_name=r.agent_name, agent_price=_cents(r.agent_price_cents),
                            favorites_count=r.favorites_count, pricing_model=r.pricing_model)
            for r in analytics.most_saved(actor=user, limit=limit)]


@router.get("/analytics/most-viewed", response_model=list[MostViewedPublic])
def most_viewed(user: OptionalUser, limit: int = Query(5)) -> list[MostViewedPublic]:
    """Ranked by page views (distinct visitors per day); reviewCount as the spec's card shows it."""
    return [MostViewedPublic(id=r.id, name=r.name, price=_cents(r.price_cents), review_count=r.review_count,
                             view_count=r.view_count, pricing_model=r.pricing_model)
            for r in analytics.most_viewed(actor=user, limit=limit)]


@router.get("/analytics/top-category", response_model=list[TopCategoryPublic])
def top_category(user: OptionalUser, limit: int = Query(5)) -> list[TopCategoryPublic]:
    return [TopCategoryPublic.model_validate(r) for r in analytics.top_categories(actor=user, limit=limit)]


@router.put("/reports/{report_id}", response_model=AdminReportPublic)
def set_report_status(report_id: str, body: ReportStatusIn, user: OptionalUser) -> AdminReportPublic:
    """Move a customer report: pending -> reviewed -> resolved, or pending -> resolved (audit-logged)."""
    return AdminReportPublic.model_validate(reports.set_report_status(actor=user, report_id=report_id,
                                                                      status=body.status))
