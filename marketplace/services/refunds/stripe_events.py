"""Stripe's refund and dispute webhooks: a refund made in Stripe's dashboard is mirrored as if we had made it,
and a dispute suspends the access the payment gave and tells the admins.

Both are safe to receive twice, late, and before or after our own refund of the same payment: a refund is
recognised by its Stripe id or by the order's open refund row, and a dispute by `orders.disputed_at`, each
claimed before anything it causes. An event about a payment not yet recorded records it first (the
`payment_intent.succeeded` event may come later, or not at all), so the order of events does not matter.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.integrations import refunds as stripe_refunds
from marketplace.models import NotificationType, Order, OrderStatus, Refund, RefundSource, RefundStatus, Role, User
from marketplace.models.base import utcnow
from marketplace.services import decisions, mail, mail_texts, money, names, notifications
from marketplace.services.payment_errors import provider_errors
from marketplace.services.refunds.settle import pay_back, suspend_access

log = logging.getLogger(__name__)
INTENT_ID_RE = re.compile(r"^pi_[A-Za-z0-9_]{1,250}$")
# Records a payment from Stripe's PaymentIntent, as its own `payment_intent.succeeded` would (the webhook
# dispatch passes services/purchases' completion: refunds do not import purchases).
Recorder = Callable[[str], None]


def _order(intent_id: object, record: Recorder) -> Order | None:
    """The order this payment made, recording it first when its own webhook has not arrived yet."""
    if not isinstance(intent_id, str) or not INTENT_ID_RE.match(intent_id):
        return None
    for attempt in range(2):
        with session_scope() as session:
            order = session.exec(select(Order).where(Order.payment_intent_id == intent_id)).first()
        if order is not None or attempt:
            return order
        record(intent_id)
    return None


def charge_refunded(charge: dict[str, Any], *, record: Recorder) -> str:
    """`charge.refunded`: a whole refund of one of our orders, ours or made in Stripe's dashboard."""
    if not charge.get("refunded"):
        log.info("charge %s partly refunded: not mirrored (only whole refunds end access)", charge.get("id"))
        return "ignored"
    order = _order(charge.get("payment_intent"), record)
    if order is None:
        return "ignored"
    with provider_errors():
        made = [r for r in stripe_refunds.refunds_of_payment(order.payment_intent_id)
                if r.status in ("succeeded", "pending")]
    if not made:
        return "ignored"
    stripe_ids = [r.id for r in made]
    with session_scope() as session:
        known = session.exec(select(Refund).where(Refund.stripe_refund_id.in_(stripe_ids))).first()
        open_row = session.exec(select(Refund).where(
            Refund.order_id == order.id,
            Refund.status.in_((RefundStatus.REQUESTED, RefundStatus.PENDING, RefundStatus.SUCCEEDED)))).first()
        status = session.exec(select(Order.status).where(Order.id == order.id)).one()
    if known is not None and known.status == RefundStatus.SUCCEEDED:
        return "already-recorded"
    row = known or open_row
    if row is None and status != OrderStatus.COMPLETED:
        return "already-recorded"  # refunded before we kept refund rows (a payment that granted nothing)
    if row is None:
        try:
            with session_scope() as session:
                row = Refund(order_id=order.id, user_id=order.user_id, source=RefundSource.STRIPE,
                             status=RefundStatus.PENDING, reason="Refunded in Stripe's dashboard",
                             amount_cents=order.total_amount_cents, currency=order.currency)
                session.add(row)
        except IntegrityError:
            return charge_refunded(charge, record=record)  # another delivery of this event inserted it first
    elif row.status == RefundStatus.SUCCEEDED:
        return "already-recorded"
    elif row.status == RefundStatus.REQUESTED:  # refunded in the dashboard while the request waited
        with session_scope() as session:
            decisions.claim_any(session, Refund, Refund.id == row.id, Refund.status == RefundStatus.REQUESTED,
                                values={"status": RefundStatus.PENDING})
    settled = pay_back(row.id, stripe_refund_id=made[0].id, tell_buyer=row.source != RefundSource.CUSTOMER)
    return "refunded" if settled.status == RefundStatus.SUCCEEDED else "ignored"


def dispute_created(dispute: dict[str, Any], *, record: Recorder) -> str:
    """`charge.dispute.created`: the buyer's access is suspended and every admin is told (once)."""
    order = _order(dispute.get("payment_intent"), record)
    if order is None:
        return "ignored"
    now = utcnow()
    reason = str(dispute.get("reason") or "general").replace("_", " ")
    with session_scope() as session:
        if not decisions.claim_any(session, Order, Order.id == order.id, Order.disputed_at.is_(None),
                                   values={"disputed_at": now}):
            return "duplicate"
        suspend_access(session, order, now)
        amount = money.format_amount(order.total_amount_cents, order.currency)  # '$35.00', as every mail writes it
        admins = session.exec(select(User).where(User.role == Role.ADMIN, User.deleted_at.is_(None))).all()
        for admin in admins:
            notifications.notify(session, user_id=admin.id, type=NotificationType.OTHER, title="Payment disputed",
                                 message=f"A payment of {amount} for {order.agent_name} (order {order.id[-8:]}) "
                                         f"was disputed ({reason}). The buyer's access is suspended.")
            mail.send_after_commit(session, mail_texts.dispute_opened(
                to=admin.email, name=names.greeting_name(admin), agent_name=order.agent_name, amount=amount,
                order_id=order.id, reason=reason))
    return "suspended"
