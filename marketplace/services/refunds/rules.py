"""What may be refunded, by whom, and the words of each refusal: the 30-day money-back guarantee, the abuse
limit (a customer's third refund within 90 days waits for an admin), and the checks of what people send."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from marketplace.models import Order, OrderStatus
from marketplace.services.errors import Conflict, Invalid, NotFound
from marketplace.services.text import check_text

GUARANTEE = timedelta(days=30)
ABUSE_WINDOW = timedelta(days=90)
FREE_REFUNDS = 2  # refunds within ABUSE_WINDOW paid back at once; the next one is a request for an admin
MAX_REASON = 1000
ID_RE = re.compile(r"[A-Za-z0-9]{1,64}")  # ASCII only, as every id the app makes

GUARANTEE_TEXT = ("30-day money-back guarantee: within 30 days of payment you get the whole amount back, at once. "
                  "Access to the agent ends, and a subscription is cancelled.")
ORDER_NOT_FOUND = "Order not found"
REFUND_NOT_FOUND = "Refund not found"
ALREADY_REFUNDED = "This order has already been refunded"
ALREADY_REQUESTED = "A refund of this order is already waiting for an admin's review"
IN_PROGRESS = "A refund of this order is already being made"
NOT_COMPLETED = "Only a completed order can be refunded"
TOO_OLD = "The 30-day money-back guarantee has ended for this order (it was paid more than 30 days ago)"
NOTHING_TO_REFUND = "This order was free: there is nothing to refund"
DECIDED_MEANWHILE = "This refund request was decided by another request at the same moment. Reload to see it."
NOT_REQUESTED = "Only a refund request waiting for review can be approved or rejected"
REFUND_FAILED = "The refund could not be made. Please try again."
REASON_REQUIRED = "Please tell us why you want a refund"
REASON_TOO_LONG = f"The reason must be at most {MAX_REASON} characters"


@dataclass(frozen=True)
class Outcome:
    """What a refund request came to: `refund_id`, and whether the money went back at once ('succeeded') or the
    request waits for an admin ('requested')."""

    refund_id: str
    status: str


def check_id(value: object, *, field: str, missing: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid(f"{field} is required", field=field)
    if not ID_RE.fullmatch(value):
        raise NotFound(missing)  # not an id we could have made: as unknown as any other
    return value


def clean_reason(value: object, *, required: bool) -> str:
    """The reason trimmed; required for a customer's request (it is what an admin reads), optional otherwise."""
    if value is not None and not isinstance(value, str):
        raise Invalid("reason must be text", field="reason")
    text = (value or "").strip()
    if required and not text:
        raise Invalid(REASON_REQUIRED, field="reason")
    if len(text) > MAX_REASON:
        raise Invalid(REASON_TOO_LONG, field="reason")
    return check_text(text, field="reason", label="The reason", multiline=True)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite hands back naive UTC


def in_guarantee(order: Order, now: datetime) -> bool:
    return _aware(order.created_at) >= now - GUARANTEE


def refundable(order: Order, now: datetime) -> bool:
    """A completed, paid order of the last 30 days: the customer's 'Request refund' is offered on it."""
    return order.status == OrderStatus.COMPLETED and order.total_amount_cents > 0 and in_guarantee(order, now)


def check_refundable(order: Order, now: datetime, *, guarantee: bool) -> None:
    """Refuse an order that cannot be refunded (409); `guarantee`: the customer's 30 days apply (not to admins)."""
    if order.status == OrderStatus.REFUNDED:
        raise Conflict(ALREADY_REFUNDED)
    if order.status != OrderStatus.COMPLETED:
        raise Conflict(NOT_COMPLETED)
    if order.total_amount_cents <= 0:
        raise Conflict(NOTHING_TO_REFUND)
    if guarantee and not in_guarantee(order, now):
        raise Conflict(TOO_OLD)
