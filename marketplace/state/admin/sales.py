"""The Sales & Commissions tab: the sales summary, split analytics, the commission editor and the newest
commission entries (10, then a line counting the rest)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.services import money
from marketplace.services.admin import sales as admin_sales
from marketplace.state.admin.commission import DEFAULT_RATE, CommissionEditor
from marketplace.state.admin.page import AdminState, admin_failed
from marketplace.state.display import format_day_time, time_zone

RECENT_COMMISSIONS = 10  # spec section 9


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


def _commission_view(row: admin_sales.CommissionRow, zone: ZoneInfo) -> CommissionView:
    split = row.commission_split_enabled
    """The split is labelled with the order's own snapshotted rate (80/20 at the default 20%)."""
    return CommissionView(
        order_id=row.order_id, agent=row.agent_name, sale_amount=money.format_amount(row.sale_amount_cents, "usd"),
        split=split, payment_type=f"Split ({money.split_label(row.commission_rate)})" if split else "Direct",
        commission=money.format_amount(row.commission_amount_cents, "usd"),
        vendor_payout=money.format_amount(row.vendor_amount_cents, "usd") if split else "N/A",
        customer=row.customer_email or "", date=format_day_time(row.created_at, zone),
    )


class SalesState(CommissionEditor, AdminState):
    loading: bool = True
    total_revenue: str = "$0.00"
    your_commission: str = "$0.00"
    vendor_earnings: str = "$0.00"
    total_sales: int = 0
    split_rate: str = "N/A"
    split_payments: int = 0
    direct_payments: int = 0
    vendor_payouts: str = "$0.00"
    commissions: list[CommissionView] = []
    commissions_total: int = 0

    @rx.var
    def more_commissions(self) -> int:
        return max(0, self.commissions_total - len(self.commissions))

    def _reload_summary(self) -> None:
        summary = admin_sales.summary(actor=self.current_user())
        self.total_revenue = money.format_amount(summary.total_revenue_cents, "usd")
        self.your_commission = money.format_amount(summary.admin_earnings_cents, "usd")
        self.admin_earnings = self.your_commission
        self.vendor_earnings = money.format_amount(summary.vendor_earnings_cents, "usd")
        self.commission_rate = summary.commission_rate or DEFAULT_RATE
        self.total_sales = summary.total_sales
        rate = summary.commission_split_rate
        self.split_rate = "N/A" if rate is None else f"{rate:.1f}%"
        self.split_payments = summary.split_payments
        self.direct_payments = summary.direct_payments
        self.vendor_payouts = money.format_amount(summary.total_vendor_payouts_cents, "usd")

    def _load_commissions(self) -> None:
        zone = time_zone(self.time_zone)
        rows, self.commissions_total = admin_sales.list_commissions(actor=self.current_user(),
                                                                    limit=RECENT_COMMISSIONS)
        self.commissions = [_commission_view(row, zone) for row in rows]

    @rx.event
    def on_open(self) -> Iterator[Any]:
        self.loading = True
        self.editing_rate = False
        yield
        try:
            self._reload_summary()
            self._load_commissions()
        except Exception as error:
            self.loading = False
            yield admin_failed(error, "Failed to load sales and commissions.")
            return
        self.loading = False
