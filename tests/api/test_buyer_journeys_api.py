"""The buyer's money journey as a person meets it (issue 34), the rules that are services': the success page's
order (agent, amount, number, key, next charge), the checkout's renewal date by the clock that bills, and the
words for a failed 3-D Secure check."""

from __future__ import annotations

from datetime import timedelta

import pytest

from marketplace.models.base import utcnow
from marketplace.services import billing, payment_errors, pricing, purchases
from marketplace.services.billing import demo_clock
from marketplace.services.errors import NotFound, Unauthorized
from tests.api.test_subscriptions_api import _subscribed


def test_the_success_page_summary_names_agent_amount_order_key_and_next_charge(client, login, stripe_standin,
                                                                                make_user, make_vendor, make_agent):
    buyer = make_user("successbuyer")
    agent = make_agent(make_vendor("enabled"), price_cents=3500, name="Ledger Bot")
    login(buyer)
    _subscribed(client, stripe_standin, agent)
    [order] = client.get("/api/user/orders").json()
    summary = purchases.recent_purchase_summary(actor=buyer, order_id=order["id"])
    [mine] = client.get("/api/user/purchases").json()
    [sub] = client.get("/api/user/subscriptions").json()
    assert (summary.agent_name, summary.amount_cents, summary.currency, summary.order_id) == (
        "Ledger Bot", 3500, "usd", order["id"])
    assert summary.license_key == mine["licenseKey"] and summary.license_key
    assert summary.renews_at is not None and summary.renews_at.date().isoformat() == sub["currentPeriodEnd"][:10]

    # Someone else's order, or none, is not theirs to see.
    with pytest.raises(NotFound):
        purchases.recent_purchase_summary(actor=make_user("other"), order_id=order["id"])
    with pytest.raises(Unauthorized):
        purchases.recent_purchase_summary(actor=None, order_id=order["id"])

    # Cancelled at the period end: nothing renews.
    assert client.post(f"/api/user/subscriptions/{sub['id']}/cancel").status_code == 200
    assert purchases.recent_purchase_summary(actor=buyer, order_id=order["id"]).renews_at is None


def test_a_licence_has_its_key_and_no_renewal(client, login, stripe_standin, make_user, make_vendor, make_agent):
    buyer = make_user("licencebuyer")
    agent = make_agent(make_vendor("enabled"), price_cents=4900, pricing_model="one_time", name="Once Bot")
    login(buyer)
    _subscribed(client, stripe_standin, agent)
    [order] = client.get("/api/user/orders").json()
    summary = purchases.recent_purchase_summary(actor=buyer, order_id=order["id"])
    assert (summary.agent_name, summary.amount_cents, summary.renews_at) == ("Once Bot", 4900, None)
    assert summary.license_key


def test_the_renewal_date_follows_the_clock_that_bills(client, login, stripe_standin, make_user, demo_mode):
    buyer = make_user("clockbuyer")
    wall = billing.billing_now(user=buyer)  # no Customer yet: the demo clock a new Customer goes on
    moved = demo_clock.advance_clock(actor=make_user("clockadmin", role="admin"), days=33)
    ahead = billing.billing_now(user=buyer)
    assert ahead == moved.frozen_time and ahead - wall >= timedelta(days=33)
    assert pricing.one_month_after(ahead) > pricing.one_month_after(wall) + timedelta(days=27)


def test_billing_now_is_the_wall_clock_outside_demo_mode(make_user):
    assert abs(billing.billing_now(user=make_user("plain")) - utcnow()) < timedelta(seconds=5)


@pytest.mark.parametrize("code", ["payment_intent_authentication_failure", "setup_intent_authentication_failure"])
def test_a_failed_3d_secure_check_says_what_to_do(code):
    developer = "The provided PaymentMethod has failed authentication. You can provide payment_method_data."
    assert payment_errors.buyer_message(code=code, message=developer) == (
        "Your bank could not confirm this payment. Try again or use another card.")


def test_a_card_decline_keeps_stripes_words():
    assert payment_errors.buyer_message(code="card_declined", message="Your card was declined.") == \
        "Your card was declined."
    assert payment_errors.buyer_message(code="", message="") == ""
