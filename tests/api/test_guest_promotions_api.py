"""A signed-out guest's promotion code and free trial (issue 31), over HTTP on SQLite and PostgreSQL.

A guest is the account of their e-mail (guest_checkout.open_account: a new passwordless account, the same one
again while nothing was bought with it, 409 'sign in' once it has an order): the code's once-per-customer and
first-purchase rules and the one-trial-per-agent rule count that account, as for a signed-in buyer."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Order, PlatformSetting, PricingModel, PromotionRedemption, Subscription, User
from marketplace.models.base import utcnow
from marketplace.services import billing, guest_checkout, platform, promotions, purchases
from marketplace.services.errors import Forbidden, NotFound
from tests import factories

EMAIL = "guest.coder@example.com"
LINK = "/set-password"


@pytest.fixture
def guests_allowed() -> None:
    with db.session_scope() as session:
        session.merge(PlatformSetting(key=platform.ALLOW_GUEST_CHECKOUT, value="true"))


def _intent(client, agent, code=None, email=EMAIL):
    body = {"agentId": agent.id, "customerEmail": email, "customerName": "Gia Guest", "isGuestCheckout": True}
    if code:
        body["promotionCode"] = code
    return client.post("/api/purchase/create-payment-intent", json=body)


def _complete(client, body, agent):
    paid = {"paymentIntentId": body["paymentIntentId"]} if body.get("intentType") == "payment" else {}
    return client.post("/api/purchase/complete", json={
        **paid, "subscriptionId": body.get("subscriptionId"), "agentId": agent.id, "isGuestCheckout": True})


def _guest() -> User:
    with db.session_scope() as session:
        return session.exec(select(User).where(User.email == EMAIL)).one()


def _holds(code_id: str) -> list[PromotionRedemption]:
    with db.session_scope() as session:
        return list(session.exec(select(PromotionRedemption).where(PromotionRedemption.code_id == code_id)).all())


def test_a_guest_pays_less_with_a_code_once(client, stripe_standin, make_agent, guests_allowed):
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME)
    code = factories.make_promotion_code([agent], code="GUEST-25", percent_off=25)
    intent = _intent(client, agent, code="guest-25")
    assert intent.status_code == 200, intent.text
    body = intent.json()
    assert (body["displayAmount"], body["discountAmount"], body["promotionCode"]) == ("15.00", "5.00", "GUEST-25")
    [held] = _holds(code.id)
    assert (held.user_id, held.status) == (_guest().id, "held")

    # Applying it again (the checkout reprices) reuses the guest account's hold: nothing more is taken.
    again = _intent(client, agent, code="GUEST-25")
    assert again.status_code == 200 and len(_holds(code.id)) == 1

    assert stripe_standin.confirm(again.json()["clientSecret"]).json()["status"] == "succeeded"
    done = _complete(client, again.json(), agent)
    assert done.status_code == 200, done.text
    with db.session_scope() as session:
        order = session.get(Order, done.json()["orderId"])
    assert (order.total_amount_cents, order.user_id) == (1500, _guest().id)
    assert [h.status for h in _holds(code.id)] == ["redeemed"]

    # The same e-mail again: its account has an order now, so it signs in (where 'already used' is said).
    other = make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME)
    refused = _intent(client, other, code="GUEST-25")
    assert refused.status_code == 409 and refused.json()["message"] == guest_checkout.SIGN_IN_TO_BUY


def test_a_guest_is_told_why_a_code_is_refused_and_the_checkout_stays(client, stripe_standin, make_agent,
                                                                       guests_allowed):
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME)
    factories.make_promotion_code([agent], code="ALLGONE", max_redemptions=1, redemptions=1)
    factories.make_promotion_code([agent], code="FREEBIE", percent_off=100)
    for code, message in (("NOPE-NOPE", promotions.NOT_VALID), ("x", promotions.NOT_VALID),
                          ("ALLGONE", promotions.USED_UP), ("FREEBIE", purchases.GUEST_FREE_CODE)):
        refused = _intent(client, agent, code=code)
        assert refused.status_code == 400, refused.text
        assert (refused.json()["message"], refused.json()["field"]) == (message, "promotionCode")
    plain = _intent(client, agent)
    assert plain.status_code == 200 and plain.json()["displayAmount"] == "20.00"


def test_a_first_purchase_code_is_a_new_guests(client, stripe_standin, make_agent, make_user, guests_allowed):
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME)
    factories.make_promotion_code([agent], code="FIRSTONLY", first_purchase_only=True)
    assert _intent(client, agent, code="FIRSTONLY").json()["displayAmount"] == "18.00"
    # The e-mail of an account (which may have bought before) is not a guest's: it signs in first.
    make_user("regular", email="regular@example.com")
    refused = _intent(client, agent, code="FIRSTONLY", email="regular@example.com")
    assert refused.status_code == 409 and refused.json()["field"] == "email"


def test_guest_codes_are_refused_while_guest_checkout_is_off(client, stripe_standin, make_agent):
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME)
    code = factories.make_promotion_code([agent], code="CLOSEDSHOP")
    refused = _intent(client, agent, code="CLOSEDSHOP")
    assert refused.status_code == 403 and refused.json()["message"] == guest_checkout.GUEST_OFF
    assert _holds(code.id) == []


def test_a_guest_starts_a_free_trial_and_gets_the_link(client, stripe_standin, make_agent, mailbox, guests_allowed):
    agent = make_agent(price_cents=2999, name="Guest Trial Bot", trial_days=7)
    intent = _intent(client, agent)
    assert intent.status_code == 200, intent.text
    body = intent.json()
    assert (body["intentType"], body["trialDays"], body["trialUsed"]) == ("setup", 7, False)
    early = _complete(client, body, agent)
    assert early.status_code == 400 and "card was not saved" in early.json()["message"]
    assert stripe_standin.confirm_setup(body["clientSecret"]).json()["status"] == "succeeded"
    done = _complete(client, body, agent)
    assert done.status_code == 200, done.text
    assert done.json()["trialEnd"] and done.json()["orderId"] is None
    mail = mailbox.last(EMAIL, "Your free trial: Guest Trial Bot")
    assert "Set a password to sign in" in mail.text
    token = mailbox.token(EMAIL, LINK)
    assert client.post("/api/auth/guest-password", json={"token": token, "password": "guest-pass-1"}).is_success
    [item] = client.get("/api/user/subscriptions").json()
    assert (item["agentId"], item["status"]) == (agent.id, "trialing")


def test_one_trial_per_guest_account_and_agent(client, stripe_standin, make_agent, guests_allowed):
    agent = make_agent(price_cents=2999, trial_days=7)
    with db.session_scope() as session:  # the e-mail's guest account had this agent's trial (since ended)
        guest = User(username="had-trial", email=EMAIL)
        session.add(guest)
        session.flush()
        session.add(Subscription(user_id=guest.id, agent_id=agent.id, stripe_subscription_id="sub_old_trial",
                                 stripe_customer_id="cus_old", status="canceled", agent_name=agent.name,
                                 price_cents=2999, commission_rate=Decimal("15"), trial_end=utcnow()))
    body = _intent(client, agent).json()
    assert (body["intentType"], body["trialDays"], body["trialUsed"]) == ("payment", 0, True)


def test_a_guest_trial_completion_is_only_for_a_guest_checkouts_subscription(client, stripe_standin, make_agent,
                                                                             make_user, login, guests_allowed):
    agent = make_agent(price_cents=2999, trial_days=7)
    owner = make_user("owner")
    login(owner)
    body = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    client.post("/api/logout")
    refused = _complete(client, body, agent)
    assert refused.status_code == 403 and refused.json()["message"] == guest_checkout.NOT_A_GUEST_PAYMENT
    with pytest.raises(Forbidden):
        billing.complete_guest_trial(subscription_id=body["subscriptionId"], agent_id=agent.id)
    with pytest.raises(NotFound):
        billing.complete_guest_trial(subscription_id="no-such-subscription")
    missing = _complete(client, {"subscriptionId": "x" * 65}, agent)
    assert missing.status_code in (400, 422)


def test_a_guest_monthly_code_that_makes_the_first_month_free(client, stripe_standin, make_vendor, make_agent,
                                                              guests_allowed):
    """A 100% code on a monthly agent: nothing to pay now, the card is saved (as for a trial) and the guest's
    completion records the $0 first invoice as the order of the guest account."""
    agent = make_agent(make_vendor("enabled"), price_cents=2000, pricing_model=PricingModel.MONTHLY)
    factories.make_promotion_code([agent], code="GUESTMONTH", percent_off=100)
    body = _intent(client, agent, code="GUESTMONTH").json()
    assert (body["mode"], body["intentType"], body["discountAmount"]) == ("subscription", "setup", "20.00")
    assert stripe_standin.confirm_setup(body["clientSecret"]).json()["status"] == "succeeded"
    done = _complete(client, body, agent)
    assert done.status_code == 200, done.text
    with db.session_scope() as session:
        [order] = session.exec(select(Order).where(Order.user_id == _guest().id)).all()
    assert (order.total_amount_cents, order.promotion_code) == (0, "GUESTMONTH")
