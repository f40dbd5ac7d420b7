"""The customer's subscriptions: list, cancel at the period's end, resume, and a new card."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.api.deps import OptionalUser
from marketplace.models.billing import CardUpdateDoneIn, CardUpdatePublic, SubscriptionPublic
from marketplace.services import billing, money

router = APIRouter(prefix="/api/user/subscriptions", tags=["subscriptions"])


def _public(view: billing.SubscriptionView) -> SubscriptionPublic:
    return SubscriptionPublic(id=view.id, agent_id=view.agent_id, agent_name=view.agent_name, status=view.status,
                              price=money.format_cents(view.price_cents), currency=view.currency,
                              current_period_end=view.current_period_end,
                              cancel_at_period_end=view.cancel_at_period_end, trial_end=view.trial_end)


@router.get("", response_model=list[SubscriptionPublic])
def list_subscriptions(user: OptionalUser) -> list[SubscriptionPublic]:
    return [_public(view) for view in billing.list_subscriptions(actor=user)]


@router.post("/{subscription_id}/cancel", response_model=SubscriptionPublic)
def cancel(subscription_id: str, user: OptionalUser) -> SubscriptionPublic:
    """Cancel at the end of the paid period (access stays until then); 409 when already cancelled or ended."""
    return _public(billing.cancel_subscription(actor=user, subscription_id=subscription_id))


@router.post("/{subscription_id}/resume", response_model=SubscriptionPublic)
def resume(subscription_id: str, user: OptionalUser) -> SubscriptionPublic:
    """Undo a cancellation before the period ends; 409 when not cancelled or already ended."""
    return _public(billing.resume_subscription(actor=user, subscription_id=subscription_id))


@router.post("/{subscription_id}/card", response_model=CardUpdatePublic)
def start_card_update(subscription_id: str, user: OptionalUser) -> CardUpdatePublic:
    """A SetupIntent's client secret for the update-card page's Payment Element."""
    update = billing.start_card_update(actor=user, subscription_id=subscription_id)
    return CardUpdatePublic(client_secret=update.client_secret, subscription=_public(update.subscription))


@router.post("/{subscription_id}/card/complete", response_model=SubscriptionPublic)
def finish_card_update(subscription_id: str, body: CardUpdateDoneIn, user: OptionalUser) -> SubscriptionPublic:
    """The confirmed card becomes the subscription's default; a past-due invoice is paid with it."""
    return _public(billing.finish_card_update(actor=user, subscription_id=subscription_id,
                                              setup_intent_id=body.setup_intent_id))
