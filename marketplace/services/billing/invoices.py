"""Paid and failed invoices: the checkout page's `complete` call for a subscription's first payment and the
`invoice.*` webhooks all end here, and trust only what is retrieved from Stripe."""

from __future__ import annotations

from marketplace.integrations import billing
from marketplace.models import User
from marketplace.services.billing import lifecycle, records
from marketplace.services.errors import Forbidden, Invalid
from marketplace.services.payment_errors import provider_errors

NOT_PAID = "Payment was not successful"
MISMATCH = "Payment does not match this purchase"


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
    lifecycle.mirror(sub)
    return done


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
    done = records.record_paid_invoice(invoice, sub)
    return "recorded" if done.created else "already-recorded"


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
    return "updated" if lifecycle.mirror(sub) is not None else "ignored"
