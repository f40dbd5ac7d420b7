"""The 30-day money-back guarantee, admin refunds and refunds or disputes reported by Stripe.

The modules, by what they hold (callers use the names below):
- `rules`: what may be refunded (30 days, the 90-day abuse limit), input checks and the words of each refusal.
- `requests`: the customer's request and which of their orders may be refunded.
- `settle`: paying back at Stripe and what a refund causes (order refunded, access and subscription ended,
  vendor and buyer told), once, whoever gets there first.
- `admin`: the admin list, approve and reject of requests, and an admin's own refund of any order.
- `stripe_events`: `charge.refunded` mirrored, `charge.dispute.created` suspending access.
"""

from marketplace.services.refunds.admin import (
    RefundRow,
    approve,
    list_refunds,
    refund_order,
    reject,
    requested_count,
)
from marketplace.services.refunds.requests import refund_marks, request_refund
from marketplace.services.refunds.rules import GUARANTEE_TEXT, MAX_REASON, Outcome
from marketplace.services.refunds.stripe_events import charge_refunded, dispute_created

__all__ = [
    "GUARANTEE_TEXT",
    "MAX_REASON",
    "Outcome",
    "RefundRow",
    "approve",
    "charge_refunded",
    "dispute_created",
    "list_refunds",
    "refund_marks",
    "refund_order",
    "reject",
    "request_refund",
    "requested_count",
]
