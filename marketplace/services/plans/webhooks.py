"""Billing webhooks for vendor plans: the same `invoice.*` and `customer.subscription.*` events as customers'
agent subscriptions, told apart by the subscription's metadata (`vendorPlan`), which the event carries (the
subscription itself, or an invoice's `parent.subscription_details.metadata`). Each handler reads the invoice
and subscription from Stripe again and applies their current state (`subscriptions.mirror`)."""

from __future__ import annotations

import logging
from typing import Any

from marketplace.integrations import billing, payments
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound
from marketplace.services.payment_errors import provider_errors
from marketplace.services.plans import subscriptions

log = logging.getLogger(__name__)


def _metadata(data: dict[str, Any]) -> dict[str, Any]:
    if data.get("object") == "invoice":
        return ((data.get("parent") or {}).get("subscription_details") or {}).get("metadata") or {}
    return data.get("metadata") or {}


def is_plan_event(event: payments.WebhookEvent) -> bool:
    return subscriptions.is_plan(_metadata(event.data))


def handle(event: payments.WebhookEvent) -> str:
    """Apply one event of a plan subscription; the webhook outcome word."""
    if not event.object_id:
        return "ignored"
    try:
        with provider_errors():
            if event.type.startswith("invoice."):
                invoice = billing.retrieve_invoice(event.object_id)
                if invoice is None or invoice.subscription_id is None:
                    return "ignored"
                sub = billing.retrieve_subscription(invoice.subscription_id)
            else:
                invoice, sub = None, billing.retrieve_subscription(event.object_id)
        if sub is None or not subscriptions.is_plan(sub.metadata):
            return "ignored"
        if invoice is not None and invoice.status == "paid":
            return subscriptions.invoice_paid(invoice, sub)
        return subscriptions.mirror(sub)
    except (Invalid, NotFound, Forbidden, Conflict) as exc:
        log.warning("webhook %s (%s %s) not applied: %s", event.id, event.type, event.object_id, exc.message)
        return "rejected"
