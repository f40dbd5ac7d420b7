"""Free trials of monthly agents (issue 31): who gets one, the trial recorded once its card is saved, and the
mail three days before its end.

One trial per customer per agent: a subscription row whose `trial_end` is set is a trial had, so a later
subscription to the same agent (after a cancel or a lapse) starts paid. A trial counts as started only when the
card is saved (Stripe's `pending_setup_intent` succeeded and is gone): a checkout abandoned before that leaves a
trialing subscription without a card, which Stripe cancels at the trial's end and which grants nothing.

`record_trial` is the one path for the checkout page's completion call and the webhooks, in any order and any
number of times: setting `trial_end` is a claim (`trial_end IS NULL`), and only its winner grants access (to the
trial's end), makes the licence key and sends the mail. The first charge at the trial's end is recorded as any
subscription's first payment (services/billing/records)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import Agent, PricingModel, Purchase, Subscription, SubscriptionStatus, User
from marketplace.services import (
    access,
    decisions,
    guest_checkout,
    licenses,
    mail,
    mail_texts,
    money,
    names,
    promotions,
)
from marketplace.services.billing import records
from marketplace.services.errors import Invalid
from marketplace.services.payment_errors import provider_errors

NOT_STARTED = "The free trial has not started: the card was not saved"


def had_trial(session: Session, *, user_id: str, agent_id: str) -> bool:
    """The customer had (or has) a free trial of this agent."""
    return (
        session.exec(
            select(Subscription.id).where(
                Subscription.user_id == user_id, Subscription.agent_id == agent_id, Subscription.trial_end.is_not(None)
            )
        ).first()
        is not None
    )


def trial_days_for(session: Session, *, buyer_id: str, agent: Agent) -> int:
    """The free days this buyer's subscription to `agent` starts with: the agent's trial, unless the buyer had
    one of it already (then 0: it starts paid)."""
    if agent.pricing_model != PricingModel.MONTHLY or agent.trial_days <= 0 or agent.price_cents == 0:
        return 0
    return 0 if had_trial(session, user_id=buyer_id, agent_id=agent.id) else agent.trial_days


def started(sub: billing.Subscription) -> bool:
    """Stripe's subscription is in a trial whose card is saved."""
    return sub.status == SubscriptionStatus.TRIALING and sub.trial_end is not None and not sub.pending_setup_intent_id


def record_trial(sub: billing.Subscription) -> Subscription | None:
    """The trial of `sub` recorded (idempotent): the row's `trial_end`, access until then, the licence key and
    the trial mail. None when `sub` is not a started trial or not ours."""
    if not started(sub):
        return None
    try:
        row = records.ensure_row(sub)
    except Invalid:
        return None
    with session_scope() as session:
        if decisions.claim_any(
            session,
            Subscription,
            Subscription.id == row.id,
            Subscription.trial_end.is_(None),
            Subscription.ended_at.is_(None),
            values={"trial_end": sub.trial_end, "status": sub.status, "current_period_end": sub.current_period_end},
        ):
            _grant(session, row.id, sub.trial_end)  # type: ignore[arg-type]  # a started trial has an end
            code_id = sub.metadata.get("promotionCodeId")
            if code_id and row.user_id:  # the buyer is committed: the code's hold is redeemed (no order yet)
                promotions.redeem_for_subscription(session, code_id=code_id, buyer_id=row.user_id, order_id=None,
                                                   payment_intent_id=None)
        return session.get(Subscription, row.id)


def _grant(session: Session, row_id: str, trial_end: datetime) -> None:
    """Access to the trial's end (with the renewal slack, as a paid period), the key, and the mail; a customer
    who has access to the agent already (another live subscription or a licence) is given nothing new."""
    row = session.get(Subscription, row_id)
    if row is None or row.user_id is None or row.agent_id is None:
        return
    buyer = session.get(User, row.user_id)
    if buyer is None:
        return
    purchase = session.exec(
        select(Purchase).where(Purchase.user_id == row.user_id, Purchase.agent_id == row.agent_id)
    ).first()
    until = trial_end + access.RENEWAL_SLACK
    if purchase is None:
        purchase = Purchase(
            user_id=row.user_id,
            agent_id=row.agent_id,
            order_id=None,
            purchase_price_cents=0,
            currency=row.currency,
            subscription_id=row.id,
        )
        session.add(purchase)
        session.flush()
    elif purchase.subscription_id != row.id:
        if access.has_access(session, user_id=row.user_id, agent_id=row.agent_id):
            return
        # A lapsed subscription's or licence's purchase (no access any more) is taken over by this trial.
        purchase.subscription_id, purchase.order_id, purchase.purchase_price_cents = row.id, None, 0
        session.add(purchase)
        session.flush()
    access.set_until(session, where=Purchase.id == purchase.id, until=until)
    key = licenses.ensure_key(session, purchase=purchase)
    mail.send_after_commit(
        session,
        mail_texts.trial_started(
            to=buyer.email,
            name=names.greeting_name(buyer),
            agent_name=row.agent_name,
            agent_id=row.agent_id,
            license_key=key.key if key else "",
            ends_on=records.long_date(trial_end),
            then=_then(row),
            sign_in_token=guest_checkout.sign_in_token(session, buyer=buyer),
        ),
    )


def _then(row: Subscription) -> str:
    return money.price_label(row.price_cents, pricing_model=PricingModel.MONTHLY, currency=row.currency)


def trial_will_end(stripe_subscription_id: str) -> str:
    """`customer.subscription.trial_will_end`: the customer is told when the first charge comes, unless the
    subscription is already cancelled (then nothing will be charged). The webhook is handled once per event."""
    with provider_errors():
        sub = billing.retrieve_subscription(stripe_subscription_id)
    if sub is None or sub.status != SubscriptionStatus.TRIALING or sub.trial_end is None:
        return "ignored"
    record_trial(sub)
    with session_scope() as session:
        row = session.exec(select(Subscription).where(Subscription.stripe_subscription_id == sub.id)).first()
        if (
            row is None
            or row.trial_end is None
            or row.cancel_at_period_end
            or sub.cancel_at_period_end
            or row.user_id is None
        ):
            return "ignored"
        buyer = session.get(User, row.user_id)
        if buyer is None or buyer.deleted_at is not None:
            return "ignored"
        mail.send_after_commit(
            session,
            mail_texts.trial_ending(
                to=buyer.email,
                name=names.greeting_name(buyer),
                agent_name=row.agent_name,
                ends_on=records.long_date(sub.trial_end),
                then=_then(row),
            ),
        )
    return "mailed"
