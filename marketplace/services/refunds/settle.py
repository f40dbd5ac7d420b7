"""Paying a refund back and what it causes, the same way whoever started it (the customer's guarantee, an admin,
an approved request, or a refund made in Stripe's dashboard and mirrored by its webhook).

A refund row is claimed before any money moves (the partial unique index allows one open refund per order, so a
second request at the same moment is refused before Stripe is called). Then: the Stripe Refund (the whole amount;
with `reverse_transfer` and `refund_application_fee` on split orders), the subscription cancelled at Stripe, and
one transaction that claims the row `pending -> succeeded` and, only for the request that won that claim, marks
the order refunded, ends access, ends the subscription's row, notifies the vendor and queues the mails. The
browser's request and Stripe's `charge.refunded` webhook may both get here for one refund: one wins, the other
reads the result.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, update
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.integrations import billing as stripe_billing
from marketplace.integrations import payments
from marketplace.models import (
    NotificationType,
    Order,
    OrderStatus,
    Purchase,
    Refund,
    RefundStatus,
    Subscription,
    SubscriptionStatus,
    User,
)
from marketplace.models.base import utcnow
from marketplace.services import access, audit, decisions, mail, mail_texts, money, names, notifications, webhooks
from marketplace.services.billing import lifecycle
from marketplace.services.errors import DomainError
from marketplace.services.payment_errors import provider_errors
from marketplace.services.receipts import issue as receipts
from marketplace.services.refunds.rules import REFUND_FAILED

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Audit:
    """The admin decision a settled refund records (approve, or an admin's own refund), in its transaction."""

    actor: User
    action: str
    details: dict[str, object]


def pay_back(refund_id: str, *, stripe_refund_id: str | None = None, audit_entry: Audit | None = None,
             tell_buyer: bool = False, on_failure: str = RefundStatus.FAILED) -> Refund:
    """Give the order of a claimed (`pending`) refund back and settle it. `stripe_refund_id`: the money went back
    already (a webhook saw it), so Stripe is not asked again. When Stripe refuses or fails, the row goes to
    `on_failure` (failed, or back to requested for an admin's approval) with the reason, and BadGateway is raised."""
    with session_scope() as session:
        refund = session.exec(select(Refund).where(Refund.id == refund_id)).one()
        order = session.exec(select(Order).where(Order.id == refund.order_id)).one()
        subscription = session.get(Subscription, order.subscription_id) if order.subscription_id else None
    if refund.status != RefundStatus.PENDING:
        return refund  # settled meanwhile (the webhook of this very refund, or a replay)
    if stripe_refund_id is None:
        try:
            with provider_errors(REFUND_FAILED):
                stripe_refund_id = payments.refund_payment(
                    intent_id=order.payment_intent_id, reverse_split=order.commission_split_enabled,
                    idempotency_key=f"refund-order-{refund.id}")
        except DomainError as error:
            with session_scope() as session:
                decisions.claim_any(session, Refund, Refund.id == refund.id, Refund.status == RefundStatus.PENDING,
                                    values={"status": on_failure, "failure_reason": error.message[:500]})
            log.warning("refund %s of order %s failed: %s", refund.id, order.id, error.message)
            raise
    if subscription is not None and subscription.ended_at is None:
        try:
            with provider_errors():
                stripe_billing.cancel_now(subscription.stripe_subscription_id)
        except DomainError as error:  # the money is back: the refund stands; an operator cancels it by hand
            log.error("refund %s: subscription %s not cancelled at Stripe: %s", refund.id,
                      subscription.stripe_subscription_id, error.message)
    return settle(refund.id, stripe_refund_id=stripe_refund_id, audit_entry=audit_entry, tell_buyer=tell_buyer)


def settle(refund_id: str, *, stripe_refund_id: str, audit_entry: Audit | None = None,
           tell_buyer: bool = False) -> Refund:
    """The refund succeeded at Stripe: record it and what it causes, once (see the module's docstring)."""
    now = utcnow()
    with session_scope() as session:
        won = decisions.claim_any(session, Refund, Refund.id == refund_id, Refund.status == RefundStatus.PENDING,
                                  values={"status": RefundStatus.SUCCEEDED, "stripe_refund_id": stripe_refund_id,
                                          "decided_at": func.coalesce(Refund.decided_at, now)})
        refund = session.exec(select(Refund).where(Refund.id == refund_id)).one()
        if not won:
            return refund
        order_won = decisions.claim_any(session, Order, Order.id == refund.order_id,
                                        Order.status == OrderStatus.COMPLETED,
                                        values={"status": OrderStatus.REFUNDED, "refunded_at": now,
                                                "refund_id": stripe_refund_id})
        order = session.exec(select(Order).where(Order.id == refund.order_id)).one()
        if order_won:
            receipts.issue_credit_note(session, order)
            end_access(session, order, now)
            _tell(session, order, refund, tell_buyer=tell_buyer)
            webhooks.enqueue(session, vendor_id=order.vendor_id, type=webhooks.events.REFUND_COMPLETED,
                             obj=webhooks.refund_object(refund, order))
        if audit_entry is not None:
            audit.record(session, actor=audit_entry.actor, action=audit_entry.action, target_type="refund",
                         target_id=refund.id, details={"orderId": order.id, **audit_entry.details})
    return refund


def _access_of(order: Order) -> ColumnElement[bool]:
    """The purchase this order gives access through: its subscription's, or the licence it bought."""
    if order.subscription_id:
        return Purchase.subscription_id == order.subscription_id
    return Purchase.order_id == order.id


def end_access(session: Session, order: Order, now: datetime) -> None:
    """Access bought by a refunded order ends now; its subscription (cancelled at Stripe) ends too."""
    access.set_until(session, where=_access_of(order), until=now, only="sooner")
    if order.subscription_id:
        lifecycle.end_in(session, subscription_id=order.subscription_id, now=now,
                         status=SubscriptionStatus.CANCELED)


def suspend_access(session: Session, order: Order, now: datetime) -> None:
    """A disputed payment: the access it gives is suspended (services/access reads `suspended_at`)."""
    session.execute(update(Purchase).where(_access_of(order), Purchase.suspended_at.is_(None))
                    .values(suspended_at=now))


def _tell(session: Session, order: Order, refund: Refund, *, tell_buyer: bool) -> None:
    """The vendor's notification and e-mail; the buyer's confirmation (and, when someone else decided it, a
    notification too)."""
    amount = money.format_amount(order.total_amount_cents, order.currency)  # '$35.00', as every mail writes it
    buyer = session.get(User, order.user_id) if order.user_id else None
    vendor = session.get(User, order.vendor_id) if order.vendor_id else None
    if vendor is not None and vendor.deleted_at is None:
        who = buyer.username if buyer is not None else "A buyer"
        notifications.notify(session, user_id=vendor.id, type=NotificationType.OTHER, title="Sale refunded",
                             message=f"{who} was refunded {amount} for {order.agent_name}.")
        mail.send_after_commit(session, mail_texts.vendor_refund_notice(
            to=vendor.email, name=names.greeting_name(vendor), agent_name=order.agent_name, amount=amount,
            order_id=order.id))
    live_buyer = buyer if buyer is not None and buyer.deleted_at is None else None
    if live_buyer is not None and tell_buyer:
        notifications.notify(session, user_id=live_buyer.id, type=NotificationType.OTHER, title="Refund approved",
                             message=f"Your order for {order.agent_name} was refunded: {amount}.")
    to = live_buyer.email if live_buyer is not None else order.customer_email
    if to:
        mail.send_after_commit(session, mail_texts.refund_confirmation(
            to=to, name=names.greeting_name(live_buyer) if live_buyer is not None else "there",
            agent_name=order.agent_name,
            amount=amount, order_id=order.id, subscription=order.subscription_id is not None))
    log.info("order %s refunded (%s, refund %s)", order.id, refund.source, refund.id)
