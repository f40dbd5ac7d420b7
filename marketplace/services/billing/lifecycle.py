"""A subscription's life after checkout: Stripe's view mirrored, past due with its 7-day grace, the end of
access, the customer's cancel and resume, and ending one at once (a refund).

Every consequence happens once: each is a claim on the subscription row (`past_due_since IS NULL`,
`ended_at IS NULL`, `cancel_at_period_end = false`...), so webhooks replayed, late, out of order or racing the
customer's own request cause it exactly once, and the loser of two cancel requests gets a 409 and causes nothing.
Access is written only to `purchases.access_until`, by `services/access` (the one rule and its one writer)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import Purchase, Subscription, SubscriptionStatus, User
from marketplace.models.base import utcnow
from marketplace.services import access, decisions, mail, mail_texts, names, webhooks
from marketplace.services.billing import records, trials
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_user

LIVE = (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING, SubscriptionStatus.PAST_DUE)
ENDED = tuple(billing.ENDED_STATUSES)
NOT_FOUND = "Subscription not found"
ALREADY_CANCELLED = "This subscription is already cancelled: it ends at the end of the period"
NOT_CANCELLED = "This subscription is not cancelled"
HAS_ENDED = "This subscription has ended: subscribe again from the agent's page"
NOT_STARTED = "This subscription has not started: its first payment is not complete"
ID_MAX = 32


def card_update_path(subscription_id: str) -> str:
    """The page where a customer gives a new card for a subscription (the payment-failed mail links to it)."""
    return f"/dashboard/billing/{subscription_id}"


@dataclass(frozen=True)
class SubscriptionView:
    id: str
    agent_id: str | None
    agent_name: str
    status: str
    price_cents: int
    currency: str
    current_period_end: datetime | None
    cancel_at_period_end: bool
    ended_at: datetime | None
    trial_end: datetime | None = None  # a free trial's end; `trialing` is the status until then

    @property
    def trialing(self) -> bool:
        return not self.ended and self.status == SubscriptionStatus.TRIALING and self.trial_end is not None

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    @property
    def can_cancel(self) -> bool:
        return not self.ended and self.status in LIVE and not self.cancel_at_period_end

    @property
    def can_resume(self) -> bool:
        return not self.ended and self.status in LIVE and self.cancel_at_period_end

    @property
    def past_due(self) -> bool:
        return not self.ended and self.status == SubscriptionStatus.PAST_DUE

    @classmethod
    def of(cls, row: Subscription) -> SubscriptionView:
        return cls(id=row.id, agent_id=row.agent_id, agent_name=row.agent_name, status=row.status,
                   price_cents=row.price_cents, currency=row.currency, current_period_end=row.current_period_end,
                   cancel_at_period_end=row.cancel_at_period_end, ended_at=row.ended_at, trial_end=row.trial_end)


# ---- Stripe's view, mirrored ----------------------------------------------------------------------------------


def mirror(sub: billing.Subscription) -> Subscription | None:
    """Write Stripe's current view of `sub` (retrieved, so any delivery order ends in the same state) and apply
    what its status means once: past due starts the grace, an ended status ends access. None: not ours."""
    try:
        row = records.ensure_row(sub)
    except Invalid:
        return None
    if trials.started(sub) and row.trial_end is None:
        row = trials.record_trial(sub) or row  # the trial's card is saved: it starts (once)
    if _mirrored(row, sub):
        return row  # nothing to write (a replay, or the invoice event after the subscription's own)
    now = utcnow()
    # An ended subscription stays ended: a view retrieved before it ended (a slow handler) cannot revive it.
    still_open = () if sub.status in ENDED else (Subscription.ended_at.is_(None),)
    with session_scope() as session:
        # Cancelled on Stripe's side (the dashboard, Stripe's portal, the API outside the app): the vendor hears
        # `subscription.cancelled` once. A cancellation made in the app claimed the flag before it told Stripe
        # (`_set_cancel`), so its own webhook finds nothing to claim here and is not announced twice.
        cancelled_outside = sub.cancel_at_period_end and sub.status not in ENDED and decisions.claim_any(
            session, Subscription, Subscription.id == row.id, Subscription.ended_at.is_(None),
            Subscription.cancel_at_period_end.is_(False),
            values={"cancel_at_period_end": True, "canceled_at": sub.canceled_at or now, "updated_at": now}) == 1
        decisions.claim_any(session, Subscription, Subscription.id == row.id, *still_open, values={
            "status": sub.status, "current_period_end": sub.current_period_end,
            "cancel_at_period_end": sub.cancel_at_period_end, "updated_at": now})
        if cancelled_outside:
            cancelled = session.exec(select(Subscription).where(Subscription.id == row.id)
                                     .execution_options(populate_existing=True)).one()
            webhooks.enqueue(session, vendor_id=cancelled.vendor_id, type=webhooks.events.SUBSCRIPTION_CANCELLED,
                             obj=webhooks.subscription_object(cancelled))
        if sub.status == SubscriptionStatus.PAST_DUE:
            _start_grace(session, row.id, now)
        elif sub.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING):
            decisions.claim_any(session, Subscription, Subscription.id == row.id,
                                Subscription.past_due_since.is_not(None), values={"past_due_since": None})
        elif sub.status in ENDED and _end_access(session, row.id, now):
            _tell_lapsed(session, row.id)
        return session.get(Subscription, row.id)


def _mirrored(row: Subscription, sub: billing.Subscription) -> bool:
    """The row already says what Stripe says, and what that status means has been applied."""
    if (row.status, row.current_period_end, row.cancel_at_period_end) != (
            sub.status, sub.current_period_end, sub.cancel_at_period_end):
        return False
    if sub.status == SubscriptionStatus.PAST_DUE:
        return row.past_due_since is not None or row.ended_at is not None
    if sub.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING):
        return row.past_due_since is None
    return sub.status not in ENDED or row.ended_at is not None


def _start_grace(session: Session, row_id: str, now: datetime) -> None:
    """The first failed renewal: access lasts at least 7 more days, and the customer gets the update-card link."""
    if not decisions.claim_any(session, Subscription, Subscription.id == row_id,
                               Subscription.past_due_since.is_(None), Subscription.ended_at.is_(None),
                               values={"past_due_since": now}):
        return
    grace_end = now + access.GRACE
    access.set_until(session, where=Purchase.subscription_id == row_id, until=grace_end, only="later")
    row = session.get(Subscription, row_id)
    buyer = session.get(User, row.user_id) if row is not None and row.user_id else None
    if row is None or buyer is None:
        return
    until = max(grace_end, row.current_period_end) if row.current_period_end else grace_end
    mail.send_after_commit(session, mail_texts.payment_failed(
        to=buyer.email, name=names.greeting_name(buyer), agent_name=row.agent_name,
        access_until=records.long_date(until), path=card_update_path(row.id)))


def _tell_lapsed(session: Session, row_id: str) -> None:
    """A subscription Stripe ended because its renewal was never paid (not cancelled by anyone): say so."""
    row = session.get(Subscription, row_id)
    if row is None or row.past_due_since is None or row.canceled_at is not None or not row.user_id:
        return
    buyer = session.get(User, row.user_id)
    if buyer is None or buyer.deleted_at is not None:
        return
    mail.send_after_commit(session, mail_texts.subscription_ended(
        to=buyer.email, name=names.greeting_name(buyer), agent_name=row.agent_name,
        agent_path=f"/agents/{row.agent_id}" if row.agent_id else "/agents"))


def _end_access(session: Session, row_id: str, now: datetime) -> bool:
    """Access of this subscription ends now (once); a purchase taken over by a newer subscription is left."""
    if not decisions.claim_any(session, Subscription, Subscription.id == row_id, Subscription.ended_at.is_(None),
                               values={"ended_at": now, "updated_at": now}):
        return False
    access.set_until(session, where=Purchase.subscription_id == row_id, until=now, only="sooner")
    row = session.exec(select(Subscription).where(Subscription.id == row_id)
                       .execution_options(populate_existing=True)).one()
    webhooks.enqueue(session, vendor_id=row.vendor_id, type=webhooks.events.SUBSCRIPTION_ENDED,
                     obj=webhooks.subscription_object(row))
    return True


def end_subscription_now(*, subscription_id: str) -> bool:
    """Cancel a subscription in Stripe at once and end its access now (a refund, a dispute lost). Safe to
    repeat: True only for the call that ended it. The caller has checked who may do this."""
    with session_scope() as session:
        row = session.get(Subscription, subscription_id)
        if row is None:
            raise NotFound(NOT_FOUND)
        stripe_id = row.stripe_subscription_id
    with provider_errors("The subscription could not be cancelled. Please try again."):
        sub = billing.cancel_now(stripe_id)
    with session_scope() as session:
        return end_in(session, subscription_id=subscription_id, now=utcnow(), status=sub.status)


def end_in(session: Session, *, subscription_id: str, now: datetime, status: str) -> bool:
    """In the caller's transaction: the subscription is cancelled with `status` and its access ends now (a
    refund, or `end_subscription_now` once Stripe cancelled it). True only for the write that ended it."""
    decisions.claim_any(session, Subscription, Subscription.id == subscription_id,
                        Subscription.canceled_at.is_(None), values={"canceled_at": now})
    decisions.claim_any(session, Subscription, Subscription.id == subscription_id,
                        values={"status": status, "cancel_at_period_end": False, "updated_at": now})
    return _end_access(session, subscription_id, now)


# ---- the customer's requests ---------------------------------------------------------------------------------


def owned(session: Session, user: User, subscription_id: str) -> Subscription:
    """The subscription if it is this user's: 404 when there is none, 403 when it is someone else's."""
    if not isinstance(subscription_id, str) or not subscription_id or len(subscription_id) > ID_MAX:
        raise NotFound(NOT_FOUND)
    row = session.get(Subscription, subscription_id)
    if row is None:
        raise NotFound(NOT_FOUND)
    if row.user_id != user.id:
        raise Forbidden("This subscription belongs to another account")
    return row


def list_subscriptions(*, actor: User | None) -> list[SubscriptionView]:
    """The customer's subscriptions that started (paid at least once, or a trial whose card is saved), newest
    first."""
    user = require_user(actor)
    with session_scope() as session:
        rows = session.exec(select(Subscription).where(
            Subscription.user_id == user.id,
            Subscription.status.not_in((SubscriptionStatus.INCOMPLETE, SubscriptionStatus.INCOMPLETE_EXPIRED)),
            # a trial checkout abandoned before the card was saved never started
            (Subscription.status != SubscriptionStatus.TRIALING) | Subscription.trial_end.is_not(None))
            .order_by(Subscription.created_at.desc(), Subscription.id)).all()
        return [SubscriptionView.of(row) for row in rows]


def _refusal(row: Subscription, *, cancelling: bool) -> str:
    """Why a cancel (or resume) request cannot change this subscription, read after the claim failed."""
    if row.ended_at is not None or row.status in ENDED:
        return HAS_ENDED
    if row.status not in LIVE:
        return NOT_STARTED
    return ALREADY_CANCELLED if cancelling else NOT_CANCELLED


def _set_cancel(actor: User | None, subscription_id: str, *, cancel: bool) -> SubscriptionView:
    """Claim the change on the row first (the loser of two requests gets 409 and causes nothing), then tell
    Stripe; if Stripe fails, the claim is given back."""
    user = require_user(actor)
    now = utcnow()
    with session_scope() as session:
        row = owned(session, user, subscription_id)
        try:
            decisions.claim(session, Subscription, Subscription.id == row.id, Subscription.ended_at.is_(None),
                            Subscription.status.in_(LIVE), Subscription.cancel_at_period_end == (not cancel),
                            values={"cancel_at_period_end": cancel, "canceled_at": now if cancel else None,
                                    "updated_at": now}, conflict="")
        except Conflict:
            session.refresh(row)
            raise Conflict(_refusal(row, cancelling=cancel)) from None
        stripe_id = row.stripe_subscription_id
    try:
        with provider_errors("The subscription could not be changed. Please try again."):
            billing.set_cancel_at_period_end(stripe_id, cancel)
    except Exception:
        with session_scope() as session:
            decisions.claim_any(session, Subscription, Subscription.id == subscription_id,
                                Subscription.cancel_at_period_end == cancel,
                                values={"cancel_at_period_end": not cancel, "canceled_at": None})
        raise
    with session_scope() as session:
        changed = session.get(Subscription, subscription_id)
        if changed is None:  # deleted between the two transactions (an account deletion)
            raise NotFound(NOT_FOUND)
        buyer = session.get(User, user.id)
        if cancel and buyer is not None and changed.current_period_end is not None:
            mail.send_after_commit(session, mail_texts.subscription_cancelled(
                to=buyer.email, name=names.greeting_name(buyer), agent_name=changed.agent_name,
                access_until=records.long_date(changed.current_period_end)))
        if cancel:
            webhooks.enqueue(session, vendor_id=changed.vendor_id, type=webhooks.events.SUBSCRIPTION_CANCELLED,
                             obj=webhooks.subscription_object(changed))
        elif not cancel and buyer is not None and changed.current_period_end is not None:
            mail.send_after_commit(session, mail_texts.subscription_resumed(
                to=buyer.email, name=names.greeting_name(buyer), agent_name=changed.agent_name,
                renews_on=records.long_date(changed.current_period_end)))
        return SubscriptionView.of(changed)


def cancel_subscription(*, actor: User | None, subscription_id: str) -> SubscriptionView:
    """Cancel at the end of the paid period: access stays until then, nothing more is charged."""
    return _set_cancel(actor, subscription_id, cancel=True)


def resume_subscription(*, actor: User | None, subscription_id: str) -> SubscriptionView:
    """Undo a cancellation before the period ends: renewals go on."""
    return _set_cancel(actor, subscription_id, cancel=False)
