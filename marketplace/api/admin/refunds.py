"""Admin refunds: the list by status, approve or reject a request, and refund any order (admin only)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser
from marketplace.api.refunds import outcome
from marketplace.models.billing import AdminRefundPublic, RefundDecisionIn, RefundIn, RefundOutcomePublic
from marketplace.services import money, refunds

router = APIRouter(prefix="/api/admin", tags=["admin"])

ROWS = TypeAdapter(list[AdminRefundPublic])


def _row(row: refunds.RefundRow) -> AdminRefundPublic:
    return AdminRefundPublic(
        id=row.id, order_id=row.order_id, agent_id=row.agent_id, agent_name=row.agent_name, customer=row.customer,
        customer_email=row.customer_email, amount=money.format_cents(row.amount_cents), currency=row.currency,
        status=row.status, source=row.source, reason=row.reason, decision_reason=row.decision_reason,
        failure_reason=row.failure_reason, decided_by=row.decided_by, created_at=row.created_at,
        decided_at=row.decided_at)


@router.get("/refunds", response_model=list[AdminRefundPublic], responses=total_answer())
def list_refunds(user: OptionalUser, limit: int = Query(20), offset: int = Query(0),
                 status: str = Query("requested", description="requested (default), succeeded, rejected, pending, "
                                                             "failed or all")) -> Response:
    """Refunds newest first, paged (X-Total-Count)."""
    rows, total = refunds.list_refunds(actor=user, status=status, limit=limit, offset=offset)
    return json_list([_row(r) for r in rows], ROWS, total)


@router.post("/refunds", response_model=RefundOutcomePublic, status_code=201)
def refund_order(body: RefundIn, user: OptionalUser) -> RefundOutcomePublic:
    """Refund any completed order in full (no 30-day limit); audited."""
    return outcome(refunds.refund_order(actor=user, order_id=body.order_id, reason=body.reason))


@router.post("/refunds/{refund_id}/approve", response_model=RefundOutcomePublic)
def approve(refund_id: str, user: OptionalUser) -> RefundOutcomePublic:
    """Pay a requested refund back; the customer is told. 409 when it is not (or no longer) waiting."""
    return outcome(refunds.approve(actor=user, refund_id=refund_id))


@router.post("/refunds/{refund_id}/reject", response_model=RefundOutcomePublic)
def reject(refund_id: str, user: OptionalUser, body: RefundDecisionIn | None = None) -> RefundOutcomePublic:
    """Decline a requested refund, with an optional reason the customer reads."""
    done = refunds.reject(actor=user, refund_id=refund_id, reason=body.reason if body else None)
    return RefundOutcomePublic(id=done.refund_id, status=done.status, message="The refund request was rejected.")
