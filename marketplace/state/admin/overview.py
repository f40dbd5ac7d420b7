"""The Overview tab: platform statistics from the sales summary (with the commission editor); the Pending
Actions counts come from the page state, which keeps them current."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import reflex as rx

from marketplace.services import money
from marketplace.services.admin import sales as admin_sales
from marketplace.state.admin.commission import DEFAULT_RATE, CommissionEditor
from marketplace.state.admin.page import AdminState, admin_failed


class OverviewState(CommissionEditor, AdminState):
    loading: bool = True
    total_revenue: str = "$0.00"
    admin_commission: str = "$0.00"
    vendor_earnings: str = "$0.00"
    total_sales: int = 0

    def _reload_summary(self) -> None:
        summary = admin_sales.summary(actor=self.current_user())
        self.total_revenue = money.format_amount(summary.total_revenue_cents, "usd")
        self.admin_commission = money.format_amount(summary.admin_earnings_cents, "usd")
        self.admin_earnings = self.admin_commission
        self.vendor_earnings = money.format_amount(summary.vendor_earnings_cents, "usd")
        self.commission_rate = summary.commission_rate or DEFAULT_RATE
        self.total_sales = summary.total_sales

    @rx.event
    def on_open(self) -> Iterator[Any]:
        self.loading = True
        self.editing_rate = False
        yield
        try:
            self._reload_summary()
        except Exception as error:
            self.loading = False
            yield admin_failed(error, "Failed to load the sales summary.")
            return
        self.loading = False
