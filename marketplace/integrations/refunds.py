"""Stripe calls of the money-back guarantee: the refunds of one payment as Stripe has them (a refunded
subscription is cancelled at once by `integrations.billing.cancel_now`).

The refund itself is `payments.refund_payment` (with `reverse_transfer` and `refund_application_fee` on split
orders). Failures are `payments`' own errors, so services translate them in one place
(`services/payment_errors.provider_errors`).
"""

from __future__ import annotations

from dataclasses import dataclass

import stripe

from marketplace.integrations.payments import _plain, _provider_error, client


@dataclass(frozen=True)
class StripeRefund:
    id: str
    amount: int
    status: str  # succeeded | pending | failed | canceled | requires_action


def refunds_of_payment(intent_id: str) -> list[StripeRefund]:
    """The refunds of a PaymentIntent, newest first (a `charge.refunded` event carries the charge, not them)."""
    try:
        page = client().v1.refunds.list(params={"payment_intent": intent_id, "limit": 10})
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc
    rows = [_plain(r) for r in page.data]
    return [StripeRefund(id=str(r["id"]), amount=int(r.get("amount") or 0), status=str(r.get("status") or ""))
            for r in rows]
