"""Free trials of monthly agents (issue 31) against the Stripe stand-in, on a test clock: the card saved and
not charged, the trial recorded by the browser and the webhooks in any order, the mail three days before the
end, the first charge at the end (paid or failed), cancelling during the trial, and one trial per customer per
agent."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import LicenseKey, Order, OrderKind, Purchase, Subscription, SubscriptionStatus
from marketplace.services import access, billing, pricing, purchases
from marketplace.services.billing import trials
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from tests import factories
from tests.payments_fixtures import on_clock, sign

DAY = timedelta(days=1)


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


def _row(subscription_id: str) -> Subscription:
    with db.session_scope() as session:
        return session.get(Subscription, subscription_id)


def _orders(subscription_id: str) -> list[Order]:
    with db.session_scope() as session:
        return list(
            session.exec(
                select(Order).where(Order.subscription_id == subscription_id).order_by(Order.created_at, Order.id)
            ).all()
        )


def _purchase(user_id: str, agent_id: str) -> Purchase | None:
    with db.session_scope() as session:
        return session.exec(select(Purchase).where(Purchase.user_id == user_id, Purchase.agent_id == agent_id)).first()


def _has_access(user_id: str, agent_id: str, now: datetime | None = None) -> bool:
    with db.session_scope() as session:
        return access.has_access(session, user_id=user_id, agent_id=agent_id, now=now)


def _start_trial(standin, buyer, agent, card: str = "4242424242424242") -> purchases.CheckoutIntent:
    """Checkout of a trial: the Payment Element confirms the SetupIntent (nothing is charged), then the page's
    completion call with the subscription's id."""
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert intent.intent_type == "setup" and intent.client_secret.startswith("seti_")
    assert standin.confirm_setup(intent.client_secret, card).json()["status"] == "succeeded"
    billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id or "", agent_id=agent.id)
    return intent


