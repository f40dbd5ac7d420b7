"""Paid and failed invoices: the checkout page's `complete` call for a subscription's first payment and the
`invoice.*` webhooks all end here, and trust only what is retrieved from Stripe."""

from __future__ import annotations

import logging

from marketplace.db import session_scope
from marketplace.integrations import billing, payments
from marketplace.models import Order, OrderStatus, User
from marketplace.models.base import utcnow
from marketplace.services import decisions, promotions
from marketplace.services.billing import lifecycle, records
from marketplace.services.errors import Conflict, Forbidden, Invalid
from marketplace.services.payment_errors import provider_errors
from marketplace.services.receipts import issue as receipts

NOT_PAID = "Payment was not successful"
MISMATCH = "Payment does not match this purchase"
DUPLICATE_REFUNDED = "You already own this agent. This payment has been refunded."
log = logging.getLogger(__name__)


def record_payment(*, actor: User | None, payment_intent_id: str, agent_id: str | None,
                   user_id: str | None) -> records.Recorded | None:
    """The subscription invoice this PaymentIntent paid, recorded (idempotent); None when it paid no invoice
    (a one-off payment). `actor` None is the webhook, acting for the subscription's owner."""
    with provider_errors():
        invoice = billing.invoice_for_payment(payment_intent_id)
        if invoice is None or invoice.subscription_id is None:
            return None
        sub = billing.retrieve_subscription(invoice.subscription_id)
    if sub is None:
        return None
    row = records.ensure_row(sub)
    if (actor is not None and row.user_id != actor.id) or (user_id is not None and row.user_id != user_id):
        raise Forbidden("This payment belongs to another account")
    if agent_id is not None and row.agent_id != agent_id:
        raise Invalid(MISMATCH)
    if invoice.status != "paid":
        raise Invalid(NOT_PAID)
    done = records.record_paid_invoice(invoice, sub)
    lifecycle.mirror(sub)  # before settling: a duplicate's subscription is then ended for good
    done = _settle(done)
    if done.duplicate and actor is not None:
        raise Conflict(DUPLICATE_REFUNDED)
    return done


def record_free_start(*, actor: User | None, sub: billing.Subscription) -> records.Recorded | None:
    """A subscription whose first invoice was $0 (a 100% promotion code, no trial): that invoice recorded as
    its first order (idempotent, as `invoice.paid` records it too). None while it is not paid."""
    if not sub.latest_invoice_id:
        return None
    with provider_errors():
        invoice = billing.retrieve_invoice(sub.latest_invoice_id)
    if invoice is None or invoice.status != "paid" or invoice.subscription_id != sub.id:
        return None
    row = records.ensure_row(sub)
    if actor is not None and row.user_id != actor.id:
        raise Forbidden("This payment belongs to another account")
    done = records.record_paid_invoice(invoice, sub)
    lifecycle.mirror(sub)
    return _settle(done)


def recorded(*, actor: User | None, invoice_id: str) -> records.Recorded | None:
    """An invoice already recorded, as the checkout page's repeated `complete` sees it (a duplicate payment not
    yet refunded is refunded now)."""
    done = records.existing_order(invoice_id)
    if done is None:
        return None
    done = _settle(done)
    if done.duplicate and actor is not None:
        raise Conflict(DUPLICATE_REFUNDED)
    return done


def _settle(done: records.Recorded) -> records.Recorded:
    """A duplicate first payment (the buyer already had access, e.g. subscribed in two tabs) is refunded and its
    subscription ended at once, so nobody pays twice. Safe to repeat: the refund's idempotency key is the
    payment's, the order is marked by a claim, and ending a subscription happens once."""
    if not done.duplicate or done.order.status == OrderStatus.REFUNDED:
        return done
    order = done.order
    with provider_errors():
        refund_id = payments.refund_payment(intent_id=order.payment_intent_id,
                                            reverse_split=order.commission_split_enabled,
                                            idempotency_key=f"refund-{order.payment_intent_id}")
    with session_scope() as session:
        if decisions.claim_any(session, Order, Order.id == order.id, Order.status != OrderStatus.REFUNDED,
                               values={"status": OrderStatus.REFUNDED, "refund_id": refund_id,
                                       "refunded_at": utcnow()}):
            receipts.issue_credit_note(session, session.get_one(Order, order.id))
    if order.subscription_id:
        lifecycle.end_subscription_now(subscription_id=order.subscription_id)
    log.info("duplicate subscription payment %s refunded (%s)", order.payment_intent_id, refund_id)
    return records.existing_order(order.invoice_id or "") or done


def _fresh(invoice_id: str) -> tuple[billing.Invoice, billing.Subscription] | None:
    with provider_errors():
        invoice = billing.retrieve_invoice(invoice_id)
        if invoice is None or invoice.subscription_id is None:
            return None
        sub = billing.retrieve_subscription(invoice.subscription_id)
    return (invoice, sub) if sub is not None else None


def invoice_paid(invoice_id: str) -> str:
    """`invoice.paid`: one order per invoice (a renewal after the first), access to the period's end."""
    found = _fresh(invoice_id)
    if found is None:
        return "ignored"
    invoice, sub = found
    if invoice.status != "paid" or lifecycle.mirror(sub) is None:
        return "ignored"
    if invoice.billing_reason == "subscription_create" and invoice.amount_paid == 0 and sub.trial_end is not None:
        return "trial"  # a trial's $0 first invoice: the trial is recorded (mirror), the first charge comes later
    done = _settle(records.record_paid_invoice(invoice, sub))
    return "refunded" if done.duplicate else "recorded" if done.created else "already-recorded"


def invoice_payment_failed(invoice_id: str) -> str:
    """`invoice.payment_failed`: the subscription as Stripe has it now (past due starts the grace and mails
    the update-card link once; a first payment declined at checkout leaves it incomplete)."""
    found = _fresh(invoice_id)
    if found is None:
        return "ignored"
    return "updated" if lifecycle.mirror(found[1]) is not None else "ignored"


def subscription_changed(stripe_subscription_id: str) -> str:
    """`customer.subscription.*`: status, period end and cancel flag as Stripe has them now."""
    with provider_errors():
        sub = billing.retrieve_subscription(stripe_subscription_id)
    if sub is None:
        return "ignored"
    if sub.status == "incomplete_expired":  # an abandoned checkout: its promotion code's hold goes back
        promotions.release_for_intent(payment_intent_id="", metadata=sub.metadata)
    return "updated" if lifecycle.mirror(sub) is not None else "ignored"
