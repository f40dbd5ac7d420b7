"""The customer's side of the 30-day money-back guarantee: ask for an order's money back, and which orders may.

The decision is one transaction: it claims the customer's row first (a no-op UPDATE, so two requests of one
customer are decided one after the other on SQLite and PostgreSQL alike, and the 90-day count cannot be read by
both before either writes), checks the order, counts the customer's recent refunds, and inserts the refund row
(one open refund per order: a partial unique index, so a second request for the same order fails there). Only
then is Stripe called (services/refunds/settle.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Order, Refund, RefundSource, RefundStatus, User
from marketplace.models.base import utcnow
from marketplace.services.errors import Conflict, NotFound
from marketplace.services.permissions import require_user
from marketplace.services.refunds.rules import (
    ABUSE_WINDOW,
    ALREADY_REFUNDED,
    ALREADY_REQUESTED,
    FREE_REFUNDS,
    GUARANTEE,
    IN_PROGRESS,
    ORDER_NOT_FOUND,
    Outcome,
    check_id,
    check_refundable,
    clean_reason,
    refundable,
)
from marketplace.services.refunds.settle import pay_back


def _open_refund_conflict(session: Session, order_id: str) -> Conflict:
    """Why a second refund of this order is refused: the one already open or made."""
    status = session.exec(select(Refund.status).where(
        Refund.order_id == order_id, Refund.status.in_((RefundStatus.REQUESTED, RefundStatus.PENDING,
                                                        RefundStatus.SUCCEEDED)))).first()
    in_flight: dict[str, str] = {RefundStatus.REQUESTED: ALREADY_REQUESTED, RefundStatus.PENDING: IN_PROGRESS}
    return Conflict(in_flight.get(status or "", ALREADY_REFUNDED))


def recent_refunds(session: Session, user_id: str) -> int:
    """The customer's refunds paid back, or being paid back, within the abuse window."""
    return session.exec(select(func.count()).select_from(Refund).where(
        Refund.user_id == user_id, Refund.created_at >= utcnow() - ABUSE_WINDOW,
        Refund.status.in_((RefundStatus.PENDING, RefundStatus.SUCCEEDED)))).one()


def open_refund(*, session: Session, order: Order, user_id: str | None, requested_by: User, source: str, reason: str,
                status: str) -> Refund:
    """Insert the refund row that claims the order; the caller's transaction fails with IntegrityError when
    another open or made refund holds it (see `refused`)."""
    refund = Refund(order_id=order.id, user_id=user_id, requested_by_id=requested_by.id, source=source,
                    status=status, reason=reason, amount_cents=order.total_amount_cents, currency=order.currency)
    session.add(refund)
    session.flush()
    return refund


def refused(order_id: str) -> Conflict:
    """The 409 of a refund that lost the claim on its order (read after the losing transaction rolled back)."""
    with session_scope() as session:
        return _open_refund_conflict(session, order_id)


def request_refund(*, actor: User | None, order_id: object, reason: object) -> Outcome:
    """The buyer asks for the money back of one of their completed orders paid in the last 30 days: it is
    refunded at once, or, for a third refund within 90 days, waits for an admin (status 'requested')."""
    user = require_user(actor)
    order_id = check_id(order_id, field="orderId", missing=ORDER_NOT_FOUND)
    text = clean_reason(reason, required=True)
    now = utcnow()
    try:
        refund, held = _claim(user, order_id, text, now)
    except IntegrityError:
        raise refused(order_id) from None
    if held:
        return Outcome(refund_id=refund.id, status=RefundStatus.REQUESTED)
    settled = pay_back(refund.id)
    return Outcome(refund_id=settled.id, status=settled.status)


def _claim(user: User, order_id: str, text: str, now: datetime) -> tuple[Refund, bool]:
    with session_scope() as session:
        session.execute(update(User).where(User.id == user.id).values(updated_at=User.updated_at))
        order = session.exec(select(Order).where(Order.id == order_id, Order.user_id == user.id)).first()
        if order is None:
            raise NotFound(ORDER_NOT_FOUND)
        check_refundable(order, now, guarantee=True)
        held = recent_refunds(session, user.id) >= FREE_REFUNDS
        refund = open_refund(session=session, order=order, user_id=user.id, requested_by=user,
                             source=RefundSource.CUSTOMER, reason=text,
                             status=RefundStatus.REQUESTED if held else RefundStatus.PENDING)
    return refund, held


def refund_marks(*, actor: User | None) -> dict[str, str]:
    """The actor's orders the Orders tab marks: 'refundable' (completed, paid, within 30 days, no refund open or
    made: 'Request refund' is offered) or 'requested' (its refund waits for an admin)."""
    user = require_user(actor)
    now = utcnow()
    with session_scope() as session:
        orders = session.exec(select(Order).where(Order.user_id == user.id,
                                                  Order.created_at >= now - GUARANTEE)).all()
        refunds = dict(session.exec(select(Refund.order_id, Refund.status).where(
            Refund.user_id == user.id, Refund.status.in_(
                (RefundStatus.REQUESTED, RefundStatus.PENDING, RefundStatus.SUCCEEDED)))).all())
    marks = {o.id: "refundable" for o in orders if refundable(o, now) and o.id not in refunds}
    return marks | {order_id: "requested" for order_id, status in refunds.items() if status == RefundStatus.REQUESTED}
