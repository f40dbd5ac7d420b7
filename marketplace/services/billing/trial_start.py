"""The checkout page's completion call for a free trial, or for a subscription a 100% promotion code makes free
now (its card saved for the renewals, as a trial's): it mirrors the subscription (lifecycle) and records the
trial (trials) or the $0 first invoice (invoices), which lifecycle's mirroring itself calls, so it lives apart
from them."""

from __future__ import annotations

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import Subscription, SubscriptionStatus, User
from marketplace.services import guest_checkout
from marketplace.services.billing import invoices, lifecycle, trials
from marketplace.services.errors import Invalid, NotFound
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_user

CARD_NOT_SAVED = "The subscription has not started: the card was not saved"


def complete_trial(*, actor: User | None, subscription_id: str, agent_id: str | None = None) -> Subscription:
    """The checkout page's completion call after `confirmSetup`: the buyer's trial (or free first month) as
    Stripe has it now, recorded. 404/403 for a subscription that is not the actor's; 400 while the card is not saved."""
    user = require_user(actor)
    with session_scope() as session:
        row = lifecycle.owned(session, user, subscription_id)
        stripe_id, row_agent = row.stripe_subscription_id, row.agent_id
    return _record(subscription_id, stripe_id, row_agent, agent_id, actor=user)


def complete_guest_trial(*, subscription_id: str, agent_id: str | None = None) -> Subscription:
    """A signed-out guest's completion call after `confirmSetup`: as `complete_trial`, for a subscription opened
    by a guest checkout (its buyer an unclaimed guest account: 403 otherwise, 404 when there is none). What is
    recorded is what Stripe says, never what the browser does."""
    with session_scope() as session:
        row = session.get(Subscription, subscription_id) if isinstance(subscription_id, str) else None
        if row is None:
            raise NotFound(lifecycle.NOT_FOUND)
        stripe_id, row_agent, buyer_id = row.stripe_subscription_id, row.agent_id, row.user_id
    guest_checkout.require_guest_buyer(user_id=buyer_id)
    return _record(subscription_id, stripe_id, row_agent, agent_id, actor=None)  # checked: the guest's own


def _record(subscription_id: str, stripe_id: str, row_agent: str | None, agent_id: str | None, *,
            actor: User | None) -> Subscription:
    """The trial (or free first month) as Stripe has it now, recorded (both completion calls, after the
    caller's check; `actor`: the signed-in buyer, None for a guest checked by `complete_guest_trial`)."""
    if agent_id is not None and agent_id != row_agent:
        raise Invalid("This subscription is for another agent")
    with provider_errors():
        sub = billing.retrieve_subscription(stripe_id)
    if sub is not None and sub.trial_end is None and sub.status == SubscriptionStatus.ACTIVE:
        # No trial but nothing to pay now (a 100% promotion code): its $0 first invoice is the order.
        if sub.pending_setup_intent_id:
            raise Invalid(CARD_NOT_SAVED)
        invoices.record_free_start(actor=actor, sub=sub)
        with session_scope() as session:
            recorded_row = session.get(Subscription, subscription_id)
        if recorded_row is None:
            raise NotFound(lifecycle.NOT_FOUND)
        return recorded_row
    if sub is None or not trials.started(sub):
        with session_scope() as session:
            done = session.get(Subscription, subscription_id)
            if done is not None and done.trial_end is not None:
                return done  # recorded already; Stripe has moved on (the trial ended, or it was cancelled)
        raise Invalid(trials.NOT_STARTED)
    lifecycle.mirror(sub)
    recorded = trials.record_trial(sub)
    if recorded is None:
        raise Invalid(trials.NOT_STARTED)
    return recorded
