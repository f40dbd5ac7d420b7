"""A new card for a subscription (after a failed renewal, or any time): a SetupIntent the update-card page's
Payment Element confirms, then the card becomes the subscription's default and open invoices are paid again."""

from __future__ import annotations

from dataclasses import dataclass

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import User
from marketplace.services.billing import lifecycle, payment_methods, records
from marketplace.services.errors import Conflict, Forbidden, Invalid
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_user

SETUP_NOT_DONE = "The card could not be saved. Please try again."
SETUP_ID_MAX = 255


@dataclass(frozen=True)
class CardUpdate:
    subscription: lifecycle.SubscriptionView
    client_secret: str


def start_card_update(*, actor: User | None, subscription_id: str) -> CardUpdate:
    """A SetupIntent for the owner of a subscription that has not ended."""
    user = require_user(actor)
    with session_scope() as session:
        row = lifecycle.owned(session, user, subscription_id)
        if row.ended_at is not None or row.status in lifecycle.ENDED:
            raise Conflict(lifecycle.HAS_ENDED)
        view = lifecycle.SubscriptionView.of(row)
        customer, stripe_id = row.stripe_customer_id, row.stripe_subscription_id
    with provider_errors():
        intent = billing.create_setup_intent(customer=customer, metadata={"subscriptionId": stripe_id})
    return CardUpdate(subscription=view, client_secret=intent.client_secret)


def finish_card_update(*, actor: User | None, subscription_id: str,
                       setup_intent_id: str) -> lifecycle.SubscriptionView:
    """Make the confirmed card the subscription's default and pay what is open with it (a past-due renewal).
    A card declined again raises Invalid with the card's message; the card stays saved for the next retry."""
    user = require_user(actor)
    if not isinstance(setup_intent_id, str) or not setup_intent_id.startswith("seti_") \
            or len(setup_intent_id) > SETUP_ID_MAX:
        raise Invalid("Invalid setup intent id")
    with session_scope() as session:
        row = lifecycle.owned(session, user, subscription_id)
        if row.ended_at is not None or row.status in lifecycle.ENDED:
            raise Conflict(lifecycle.HAS_ENDED)
        stripe_id, customer = row.stripe_subscription_id, row.stripe_customer_id
    with provider_errors():
        intent = billing.retrieve_setup_intent(setup_intent_id)
    if intent is None or intent.customer != customer or intent.metadata.get("subscriptionId") != stripe_id:
        raise Forbidden("This card was not saved for this subscription")
    if intent.status != "succeeded" or not intent.payment_method:
        raise Invalid(SETUP_NOT_DONE)
    declined: str | None = None
    # The customer's cards lease, as the Payment tab's default and remove take it: a card removed there at this
    # moment cannot be detached under the subscription this makes it the default of.
    with payment_methods.cards_claimed(user), provider_errors():
        billing.set_default_payment_method(stripe_id, intent.payment_method)
        for invoice in billing.open_invoices(stripe_id):
            try:
                billing.pay_invoice(invoice.id)
            except billing.PaymentDeclined as exc:
                declined = exc.message
        sub = billing.retrieve_subscription(stripe_id)
    if sub is None:
        raise Invalid(SETUP_NOT_DONE)
    lifecycle.mirror(sub)
    if sub.latest_invoice_id:
        with provider_errors():
            latest = billing.retrieve_invoice(sub.latest_invoice_id)
        if latest is not None and latest.status == "paid":
            records.record_paid_invoice(latest, sub)  # the webhook may be slower; it then finds it recorded
    if declined:
        raise Invalid(declined)
    with session_scope() as session:
        return lifecycle.SubscriptionView.of(lifecycle.owned(session, user, subscription_id))