def _utc(moment: datetime) -> datetime:
    """Stripe's times are aware, the rows' naive UTC (SQLite) or aware (PostgreSQL)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _clock(standin, monkeypatch) -> tuple[str, datetime]:
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1)
    return on_clock(standin, monkeypatch, start), start


def test_a_trial_saves_the_card_charges_nothing_and_gives_access_until_its_end(
    app_webhooks, buyer, make_vendor, make_agent, monkeypatch, mailbox
):
    standin = app_webhooks
    _clock_id, start = _clock(standin, monkeypatch)
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999, name="Trial Bot", trial_days=7)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert (intent.mode, intent.intent_type, intent.trial_days, intent.trial_used) == (
        "subscription",
        "setup",
        7,
        False,
    )
    assert intent.trial_end is not None and abs(_utc(intent.trial_end) - (start + 7 * DAY)) < timedelta(minutes=2)
    # Not started until the card is saved: the completion call says so, the list and access know nothing of it.
    with pytest.raises(Invalid, match="card was not saved"):
        billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id)
    assert billing.list_subscriptions(actor=buyer) == [] and not _has_access(buyer.id, agent.id)
    assert standin.confirm_setup(intent.client_secret).json()["status"] == "succeeded"
    # Someone else's, an unknown id, another agent, signed out: refused.
    with pytest.raises(Forbidden):
        billing.complete_trial(actor=factories.make_user(), subscription_id=intent.subscription_id)
    with pytest.raises(NotFound):
        billing.complete_trial(actor=buyer, subscription_id="x" * 40)
    with pytest.raises(Invalid):
        billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id, agent_id="other")
    with pytest.raises(Unauthorized):
        billing.complete_trial(actor=None, subscription_id=intent.subscription_id)
    # The browser's call and the webhooks, in any order and more than once: one trial, one key, one mail.
    for _ in range(2):
        billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id, agent_id=agent.id)
    standin.drain()
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.TRIALING and _utc(row.trial_end) == _utc(intent.trial_end)
    assert _orders(row.id) == []  # nothing charged: the $0 trial invoice is no order
    purchase = _purchase(buyer.id, agent.id)
    assert purchase.subscription_id == row.id and purchase.access_until == row.trial_end + access.RENEWAL_SLACK
    assert _has_access(buyer.id, agent.id)
    with db.session_scope() as session:
        assert len(session.exec(select(LicenseKey).where(LicenseKey.user_id == buyer.id)).all()) == 1
    [view] = billing.list_subscriptions(actor=buyer)
    assert (view.status, view.trialing) == ("trialing", True) and view.trial_end == row.trial_end
    assert [m.subject for m in mailbox.messages(buyer.email)].count("Your free trial: Trial Bot") == 1
    stripe_sub = standin.stripe.v1.subscriptions.retrieve(row.stripe_subscription_id)
    assert stripe_sub.status == "trialing" and stripe_sub.pending_setup_intent is None
    assert stripe_sub.default_payment_method  # the card that pays after the trial
    # A second checkout while the trial runs: the buyer owns the agent.
    with pytest.raises(Conflict):
        purchases.create_payment_intent(actor=buyer, agent_id=agent.id)


def test_the_trial_ends_with_a_mail_three_days_before_and_a_normal_first_payment(
    app_webhooks, buyer, make_vendor, make_agent, monkeypatch, mailbox
):
    standin = app_webhooks
    clock, _start = _clock(standin, monkeypatch)
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999, name="Convert Bot", trial_days=7)
    intent = _start_trial(standin, buyer, agent)
    trial_end = _utc(_row(intent.subscription_id).trial_end)
    standin.advance(clock, int((trial_end - 3 * DAY - timedelta(hours=1)).timestamp()))
    assert not [m for m in mailbox.messages(buyer.email) if "ends on" in m.subject]
    standin.advance(clock, int((trial_end - 3 * DAY + timedelta(hours=1)).timestamp()))
    ending = mailbox.last(
        buyer.email, f"Your free trial of Convert Bot ends on {trial_end:%B} {trial_end.day}, {trial_end.year}"
    )
    assert "$29.99/month" in ending.text
    assert _orders(intent.subscription_id) == []
    standin.advance(clock, int((trial_end + timedelta(hours=2)).timestamp()))
    [first] = _orders(intent.subscription_id)
    assert first.kind == OrderKind.SUBSCRIPTION and first.commission_split_enabled
    assert (first.total_amount_cents, first.vendor_amount_cents, first.platform_fee_cents) == (2999, 2399, 600)
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.ACTIVE and _utc(row.current_period_end) > trial_end + 27 * DAY
    purchase = _purchase(buyer.id, agent.id)
    assert purchase.order_id == first.id and purchase.access_until == row.current_period_end + access.RENEWAL_SLACK
    mailbox.last(buyer.email, "Your receipt: Convert Bot")
    mailbox.last(vendor.email, "New sale: Convert Bot")


def test_a_failed_first_charge_after_the_trial_takes_the_past_due_path(
    app_webhooks, buyer, make_agent, monkeypatch, mailbox
):
    standin = app_webhooks
    clock, _start = _clock(standin, monkeypatch)
    agent = make_agent(price_cents=1500, name="Decline Bot", trial_days=3)
    intent = _start_trial(standin, buyer, agent)
    row = _row(intent.subscription_id)
    card = standin.stripe.v1.subscriptions.retrieve(row.stripe_subscription_id).default_payment_method
    httpx.post(
        f"{standin.base}/_standin/payment_methods/{card}/decline_later", json={"decline_code": "insufficient_funds"}
    ).raise_for_status()
    standin.advance(clock, int((_utc(row.trial_end) + timedelta(hours=2)).timestamp()))
    row = _row(row.id)
    assert row.status == SubscriptionStatus.PAST_DUE and row.past_due_since is not None
    assert _orders(row.id) == [] and _has_access(buyer.id, agent.id)
    mailbox.last(buyer.email, "Payment failed: Decline Bot")


def test_cancelling_during_the_trial_charges_nothing_and_keeps_access_to_its_end(
    app_webhooks, buyer, make_agent, monkeypatch, mailbox
):
    standin = app_webhooks
    clock, _start = _clock(standin, monkeypatch)
    agent = make_agent(price_cents=1500, name="Cancel Bot", trial_days=5)
    intent = _start_trial(standin, buyer, agent)
    view = billing.cancel_subscription(actor=buyer, subscription_id=intent.subscription_id)
    assert view.cancel_at_period_end and _utc(view.current_period_end) == _utc(view.trial_end)
    standin.drain()
    trial_end = _row(intent.subscription_id).trial_end
    mailbox.last(buyer.email, "Subscription cancelled: Cancel Bot")
    assert _has_access(buyer.id, agent.id, now=trial_end - timedelta(hours=1))
    standin.advance(clock, int((_utc(trial_end) + timedelta(hours=2)).timestamp()))
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.CANCELED and row.ended_at is not None
    assert _orders(row.id) == [] and not _has_access(buyer.id, agent.id)
    invoices = standin.stripe.v1.invoices.list(params={"subscription": row.stripe_subscription_id}).data
    assert sum(i.amount_paid for i in invoices) == 0

    # One trial per customer per agent: subscribing again starts paid, and checkout says so.
    again = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert (again.intent_type, again.trial_days, again.trial_used) == ("payment", 0, True)
    assert again.client_secret.startswith("pi_")
    assert standin.confirm(again.client_secret).json()["status"] == "succeeded"
    done = purchases.complete_payment(actor=buyer, payment_intent_id=again.payment_intent_id)
    assert done.order.total_amount_cents == 1500 and done.order.kind == OrderKind.SUBSCRIPTION
    standin.drain()
    assert _row(again.subscription_id).trial_end is None
    # Another customer still gets the trial.
    other = factories.make_user()
    assert purchases.create_payment_intent(actor=other, agent_id=agent.id).trial_days == 5


def test_an_abandoned_trial_checkout_grants_nothing_and_is_reused(stripe_standin, buyer, make_agent):
    agent = make_agent(price_cents=1500, trial_days=7)
    first = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    second = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)  # a reload
    assert second.subscription_id == first.subscription_id and second.client_secret == first.client_secret
    assert billing.list_subscriptions(actor=buyer) == [] and not _has_access(buyer.id, agent.id)
    with db.session_scope() as session:
        assert not trials.had_trial(session, user_id=buyer.id, agent_id=agent.id)
    stripe_sub = stripe_standin.stripe.v1.subscriptions.retrieve(_row(first.subscription_id).stripe_subscription_id)
    assert stripe_sub.trial_settings.end_behavior.missing_payment_method == "cancel"


def test_one_time_and_free_agents_have_no_trial(stripe_standin, buyer, make_agent):
    with db.session_scope() as session:
        for agent in (
            make_agent(price_cents=4900, pricing_model="one_time", trial_days=7),
            make_agent(price_cents=0, trial_days=7),
        ):
            assert trials.trial_days_for(session, buyer_id=buyer.id, agent=agent) == 0
    assert (
        pricing.trial_offer(trial_days=7, pricing_model="monthly", price_cents=2999)
        == "Free for 7 days, then $29.99/month"
    )
    assert (
        pricing.trial_offer(trial_days=1, pricing_model="monthly", price_cents=2999)
        == "Free for 1 day, then $29.99/month"
    )
    assert pricing.trial_offer(trial_days=0, pricing_model="monthly", price_cents=2999) == ""


def test_the_browser_and_the_webhooks_at_the_same_moment_record_one_trial(stripe_standin, buyer, make_agent, mailbox):
    """The completion call and the webhooks racing: one trial recorded, one purchase and key, one mail."""
    agent = make_agent(price_cents=1500, name="Race Trial Bot", trial_days=7)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert stripe_standin.confirm_setup(intent.client_secret).json()["status"] == "succeeded"
    stripe_id = _row(intent.subscription_id).stripe_subscription_id
    events = [e.to_dict() for e in stripe_standin.stripe.v1.events.list(params={"limit": 100}).data]
    updated = next(
        e for e in events if e["type"] == "customer.subscription.updated" and e["data"]["object"]["id"] == stripe_id
    )
    errors: list[BaseException] = []

    def browser() -> None:
        try:
            billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id)
        except BaseException as exc:
            errors.append(exc)

    def webhook(n: int) -> None:
        try:
            body = json.dumps({**updated, "id": f"{updated['id']}_{n}"}, default=str).encode()
            purchases.handle_webhook(payload=body, signature=sign(body))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=browser) for _ in range(4)]
    threads += [threading.Thread(target=webhook, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with db.session_scope() as session:
        assert len(session.exec(select(Purchase).where(Purchase.user_id == buyer.id)).all()) == 1
        assert len(session.exec(select(LicenseKey).where(LicenseKey.user_id == buyer.id)).all()) == 1
    assert _row(intent.subscription_id).trial_end is not None
    assert [m.subject for m in mailbox.messages(buyer.email)].count("Your free trial: Race Trial Bot") == 1


def test_a_guest_checkout_gets_the_trial_for_the_account_of_its_email(stripe_standin, make_agent):
    """A guest is the account of their e-mail: a new one has had no trial, so it gets the agent's (its completion
    is checked by `complete_guest_trial`, tests/api/test_guest_promotions_api.py)."""
    from marketplace.models import PlatformSetting
    from marketplace.services import guest_checkout, platform

    with db.session_scope() as session:
        session.merge(PlatformSetting(key=platform.ALLOW_GUEST_CHECKOUT, value="true"))
    agent = make_agent(price_cents=1500, trial_days=7)
    details = guest_checkout.GuestDetails(email="guest-trial@example.com", name="Guest", address="203.0.113.9")
    intent = purchases.create_payment_intent(actor=None, agent_id=agent.id, guest=details)
    assert (intent.intent_type, intent.trial_days, intent.trial_used) == ("setup", 7, False)
    assert intent.client_secret.startswith("seti_")
