"""Stripe webhooks: signature-checked, each event applied once (`processed_webhook_events`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError

from marketplace.db import session_scope
from marketplace.integrations import payments
from marketplace.models import ProcessedWebhookEvent
from marketplace.services import promotions
from marketplace.services.billing import webhooks as billing_webhooks
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound
from marketplace.services.payment_errors import provider_errors
from marketplace.services.plans import fees as plan_fees
from marketplace.services.plans import webhooks as plan_webhooks
from marketplace.services.purchases.completion import complete_payment
from marketplace.services.refunds import stripe_events as refund_events
from marketplace.services.vendors import payouts

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WebhookOutcome:
    event_id: str
    type: str
    result: str  # recorded | already-recorded | refunded | duplicate | ignored | rejected | updated | suspended


def _mark_processed(event: payments.WebhookEvent) -> None:
    try:
        with session_scope() as session:
            session.add(ProcessedWebhookEvent(id=event.id, type=event.type[:100]))
    except IntegrityError:
        pass  # processed concurrently by another delivery


def _record_payment(intent_id: str) -> None:
    """A refund or dispute came before the payment's own event: record the payment first (if it is ours)."""
    try:
        complete_payment(actor=None, payment_intent_id=intent_id, from_webhook=True)
    except (Invalid, NotFound, Forbidden, Conflict) as exc:
        log.info("payment %s not recorded: %s", intent_id, exc.message)


# The event types something below acts on. Stripe sends many more for each purchase (about 7 of 11 for a
# subscription: payment_intent.created, charge.succeeded, customer.created, ...): those are answered without
# touching the database, as there is nothing to apply and nothing to remember (a repeat is ignored again).
HANDLED = frozenset({"payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled",
                     "charge.refunded",
                     "charge.dispute.created", "invoice.created", "account.updated", *billing_webhooks.HANDLERS})


def handle_webhook(*, payload: bytes, signature: str | None) -> WebhookOutcome:
    """Verify and apply one Stripe event. Duplicates and late events change nothing."""
    with provider_errors():
        event = payments.parse_webhook(payload, signature)
    if event.type not in HANDLED:
        return WebhookOutcome(event.id, event.type, "ignored")
    with session_scope() as session:
        if session.get(ProcessedWebhookEvent, event.id) is not None:
            return WebhookOutcome(event.id, event.type, "duplicate")
    result = "ignored"
    if event.type == "payment_intent.succeeded" and event.object_id:
        if not all(event.data.get("metadata", {}).get(k) for k in ("agentId", "userId")):
            result = "ignored"  # not one of our checkouts
        else:
            try:
                done = complete_payment(actor=None, payment_intent_id=event.object_id, from_webhook=True)
                result = "refunded" if done.purchase is None else "recorded" if done.created else "already-recorded"
            except (Invalid, NotFound, Forbidden, Conflict) as exc:
                # Permanent: retrying will not help. Logged for an operator; Stripe is told we got it.
                log.warning("webhook %s: payment %s not recorded: %s", event.id, event.object_id, exc.message)
                result = "rejected"
    elif event.type == "payment_intent.payment_failed":
        error = event.data.get("last_payment_error") or {}
        log.info("payment %s failed: %s", event.object_id, error.get("message"))
    elif event.type == "payment_intent.canceled" and event.object_id:
        # An abandoned checkout (cancelled by us, by Stripe or on the dashboard): its promotion code's hold
        # goes back to the code.
        released = promotions.release_for_intent(payment_intent_id=event.object_id,
                                                 metadata=event.data.get("metadata") or {})
        result = "updated" if released else "ignored"
    elif event.type == "charge.refunded":
        result = refund_events.charge_refunded(event.data, record=_record_payment)
    elif event.type == "charge.dispute.created":
        result = refund_events.dispute_created(event.data, record=_record_payment)
    elif event.type in billing_webhooks.HANDLERS:
        plan = plan_webhooks.is_plan_event(event)  # a vendor's plan, not a customer's agent subscription
        result = plan_webhooks.handle(event) if plan else billing_webhooks.handle(event)
    elif event.type == "invoice.created" and event.object_id:
        # Only a renewal takes a plan fee; a first invoice (billing_reason `subscription_create`, which never
        # changes) is ignored without retrieving it from Stripe again (one per subscription purchase).
        if event.data.get("billing_reason") in (None, "subscription_cycle"):
            result = plan_fees.invoice_created(event.object_id)
    elif event.type == "account.updated" and event.object_id:
        result = "updated" if payouts.sync_account(payments.account_from_event(event.data)) else "ignored"
    _mark_processed(event)
    return WebhookOutcome(event.id, event.type, result)
