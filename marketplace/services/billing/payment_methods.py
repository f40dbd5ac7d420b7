"""The customer's saved cards (the dashboard's Payment tab): list them from Stripe, add one with a SetupIntent,
make one the default for every subscription, remove one that no live subscription needs.

The cards live in Stripe only; the database keeps nothing about them. A card is the actor's when Stripe says it
is attached to the actor's Customer: any other id (another customer's card, a made-up id) is 'not found', so
the answer never tells whether a card exists elsewhere. "The default" is what the customer's subscriptions are
charged with: the customer's `invoice_settings.default_payment_method`, or, while that is unset, the card the
newest live subscription names (the checkout saves the card on the subscription only).

Making a card the default and removing one take several Stripe calls each; run at the same moment on the same
card they could interleave (the default set on a subscription, then the card detached under it) and leave a
subscription with no card at Stripe. So each is one decision per customer: it first claims the customer's
`cards_busy_until` lease with one conditional UPDATE (`cards_claimed`), reads the cards only after, and a
second change meanwhile is refused with `CARDS_BUSY`. The lease (a minute, longer than the Stripe calls take)
frees a customer whose request died. The update-card page (`card.finish_card_update`) takes the same lease.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import or_

from marketplace.db import session_scope
from marketplace.integrations import billing, cards
from marketplace.models import BillingCustomer, User
from marketplace.models.base import utcnow
from marketplace.services import decisions
from marketplace.services.billing import customers
from marketplace.services.errors import Conflict, NotFound
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_user

NOT_FOUND = "Payment method not found"
NEEDED = "This card pays an active subscription. Make another card the default first."
CARDS_BUSY = "Your cards are being changed in another window. Please try again in a moment."
CARDS_LEASE = timedelta(minutes=1)
# Stripe's ids (a card saved before PaymentMethods lists as `card_...`); anything else cannot be the actor's card.
ID_RE = re.compile(r"(?:pm|card)_[A-Za-z0-9_]{1,120}")


@dataclass(frozen=True)
class SavedCard:
    id: str
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    is_default: bool


def _customer_of(user: User) -> str | None:
    """The user's Stripe Customer id, or None before their first checkout or saved card."""
    with session_scope() as session:
        row = session.get(BillingCustomer, user.id)
        return row.stripe_customer_id if row is not None else None


def _default_of(customer: str, subscriptions: list[billing.Subscription]) -> str | None:
    """The card the customer's subscriptions are charged with (see the module's note)."""
    chosen = cards.default_card_id(customer)
    if chosen:
        return chosen
    return next((sub.default_payment_method for sub in subscriptions if sub.default_payment_method), None)


def _listing(customer: str) -> list[SavedCard]:
    with provider_errors():
        found = cards.list_cards(customer)
        default = _default_of(customer, billing.live_subscriptions(customer)) if found else None
    return [SavedCard(id=c.id, brand=c.brand, last4=c.last4, exp_month=c.exp_month, exp_year=c.exp_year,
                      is_default=c.id == default) for c in found]


def _checked_id(user: User, payment_method_id: object) -> str:
    """The actor's Customer, for an id that can be one of their cards; NotFound for anything else."""
    if not isinstance(payment_method_id, str) or not ID_RE.fullmatch(payment_method_id):
        raise NotFound(NOT_FOUND)
    customer = _customer_of(user)
    if customer is None:
        raise NotFound(NOT_FOUND)
    return customer


def _owned_card(customer: str, payment_method_id: str) -> cards.Card:
    """The card `payment_method_id` as Stripe has it, if it is attached to `customer`; else NotFound."""
    with provider_errors():
        card = cards.retrieve_card(payment_method_id)
    if card is None or card.customer != customer:
        raise NotFound(NOT_FOUND)
    return card


@contextmanager
def cards_claimed(user: User) -> Iterator[None]:
    """Hold the customer's cards lease for the block: one conditional UPDATE decides, so of two changes at the
    same moment one goes on and the other gets Conflict(CARDS_BUSY) having called Stripe for nothing. Given back
    at the end (unless it ran out and another request holds it now)."""
    now = utcnow()
    until = now + CARDS_LEASE
    with session_scope() as session:
        decisions.claim(session, BillingCustomer, BillingCustomer.user_id == user.id,
                        or_(BillingCustomer.cards_busy_until.is_(None), BillingCustomer.cards_busy_until <= now),
                        values={"cards_busy_until": until}, conflict=CARDS_BUSY)
    try:
        yield
    finally:
        with session_scope() as session:
            decisions.claim_any(session, BillingCustomer, BillingCustomer.user_id == user.id,
                                BillingCustomer.cards_busy_until == until, values={"cards_busy_until": None})


def list_cards(*, actor: User | None) -> list[SavedCard]:
    """The actor's cards, newest first, the one their subscriptions charge marked `is_default`."""
    user = require_user(actor)
    customer = _customer_of(user)
    return [] if customer is None else _listing(customer)


def start_adding_card(*, actor: User | None) -> str:
    """The client secret of a SetupIntent for the actor's Customer (made now if they have none), which the
    Payment Element confirms; Stripe then attaches the card, and the next listing shows it."""
    user = require_user(actor)
    customer = customers.customer_id_for(user=user)
    with provider_errors():
        intent = billing.create_setup_intent(customer=customer, metadata={"userId": user.id,
                                                                          "purpose": "saved_card"})
    return intent.client_secret


def make_default(*, actor: User | None, payment_method_id: object) -> list[SavedCard]:
    """Every live subscription charges this card from now on: the customer's default and each live
    subscription's own card (which would otherwise win over the customer's). Answers the cards as they are."""
    user = require_user(actor)
    customer = _checked_id(user, payment_method_id)
    with cards_claimed(user):
        card = _owned_card(customer, str(payment_method_id))  # read after claiming: not detached meanwhile
        with provider_errors():
            cards.set_default_card(customer, card.id)
            for sub in billing.live_subscriptions(customer):
                if sub.default_payment_method != card.id:
                    billing.set_default_payment_method(sub.id, card.id)
    return _listing(customer)


def remove_card(*, actor: User | None, payment_method_id: object) -> list[SavedCard]:
    """Detach a card that no live subscription is charged with; Conflict (NEEDED) for one that is. Answers the
    cards that are left."""
    user = require_user(actor)
    customer = _checked_id(user, payment_method_id)
    with cards_claimed(user):
        card = _owned_card(customer, str(payment_method_id))
        with provider_errors():  # read after claiming: no default can move onto this card meanwhile
            subscriptions = billing.live_subscriptions(customer)
            customer_default = cards.default_card_id(customer)
        for sub in subscriptions:
            charged = sub.default_payment_method or customer_default
            if charged == card.id:
                raise Conflict(NEEDED)
        with provider_errors():
            cards.detach_card(card.id)
    return _listing(customer)
