"""The Sales & Commissions tab: the sales summary, split analytics, the commission editor and the newest
commission entries (10, then a line counting the rest)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services import money, pricing
from marketplace.services.admin import sales as admin_sales
from marketplace.services.plans.revenue import PlanRevenue
from marketplace.state import blocking
from marketplace.state.admin.commission import SalesSummary
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day_time, time_zone

RECENT_COMMISSIONS = 10  # spec section 9


@dataclass
class PlanRevenueView:
    name: str = ""
    revenue: str = ""
    vendors: str = ""  # '2 vendors now'


def plan_revenue_view(row: PlanRevenue) -> PlanRevenueView:
    return PlanRevenueView(name=row.plan_name, revenue=money.format_amount(row.revenue_cents, "usd"),
                           vendors=f"{row.vendors:,} {'vendor' if row.vendors == 1 else 'vendors'} now")


@dataclass
class CommissionView:
    order_id: str = ""
    agent: str = ""
    sale_amount: str = ""
    split: bool = False
    payment_type: str = ""
    commission: str = ""
    vendor_payout: str = ""
    customer: str = ""
    date: str = ""
    day: str = ""  # the date's two lines in the table: 'Jan 5, 2025'
    time: str = ""  # '3:04 PM'
    kind: str = ""  # Purchase | Subscription | Renewal
    refunded: bool = False  # given back: shown, not summed
    discount: str = ""  # 'Code SPRING: -$7.50' (in the currency charged), '' without a code


def _commission_view(row: admin_sales.CommissionRow, zone: ZoneInfo) -> CommissionView:
    """The split is labelled with the order's own snapshotted rate (80/20 at the default 20%); a code's line is
    worded as the buyer's Orders and the vendor's sales word it."""
    split = row.commission_split_enabled
    date = format_day_time(row.created_at, zone)
    day, _, time = date.partition(" • ")
    return CommissionView(
        order_id=row.order_id, agent=row.agent_name, sale_amount=money.format_amount(row.sale_amount_cents, "usd"),
        split=split, payment_type=f"Split ({money.split_label(row.commission_rate)})" if split else "Direct",
        commission=money.format_amount(row.commission_amount_cents, "usd"),
        vendor_payout=money.format_amount(row.vendor_amount_cents, "usd") if split else "N/A",
        customer=row.customer_email or "", date=date, day=day, time=time, kind=row.kind_label,
        refunded=row.refunded,
        discount=pricing.code_discount_line(code=row.promotion_code, discount=row.discount_cents,
                                            currency=row.currency),
    )


class SalesState(SalesSummary, AdminState):
    split_rate: str = "N/A"
    split_payments: str = "0"
    direct_payments: str = "0"
    vendor_payouts: str = "$0.00"
    plan_revenue: str = "$0.00"  # what vendors paid for their plans
    plan_revenues: list[PlanRevenueView] = []  # per paid plan
    commissions: list[CommissionView] = []
    commissions_total: int = 0

    _load_failed: ClassVar[str] = "Failed to load sales and commissions."

    @rx.var
    def more_commissions(self) -> int:
        return max(0, self.commissions_total - len(self.commissions))

    def _show(self, summary: admin_sales.SalesSummary) -> None:
        super()._show(summary)
        rate = summary.commission_split_rate
        self.split_rate = "N/A" if rate is None else f"{rate:.1f}%"
        self.split_payments = f"{summary.split_payments:,}"
        self.direct_payments = f"{summary.direct_payments:,}"
        self.vendor_payouts = money.format_amount(summary.total_vendor_payouts_cents, "usd")
        self.plan_revenue = money.format_amount(summary.plan_revenue_cents, "usd")
        self.plan_revenues = [plan_revenue_view(row) for row in summary.plan_revenue]

    async def _read(self, user: User | None) -> None:
        await super()._read(user)
        rows, self.commissions_total = await blocking.run(admin_sales.list_commissions, actor=user,
                                                          limit=RECENT_COMMISSIONS)
        zone = time_zone(self.time_zone)
        self.commissions = [_commission_view(row, zone) for row in rows]
