"""The Orders tab's 'Request refund': the dialog asking why, the 30-day money-back guarantee, and the outcome
(refunded at once, or sent to an admin for review). The rule is services/refunds; this only shows its answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import reflex as rx

from marketplace.services import refunds
from marketplace.state.dashboard import DashboardState
from marketplace.state.service_calls import Toast, attempt

GUARANTEE_TEXT, MAX_REASON = refunds.GUARANTEE_TEXT, refunds.MAX_REASON  # what the dialog shows and allows
REFUNDED = ("Order refunded", "The money reaches your card within 5-10 business days. Your access to {name} has "
            "ended.")
REQUESTED = ("Refund requested", "Your refund request has been sent to an admin for review.")


class OrderRefundState(DashboardState):
    """One dialog at a time: the order it was opened for, the typed reason, and the reason's refusal."""

    refund_open: bool = False
    refund_order_id: str = ""
    refund_order_number: str = ""
    refund_agent_name: str = ""
    refund_total: str = ""
    refund_reason: str = ""
    refund_error: str = ""
    refund_busy: bool = False

    @rx.event
    def open_refund(self, order_id: str) -> None:
        order = next((o for o in self.orders if o.id == order_id and o.refund == "refundable"), None)
        if order is None or self.refund_busy:
            return
        self.refund_order_id, self.refund_order_number = order.id, order.number
        self.refund_agent_name, self.refund_total = order.agent_name, order.total
        self.refund_reason = self.refund_error = ""
        self.refund_open = True

    @rx.event
    def set_refund_open(self, is_open: bool) -> None:
        """Closed by Cancel, Escape or the overlay (not while the refund is being made)."""
        if not is_open and not self.refund_busy:
            self.refund_open = False

    @rx.event
    def set_refund_reason(self, value: str) -> None:
        self.refund_reason, self.refund_error = value[: MAX_REASON + 1], ""

    @rx.event
    async def submit_refund(self, form: dict | None = None) -> AsyncIterator[Any]:
        if form and isinstance(form.get("reason"), str):
            self.refund_reason = form["reason"]  # what the box held, even if its last change is still on its way
        if self.refund_busy or not self.refund_order_id:
            return
        self.refund_busy = True
        yield
        call = await attempt(Toast("Refund failed"), refunds.request_refund, actor=await self.viewer(),
                             order_id=self.refund_order_id, reason=self.refund_reason)
        if call.failed:
            self.refund_busy = False
            if (refusal := call.refusal) and refusal.field == "reason":  # the dialog stays open, to be corrected
                self.refund_error = refusal.message
                return
            if call.signed_out:
                yield call.events
                return
            self.refund_open = False
            yield call.events
            yield DashboardState.load_data(self.time_zone)
            return
        self.refund_busy, self.refund_open = False, False
        title, text = REQUESTED if call.value.status == "requested" else REFUNDED
        yield rx.toast.success(title, description=text.format(name=self.refund_agent_name))
        yield DashboardState.load_data(self.time_zone)
