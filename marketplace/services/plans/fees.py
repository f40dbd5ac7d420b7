"""Customers' subscriptions follow their vendor's plan fee from the next invoice on.

A subscription is created with the fee of its vendor's plan at checkout. When Stripe drafts a renewal
(`invoice.created`, an hour before it charges it), the fee of the vendor's plan at that moment is put on the
subscription (`application_fee_percent`, for split subscriptions) and on its row, which the renewal's order
snapshots: so the fee Stripe takes, the order's rate and its split label all say the same number, whether the
vendor changed plan or an admin changed the plan's fee since."""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import select

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import Subscription
from marketplace.services import decisions
from marketplace.services.payment_errors import provider_errors
from marketplace.services.plans.catalog import vendor_plan_in


def invoice_created(invoice_id: str) -> str:
    """`invoice.created`: a renewal drafted for a customer's subscription takes its vendor's plan fee now."""
    with provider_errors():
        invoice = billing.retrieve_invoice(invoice_id)
    if invoice is None or invoice.subscription_id is None or invoice.status != "draft" \
            or invoice.billing_reason != "subscription_cycle":
        return "ignored"
    with session_scope() as session:
        row = session.exec(select(Subscription).where(
            Subscription.stripe_subscription_id == invoice.subscription_id)).first()
        if row is None:
            return "ignored"  # not a customer's agent subscription (a vendor plan's, or not ours)
        fee = vendor_plan_in(session, row.vendor_id).fee_percent
        if Decimal(row.commission_rate) == fee:
            return "already-recorded"
        row_id, split, stripe_id = row.id, row.commission_split_enabled, row.stripe_subscription_id
    if split:
        with provider_errors():
            billing.set_application_fee_percent(stripe_id, fee)
    with session_scope() as session:
        decisions.claim_any(session, Subscription, Subscription.id == row_id, values={"commission_rate": fee})
    return "updated"
