"""The Refunds tab: refunds of one status at a time (requested, succeeded, rejected, or all), page by page, with
Approve and Reject (with a reason) on requests, each a claim in services/refunds/admin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services import money, refunds
from marketplace.state.admin.listing import Action, AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day

APPROVE = Action(refunds.approve, "refund_id", ("Refund approved", "The money is on its way back to the customer."),
                 "Failed to approve refund.", title="Approve Refund", label="Refund",
                 confirm="The money goes back to their card; they lose access to the agent.")
REJECT = Action(refunds.reject, "refund_id", ("Refund rejected", "The customer has been told why."),
                "Failed to reject refund.", title="Reject Refund Request", label="Reject Request", reason="reason")
FILTERS = {"requested": "Requested", "succeeded": "Refunded", "rejected": "Rejected", "all": "All"}
STATUS_LABELS = {"requested": "Requested", "pending": "In progress", "succeeded": "Refunded", "failed": "Failed",
                 "rejected": "Rejected"}
SOURCE_LABELS = {"customer": "Customer", "admin": "Admin", "stripe": "Stripe dashboard"}
EMPTY = {"requested": "No refund requests waiting", "succeeded": "No refunds yet", "rejected": "No rejected requests",
         "all": "No refunds yet"}


@dataclass
class RefundView:
    id: str = ""
    order_number: str = ""
    agent_id: str = ""
    agent_name: str = ""
    customer: str = ""
    amount: str = ""
    status: str = ""
    status_label: str = ""
    source: str = ""
    reason: str = ""
    decision: str = ""  # the admin's reason, or Stripe's failure
    date: str = ""


def refund_view(row: refunds.RefundRow, zone: ZoneInfo) -> RefundView:
    return RefundView(
        id=row.id, order_number=row.order_id[-8:], agent_id=row.agent_id or "", agent_name=row.agent_name,
        customer=row.customer, amount=f"{money.format_amount(row.amount_cents, row.currency)} {row.currency.upper()}",
        status=row.status, status_label=STATUS_LABELS.get(row.status, row.status),
        source=SOURCE_LABELS.get(row.source, row.source), reason=row.reason,
        decision=row.decision_reason or row.failure_reason or "", date=format_day(row.created_at, zone))


class RefundsState(AdminList, AdminState):
    rows: list[RefundView] = []
    viewing: RefundView = RefundView()
    status: str = "requested"
    _actions: ClassVar = {"approve": APPROVE, "reject": REJECT}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str, zone: ZoneInfo,
               status: str = "requested") -> tuple[list[RefundView], int]:
        found, total = refunds.list_refunds(actor=user, status=status, limit=limit, offset=offset)
        return [refund_view(row, zone) for row in found], total

    def _filters(self) -> dict[str, Any]:
        return {"status": self.status}

    @rx.var
    def asking_amount(self) -> str:
        """The amount the open dialog's refund gives back ('$9.99 USD'): Approve says it before money moves."""
        return next((row.amount for row in self.rows if row.id == self.asking_id), "")

    @rx.var
    def empty_title(self) -> str:
        return EMPTY.get(self.status, "No refunds")

    @rx.event
    async def set_status(self, value: str | list[str]) -> Any:
        """The status filter (a segmented control: one value): its first page."""
        if not isinstance(value, str) or value not in FILTERS or value == self.status:
            return None
        self.status, self.offset, self.loading = value, 0, True
        return await self._read()
