"""The Overview tab, and the sales summary with the inline commission-rate editor it shares with the Sales tab.

The rate shown is the service's own setting (services/platform.py, default 20%). The platform service validates
a new value (its message is the spec's 'Invalid value' text); the editor only appends the percent sign, as the
spec sends it, and reads the summary again after a change.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, ClassVar

import reflex as rx

from marketplace.models import PlatformSetting, User
from marketplace.services import money, platform
from marketplace.services.admin import sales as admin_sales
from marketplace.services.errors import Forbidden, Invalid, Unauthorized
from marketplace.state import blocking
from marketplace.state.admin.page import AdminState, AdminToast, admin_failed
from marketplace.state.service_calls import attempt

RATE_DESCRIPTION = "Platform commission rate on each sale"
COMMISSION_SAVED = ("Commission rate updated", "The commission rate has been successfully updated.")
INVALID_VALUE = ("Invalid value", "Please enter a valid number for commission rate")
COMMISSION_FAILED = ("Error", "Failed to update commission rate.")
SUMMARY_FAILED = "Failed to load the sales summary."


def is_number(text: str) -> bool:
    """What the page checks before sending a commission rate: non-empty and numeric (bounds are the server's)."""
    try:
        return float(text.strip()) == float(text.strip())  # NaN is not a number here
    except ValueError:
        return False


async def store_rate(actor: User | None, typed: str) -> tuple[PlatformSetting | None, Any]:
    """The one way the editors store a commission rate typed without '%': the stored setting and the success
    toast, or None and the toast saying why not. Signed out and not-admin are raised: each page has its way."""
    if not is_number(typed):
        return None, rx.toast.error(INVALID_VALUE[0], description=INVALID_VALUE[1])
    try:
        row = await blocking.run(platform.set_commission_rate, actor=actor, value=f"{typed.strip()}%",
                                 description=RATE_DESCRIPTION)
    except (Unauthorized, Forbidden):
        raise
    except Invalid as error:  # out of bounds, too many decimals: the service's message
        return None, rx.toast.error(INVALID_VALUE[0], description=error.message or INVALID_VALUE[1])
    except Exception as error:  # unexpected causes are logged by admin_failed
        return None, admin_failed(error, COMMISSION_FAILED[1])
    return row, rx.toast.success(COMMISSION_SAVED[0], description=COMMISSION_SAVED[1])


class SalesSummary(rx.State, mixin=True):
    loading: bool = True
    total_revenue: str = "$0.00"
    admin_commission: str = "$0.00"
    vendor_earnings: str = "$0.00"
    total_sales: str = "0"  # with thousands separators, like every figure
    active_subscriptions: str = "0"
    trialing_subscriptions: str = "0"  # free trials, not paying yet
    mrr: str = "$0.00"  # monthly recurring revenue, USD
    commission_rate: str = ""
    editing_rate: bool = False
    rate_draft: str = ""
    saving_rate: bool = False

    if TYPE_CHECKING:  # given by the admin page state (AdminState) the summary is mixed into

        async def viewer(self) -> User | None: ...

    _load_failed: ClassVar[str] = SUMMARY_FAILED

    def _show(self, summary: admin_sales.SalesSummary) -> None:
        self.total_revenue = money.format_amount(summary.total_revenue_cents, "usd")
        self.admin_commission = self.admin_earnings = money.format_amount(summary.admin_earnings_cents, "usd")
        self.vendor_earnings = money.format_amount(summary.vendor_earnings_cents, "usd")
        self.commission_rate = summary.commission_rate
        self.total_sales = f"{summary.total_sales:,}"
        self.active_subscriptions = f"{summary.active_subscriptions:,}"
        self.trialing_subscriptions = f"{summary.trialing_subscriptions:,}"
        self.mrr = money.format_amount(summary.mrr_cents, "usd")

    async def _read(self, user: User | None) -> None:
        """The summary (a tab with more to show reads that too)."""
        self._show(await blocking.run(admin_sales.summary, actor=user))

    @rx.event
    async def on_open(self) -> AsyncIterator[Any]:
        self.loading, self.editing_rate = True, False
        yield
        try:
            await self._read(await self.viewer())
        except Exception as error:
            yield admin_failed(error, self._load_failed)
        self.loading = False

    @rx.event
    def start_rate_edit(self) -> None:
        self.rate_draft = self.commission_rate.strip().rstrip("%").strip()
        self.editing_rate = True

    @rx.event
    def cancel_rate_edit(self) -> None:
        if not self.saving_rate:
            self.editing_rate = False
            self.rate_draft = ""

    @rx.event
    def set_rate_draft(self, value: str) -> None:
        self.rate_draft = value[:20]

    @rx.event
    async def save_rate(self, form: dict[str, Any] | None = None) -> AsyncIterator[Any]:
        if self.saving_rate:
            return
        self.rate_draft = str((form or {}).get("rate", self.rate_draft)).strip()
        self.saving_rate = True
        yield
        user = await self.viewer()
        try:
            stored, toast = await store_rate(user, self.rate_draft)
        except (Unauthorized, Forbidden) as error:
            stored, toast = None, admin_failed(error)
        self.saving_rate = False
        yield toast
        if stored is None:
            return
        self.editing_rate = False
        done = await attempt(AdminToast(SUMMARY_FAILED, unexpected=True), admin_sales.summary, actor=user)
        if done.failed:
            yield done.events
            return
        self._show(done.value)


class OverviewState(SalesSummary, AdminState):
    """The Overview tab: platform statistics from the sales summary (with the commission editor); the Pending
    Actions counts are the page state's."""
