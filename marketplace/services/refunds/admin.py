"""Admins and refunds: the list by status, approve or reject a request (a customer's third refund within 90 days),
and refund any order themselves (no 30-day limit). Every decision is a claim (services/decisions.py) and is
audited in the transaction that records it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import NotificationType, Order, Refund, RefundSource, RefundStatus, User
from marketplace.models.base import utcnow
from marketplace.services import audit, decisions, mail, mail_texts, names, notifications
from marketplace.services.errors import Conflict, InvalidParameter, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin
from marketplace.services.refunds.requests import open_refund, refused
from marketplace.services.refunds.rules import (
    DECIDED_MEANWHILE,
    NOT_REQUESTED,
    ORDER_NOT_FOUND,
    REFUND_NOT_FOUND,
    Outcome,
    check_id,
    check_refundable,
    clean_reason,
)
from marketplace.services.refunds.settle import Audit, pay_back

STATUSES = ("requested", "succeeded", "rejected", "pending", "failed", "all")


@dataclass(frozen=True)
class RefundRow:
    """One refund as the admin list shows it."""

    id: str
    order_id: str
    agent_id: str | None
    agent_name: str
    customer: str  # username, or the order's e-mail when the account is gone
    customer_email: str
    amount_cents: int
    currency: str
    status: str
    source: str
    reason: str
    decision_reason: str | None
    failure_reason: str | None
    decided_by: str | None
    created_at: datetime
    decided_at: datetime | None


def list_refunds(*, actor: User | None, status: str = "requested", limit: int = 20,
                 offset: int = 0) -> tuple[list[RefundRow], int]:
    """Refunds in one status (or all), newest first, with their number on all pages."""
    require_admin(actor)
    check_page(limit=limit, offset=offset)
    if status not in STATUSES:
        raise InvalidParameter(f"status must be one of {', '.join(STATUSES)}", field="status")
    where = [] if status == "all" else [Refund.status == status]
    buyer, decider = aliased(User), aliased(User)
    with session_scope() as session:
        total = session.exec(select(func.count()).select_from(Refund).where(*where)).one()
        rows = session.exec(
            select(Refund, Order, buyer.username, decider.username)
            .join(Order, Order.id == Refund.order_id)
            .join(buyer, buyer.id == Refund.user_id, isouter=True)
            .join(decider, decider.id == Refund.decided_by_id, isouter=True)
            .where(*where).order_by(Refund.created_at.desc(), Refund.id.desc()).limit(limit).offset(offset)).all()
    return [RefundRow(id=r.id, order_id=o.id, agent_id=o.agent_id, agent_name=o.agent_name,
                      customer=username or o.customer_email, customer_email=o.customer_email,
                      amount_cents=r.amount_cents, currency=r.currency, status=r.status, source=r.source,
                      reason=r.reason, decision_reason=r.decision_reason, failure_reason=r.failure_reason,
                      decided_by=decided_by, created_at=r.created_at, decided_at=r.decided_at)
            for r, o, username, decided_by in rows], int(total)


def requested_count(*, actor: User | None) -> int:
    """The Refunds tab's count: requests waiting for an admin."""
    return list_refunds(actor=actor, status="requested", limit=1)[1]


def _decide(session: Session, admin: User, refund_id: str, values: dict[str, object]) -> Refund:
    """Claim a requested refund (409 when it is not, or no longer, waiting)."""
    status = session.exec(select(Refund.status).where(Refund.id == refund_id)).first()
    if status is None:
        raise NotFound(REFUND_NOT_FOUND)
    if status != RefundStatus.REQUESTED:
        raise Conflict(NOT_REQUESTED)
    decisions.claim(session, Refund, Refund.id == refund_id, Refund.status == RefundStatus.REQUESTED,
                    values={**values, "decided_by_id": admin.id, "decided_at": utcnow()},
                    conflict=DECIDED_MEANWHILE)
    return session.exec(select(Refund).where(Refund.id == refund_id)).one()


def approve(*, actor: User | None, refund_id: object) -> Outcome:
    """Pay a requested refund back. If Stripe fails the request waits again (502), to be approved later."""
    admin = require_admin(actor)
    refund_id = check_id(refund_id, field="refundId", missing=REFUND_NOT_FOUND)
    with session_scope() as session:
        refund = _decide(session, admin, refund_id, {"status": RefundStatus.PENDING})
    settled = pay_back(refund.id, audit_entry=Audit(admin, "refund.approve", {}), tell_buyer=True,
                       on_failure=RefundStatus.REQUESTED)
    return Outcome(refund_id=settled.id, status=settled.status)


def reject(*, actor: User | None, refund_id: object, reason: object = None) -> Outcome:
    """Say no to a refund request, with an optional reason the customer reads (notification and e-mail)."""
    admin = require_admin(actor)
    refund_id = check_id(refund_id, field="refundId", missing=REFUND_NOT_FOUND)
    text = clean_reason(reason, required=False)
    with session_scope() as session:
        refund = _decide(session, admin, refund_id,
                         {"status": RefundStatus.REJECTED, "decision_reason": text or None})
        order = session.exec(select(Order).where(Order.id == refund.order_id)).one()
        audit.record(session, actor=admin, action="refund.reject", target_type="refund", target_id=refund.id,
                     details={"orderId": order.id, "reason": text})
        buyer = session.get(User, refund.user_id) if refund.user_id else None
        if buyer is not None and buyer.deleted_at is None:
            why = f" Reason: {text}" if text else ""
            notifications.notify(session, user_id=buyer.id, type=NotificationType.OTHER,
                                 title="Refund request declined",
                                 message=f"Your refund request for {order.agent_name} was declined.{why}")
            mail.send_after_commit(session, mail_texts.refund_declined(
                to=buyer.email, name=names.greeting_name(buyer), agent_name=order.agent_name, order_id=order.id,
                reason=text))
    return Outcome(refund_id=refund.id, status=RefundStatus.REJECTED)


def refund_order(*, actor: User | None, order_id: object, reason: object = None) -> Outcome:
    """An admin gives any completed order's money back (no 30-day limit, no abuse limit)."""
    admin = require_admin(actor)
    order_id = check_id(order_id, field="orderId", missing=ORDER_NOT_FOUND)
    text = clean_reason(reason, required=False)
    try:
        with session_scope() as session:
            order = session.exec(select(Order).where(Order.id == order_id)).first()
            if order is None:
                raise NotFound(ORDER_NOT_FOUND)
            check_refundable(order, utcnow(), guarantee=False)
            refund = open_refund(session=session, order=order, user_id=order.user_id, requested_by=admin,
                                 source=RefundSource.ADMIN, reason=text, status=RefundStatus.PENDING)
    except IntegrityError:
        raise refused(order_id) from None
    settled = pay_back(refund.id, audit_entry=Audit(admin, "refund.create", {"reason": text}), tell_buyer=True)
    return Outcome(refund_id=settled.id, status=settled.status)
