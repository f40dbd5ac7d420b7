"""Checkout of a monthly agent: a Stripe subscription whose first invoice the same Payment Element pays.

The checkout has priced the agent and chosen the route (`CheckoutTerms`: a destination charge with the
commission as `application_fee_percent`, or a direct charge); this opens (or reuses) the subscription on the
buyer's one Customer and the agent's monthly Price, and keeps its row. The subscription's metadata carries the
terms, as a one-off PaymentIntent's does, so an invoice can be recorded from Stripe's data alone."""

from __future__ import annotations

import hashlib
import json

from marketplace.integrations import billing
from marketplace.models import PromotionDuration, SubscriptionStatus, User
from marketplace.services.billing import customers, invoices, records, trials
from marketplace.services.checkout_terms import CheckoutTerms
from marketplace.services.errors import Conflict
from marketplace.services.payment_errors import provider_errors

OWNED = "You already own this agent"


def coupon_for(*, terms: CheckoutTerms, duration: str, duration_months: int | None) -> str:
    """The Stripe coupon of the sale's promotion code: the discount checkout showed, in the currency charged
    (so each discounted invoice is exactly the amount shown), for the code's months. One per code and amount."""
    off = terms.discount_amount
    months = f"{duration_months}" if duration == PromotionDuration.REPEATING else ""
    coupon_id = f"promo-{terms.promotion_code_id}-{duration}{months}-{terms.currency}-{off}"
    with provider_errors():
        return billing.coupon(coupon_id=coupon_id, duration=duration, duration_in_months=duration_months,
                              amount_off=off, currency=terms.currency, name=terms.promotion_code or "")


def open_subscription(*, buyer: User, agent_name: str, terms: CheckoutTerms,
                      coupon_id: str | None = None) -> tuple[billing.Subscription, str]:
    """An incomplete subscription (and its row's id) whose first invoice's client secret the Payment Element
    confirms. The same buyer, agent and terms reuse one (a double click, a reload); one that was already paid is
    recorded instead (the page closed before completing) and answers 409. With a free trial (`terms.trial_days`)
    the client secret is the trial's SetupIntent's (`setup_client_secret`): the card is saved, not charged. A
    promotion code's `coupon_id` discounts its invoices; one that leaves nothing to pay now (100% off) makes
    the subscription active at once, and its SetupIntent saves the card for the renewals, as for a trial."""
    customer = customers.customer_id_for(user=buyer)
    agent_id, destination = terms.agent_id, terms.route.destination
    with provider_errors():
        price = billing.monthly_price(agent_id=agent_id, agent_name=agent_name, amount=terms.monthly_amount,
                                      currency=terms.currency)
    metadata = terms.to_metadata(with_amount=True)
    digest = hashlib.sha256(json.dumps({**metadata, "price": price, "customer": customer,
                                        "destination": destination}, sort_keys=True).encode()).hexdigest()[:24]
    key = f"subscribe-{buyer.id}-{agent_id}-{digest}"

    def create(idempotency_key: str) -> billing.Subscription:
        with provider_errors():
            return billing.create_subscription(customer=customer, price=price, metadata=metadata,
                                               idempotency_key=idempotency_key, destination=destination,
                                               application_fee_percent=terms.fee_rate if destination else None,
                                               trial_days=terms.trial_days or 0, coupon_id=coupon_id)

    sub = create(key)
    if terms.trial_days:
        if trials.started(sub):  # its card was saved already (the page closed before completing)
            trials.record_trial(sub)
            raise Conflict(OWNED)
        if sub.status != SubscriptionStatus.TRIALING or not sub.setup_client_secret:
            sub = create(f"{key}-after-{sub.id}")  # that one was cancelled or ended: a new subscription
        return sub, records.ensure_row(sub).id
    if terms.amount == 0:  # nothing to pay now: active at once, its $0 first invoice paid
        if sub.status == SubscriptionStatus.ACTIVE and not sub.pending_setup_intent_id:
            invoices.record_free_start(actor=buyer, sub=sub)  # its card was saved already
            raise Conflict(OWNED)
        if sub.status != SubscriptionStatus.ACTIVE or not sub.setup_client_secret:
            sub = create(f"{key}-after-{sub.id}")
        return sub, records.ensure_row(sub).id
    if sub.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING, SubscriptionStatus.PAST_DUE) \
            and sub.payment_intent_id:
        invoices.record_payment(actor=buyer, payment_intent_id=sub.payment_intent_id, agent_id=agent_id,
                                user_id=None)
        raise Conflict(OWNED)
    if sub.status != SubscriptionStatus.INCOMPLETE or not sub.client_secret:
        sub = create(f"{key}-after-{sub.id}")  # that one expired or ended: a new subscription
    return sub, records.ensure_row(sub).id
