"""The customer's saved cards (the Payment tab's): list, add (a SetupIntent's client secret), make one the
default for every subscription, remove one. Another customer's card is a 404, as an unknown one."""

from __future__ import annotations

from fastapi import APIRouter, Response

from marketplace.api.deps import OptionalUser
from marketplace.models.billing import PaymentMethodPublic, PaymentMethodSetupPublic
from marketplace.services.billing import payment_methods

router = APIRouter(prefix="/api/user/payment-methods", tags=["payment methods"])


def _public(saved: list[payment_methods.SavedCard]) -> list[PaymentMethodPublic]:
    return [PaymentMethodPublic.model_validate(card) for card in saved]


@router.get("", response_model=list[PaymentMethodPublic])
def list_payment_methods(user: OptionalUser) -> list[PaymentMethodPublic]:
    """The cards saved in Stripe, newest first; `isDefault` marks the one the subscriptions charge."""
    return _public(payment_methods.list_cards(actor=user))


@router.post("/setup", response_model=PaymentMethodSetupPublic)
def start_setup(user: OptionalUser) -> PaymentMethodSetupPublic:
    """A SetupIntent's client secret for the Payment Element (`confirmSetup`); Stripe keeps the card."""
    return PaymentMethodSetupPublic(client_secret=payment_methods.start_adding_card(actor=user))


@router.post("/{payment_method_id}/default", response_model=list[PaymentMethodPublic])
def make_default(payment_method_id: str, user: OptionalUser) -> list[PaymentMethodPublic]:
    """Every active subscription charges this card from now on; answers the cards."""
    return _public(payment_methods.make_default(actor=user, payment_method_id=payment_method_id))


@router.delete("/{payment_method_id}", status_code=204, response_class=Response)
def remove(payment_method_id: str, user: OptionalUser) -> Response:
    """Forget a card; 409 while an active subscription is charged with it."""
    payment_methods.remove_card(actor=user, payment_method_id=payment_method_id)
    return Response(status_code=204)
