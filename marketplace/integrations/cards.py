"""A customer's saved cards in Stripe: list, look up, detach, and which one pays by default.

Beside `billing.py` (subscriptions, invoices, SetupIntents) on the same client and errors: every failure is a
`payments.PaymentsError`. A card is added by a SetupIntent (`billing.create_setup_intent`) that the browser
confirms; Stripe attaches it to the customer. "The default" is Stripe's two places: the customer's
`invoice_settings.default_payment_method` (what a subscription without its own card charges) and each
subscription's `default_payment_method` (which wins over the customer's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marketplace.integrations.billing import _call, _id
from marketplace.integrations.payments import _find, _plain, client

LIST_LIMIT = 100  # Stripe's page size limit; nobody keeps more cards than that


@dataclass(frozen=True)
class Card:
    id: str
    customer: str | None
    brand: str
    last4: str
    exp_month: int
    exp_year: int


def _card(sdk_obj: Any) -> Card:
    obj = _plain(sdk_obj)
    card = obj.get("card") or {}
    return Card(id=str(obj["id"]), customer=_id(obj.get("customer")), brand=str(card.get("brand") or "card"),
                last4=str(card.get("last4") or ""), exp_month=int(card.get("exp_month") or 0),
                exp_year=int(card.get("exp_year") or 0))


def list_cards(customer: str) -> list[Card]:
    """The customer's cards, newest first (Stripe's order)."""
    page = _call(client().v1.customers.payment_methods.list, customer,
                 params={"type": "card", "limit": LIST_LIMIT})
    return [_card(item) for item in page.data]


def retrieve_card(payment_method_id: str) -> Card | None:
    """The card as Stripe has it, or None when Stripe does not know the id."""
    found = _find(client().v1.payment_methods.retrieve, payment_method_id)
    return None if found is None else _card(found)


def detach_card(payment_method_id: str) -> None:
    """Forget the card; Stripe clears the customer's and subscriptions' defaults that named it."""
    _call(client().v1.payment_methods.detach, payment_method_id)


def default_card_id(customer: str) -> str | None:
    """The customer's `invoice_settings.default_payment_method`."""
    obj = _plain(_call(client().v1.customers.retrieve, customer))
    return _id((obj.get("invoice_settings") or {}).get("default_payment_method"))


def set_default_card(customer: str, payment_method_id: str) -> None:
    """The card the customer's invoices are charged with when their subscription names none."""
    _call(client().v1.customers.update, customer,
          params={"invoice_settings": {"default_payment_method": payment_method_id}})
