"""The customer's 30-day money-back guarantee: ask for an order's money back."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.api.deps import OptionalUser
from marketplace.models.billing import RefundIn, RefundOutcomePublic
from marketplace.services import refunds

router = APIRouter(prefix="/api", tags=["refunds"])

REFUNDED = "Your order has been refunded. The money reaches your card within 5-10 business days."
REQUESTED = "Your refund request has been sent to an admin for review."


def outcome(done: refunds.Outcome) -> RefundOutcomePublic:
    return RefundOutcomePublic(id=done.refund_id, status=done.status,
                               message=REQUESTED if done.status == "requested" else REFUNDED)


@router.post("/user/refunds", response_model=RefundOutcomePublic, status_code=201)
def request_refund(body: RefundIn, user: OptionalUser) -> RefundOutcomePublic:
    """The buyer of a completed order paid in the last 30 days gets the whole amount back at once (`succeeded`);
    a third refund within 90 days waits for an admin (`requested`). 404: not the caller's order; 409: already
    refunded, not completed, or older than 30 days."""
    return outcome(refunds.request_refund(actor=user, order_id=body.order_id, reason=body.reason))
