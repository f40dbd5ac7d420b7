"""Admin sales: summary, commission entries (paged) and CSV exports; per-day sales and weekly sign-ups."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser
from marketplace.api.exports import csv_download
from marketplace.models.admin_reads import CommissionPublic, DayPointPublic, SalesSummaryPublic, WeekPointPublic
from marketplace.services import money
from marketplace.services.admin import sales, stats

router = APIRouter(prefix="/api/admin", tags=["admin"])

COMMISSIONS = TypeAdapter(list[CommissionPublic])
_cents = money.format_cents


@router.get("/sales", response_model=SalesSummaryPublic)
def summary(user: OptionalUser) -> SalesSummaryPublic:
    """Completed sales in USD (EUR orders at their own rate); commissionRate is today's setting; active
    subscriptions and their monthly recurring revenue in USD; planRevenue: what vendors paid for their plans."""
    s = sales.summary(actor=user)
    return SalesSummaryPublic(
        total_revenue=_cents(s.total_revenue_cents), admin_earnings=_cents(s.admin_earnings_cents),
        vendor_earnings=_cents(s.vendor_earnings_cents), commission_rate=s.commission_rate,
        total_sales=s.total_sales, commission_split_rate=s.commission_split_rate, split_payments=s.split_payments,
        direct_payments=s.direct_payments, total_vendor_payouts=_cents(s.total_vendor_payouts_cents),
        active_subscriptions=s.active_subscriptions, monthly_recurring_revenue=_cents(s.mrr_cents),
        trialing_subscriptions=s.trialing_subscriptions, plan_revenue=_cents(s.plan_revenue_cents),
    )


def _commission(r: sales.CommissionRow) -> CommissionPublic:
    return CommissionPublic(
        order_id=r.order_id, agent_name=r.agent_name, sale_amount=_cents(r.sale_amount_cents),
        commission_split_enabled=r.commission_split_enabled, commission_amount=_cents(r.commission_amount_cents),
        vendor_amount=_cents(r.vendor_amount_cents), customer_email=r.customer_email, created_at=r.created_at,
        currency=r.currency, charged_amount=_cents(r.charged_amount_cents),
        commission_rate=money.format_percent(r.commission_rate), kind=r.kind, status=r.status,
        promotion_code=r.promotion_code, discount_amount=_cents(r.discount_cents),
    )


@router.get("/commissions", response_model=list[CommissionPublic], responses=total_answer("entries"))
def commissions(user: OptionalUser, limit: int = Query(10), offset: int = Query(0),
                search: str | None = Query(None)) -> Response:
    """Completed and refunded sales newest first with the commission on each (`kind`, `status`); `search`
    matches agent or customer e-mail."""
    rows, total = sales.list_commissions(actor=user, limit=limit, offset=offset, search=search)
    return json_list([_commission(r) for r in rows], COMMISSIONS, total)


@router.get("/commissions.csv", response_class=StreamingResponse)
def commissions_csv(user: OptionalUser) -> StreamingResponse:
    """Every commission entry, the JSON's fields and values."""
    return csv_download(sales.commissions_csv(actor=user), "commissions.csv")


@router.get("/sales.csv", response_class=StreamingResponse)
def sales_csv(user: OptionalUser) -> StreamingResponse:
    """Every completed sale with its full snapshot (vendor, currency, rate, USD amounts, split or direct)."""
    return csv_download(sales.sales_csv(actor=user), "sales.csv")


@router.get("/stats/daily", response_model=list[DayPointPublic])
def daily(user: OptionalUser, days: int = Query(30)) -> list[DayPointPublic]:
    """Revenue (USD) and sales per UTC day, oldest first, every day present."""
    return [DayPointPublic(date=p.day, revenue=_cents(p.revenue_cents), sales=p.sales)
            for p in stats.daily_sales(actor=user, days=days)]


@router.get("/stats/weekly", response_model=list[WeekPointPublic])
def weekly(user: OptionalUser, weeks: int = Query(12)) -> list[WeekPointPublic]:
    """New users and agents per week (Monday first), oldest first, every week present."""
    return [WeekPointPublic(week_start=p.week_start, users=p.users, agents=p.agents)
            for p in stats.weekly_signups(actor=user, weeks=weeks)]
