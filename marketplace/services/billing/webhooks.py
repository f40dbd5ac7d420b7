"""Stripe Billing's webhooks, applied whatever their order and however often they come: each handler reads
the invoice or subscription from Stripe again and applies its current state (`services/billing/invoices`)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from marketplace.integrations import payments
from marketplace.services.billing import invoices, trials
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound

log = logging.getLogger(__name__)

HANDLERS: dict[str, Callable[[str], str]] = {
    "invoice.paid": invoices.invoice_paid,
    "invoice.payment_failed": invoices.invoice_payment_failed,
    "customer.subscription.created": invoices.subscription_changed,
    "customer.subscription.updated": invoices.subscription_changed,
    "customer.subscription.deleted": invoices.subscription_changed,
    "customer.subscription.trial_will_end": trials.trial_will_end,
}


def handle(event: payments.WebhookEvent) -> str:
    """Apply one billing event; the outcome word of `purchases.WebhookOutcome`."""
    handler = HANDLERS.get(event.type)
    if handler is None or not event.object_id:
        return "ignored"
    try:
        return handler(event.object_id)
    except (Invalid, NotFound, Forbidden, Conflict) as exc:
        # Permanent: retrying will not help. Logged for an operator; Stripe is told we got it. (A provider
        # failure is not caught: the webhook answers 502 and Stripe delivers it again.)
        log.warning("webhook %s (%s %s) not applied: %s", event.id, event.type, event.object_id, exc.message)
        return "rejected"
