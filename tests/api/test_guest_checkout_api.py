"""Guest checkout over HTTP: the admin's switch (audited, "true"/"false" only), 403 while it is off, 409 for an
e-mail with an account, a new passwordless account per new e-mail (one, even for two checkouts at once), the
receipt's single-use 24-hour sign-in link, the per-address limit, and bad input."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, update
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.models import AccountToken, Order, PlatformSetting, Purchase, TokenPurpose, User
from marketplace.models.base import utcnow
from marketplace.services import guest_checkout, platform
from marketplace.services.errors import Forbidden, Invalid
from tests.factories import audit_actions, make_admin
from tests.live_api import LiveApi, fire

LINK = "/set-password"


@pytest.fixture
def guests_allowed() -> None:
    with db.session_scope() as session:
        session.merge(PlatformSetting(key=platform.ALLOW_GUEST_CHECKOUT, value="true"))


def _intent(client, agent, email="new.buyer@example.com", name="Nia Buyer", guest=True):
    return client.post("/api/purchase/create-payment-intent", json={
        "agentId": agent.id, "customerEmail": email, "customerName": name, "isGuestCheckout": guest})


def _complete(client, intent_id, agent):
    return client.post("/api/purchase/complete", json={
        "paymentIntentId": intent_id, "agentId": agent.id, "agentName": agent.name, "userId": None,
        "customerEmail": "new.buyer@example.com", "customerName": "Nia Buyer", "isGuestCheckout": True})


def _paid(client, standin, agent, email="new.buyer@example.com"):
    intent = _intent(client, agent, email=email)
    assert intent.status_code == 200, intent.text
    body = intent.json()
    assert standin.confirm(body["clientSecret"]).json()["status"] == "succeeded"
    done = _complete(client, body["paymentIntentId"], agent)
    assert done.status_code == 200, done.text
    return done.json()


def _users(email: str) -> list[User]:
    with db.session_scope() as session:
        return list(session.exec(select(User).where(User.email == email)).all())


def test_the_switch_is_off_by_default_validated_and_audited(client, login):
    login(make_admin())
    listed = {row["key"]: row["value"] for row in client.get("/api/admin/settings").json()}
    assert listed[platform.ALLOW_GUEST_CHECKOUT] == "false"
    bad = client.put("/api/admin/settings/allowGuestCheckout", json={"value": "yes"})
    assert bad.status_code == 400 and bad.json()["message"] == "Allow guest checkout must be true or false"
    on = client.put("/api/admin/settings/allowGuestCheckout", json={"value": " TRUE "})
    assert on.status_code == 200 and on.json()["value"] == "true"
    assert platform.guest_checkout_allowed()
    assert ("setting.update", "setting", platform.ALLOW_GUEST_CHECKOUT) in audit_actions()


def test_a_customer_cannot_turn_it_on(client, login, make_user):
    login(make_user("someone"))
    assert client.put("/api/admin/settings/allowGuestCheckout", json={"value": "true"}).status_code == 403
    assert not platform.guest_checkout_allowed()


def test_off_a_guest_payment_is_refused_and_no_account_is_made(client, stripe_standin, make_agent):
    agent = make_agent(price_cents=1500)
    refused = _intent(client, agent)
    assert refused.status_code == 403 and refused.json()["message"] == guest_checkout.GUEST_OFF
    assert _users("new.buyer@example.com") == []
    # Without the guest flag a signed-out visitor is asked to sign in, as before.
    assert _intent(client, agent, guest=False).status_code == 401


def test_a_guest_buys_gets_the_mail_and_the_link_signs_them_in(client, stripe_standin, make_agent, mailbox,
                                                              guests_allowed):
    agent = make_agent(price_cents=1500, name="Ledger Bot")
    done = _paid(client, stripe_standin, agent)
    [user] = _users("new.buyer@example.com")
    assert user.password_hash is None and user.email_verified_at is None
    assert (user.first_name, user.last_name) == ("Nia", "Buyer")
    with db.session_scope() as session:
        order = session.get(Order, done["orderId"])
        purchase = session.exec(select(Purchase).where(Purchase.user_id == user.id)).one()
    assert order.user_id == user.id and order.total_amount_cents == 1500 and purchase.agent_id == agent.id

    receipt = mailbox.last("new.buyer@example.com", "Your receipt: Ledger Bot")
    assert "Set a password to sign in" in receipt.text and done["orderId"] in receipt.text
    token = mailbox.token("new.buyer@example.com", LINK)

    weak = client.post("/api/auth/guest-password", json={"token": token, "password": "x"})
    assert weak.status_code == 400 and weak.json()["field"] == "password"
    signed_in = client.post("/api/auth/guest-password", json={"token": token, "password": "guest-pass-1"})
    assert signed_in.status_code == 200, signed_in.text
    assert client.get("/api/user").json()["email"] == "new.buyer@example.com"
    [bought] = client.get("/api/user/purchases").json()
    assert bought["agent"]["id"] == agent.id
    [user] = _users("new.buyer@example.com")
    assert user.password_hash is not None and user.email_verified_at is not None

    again = client.post("/api/auth/guest-password", json={"token": token, "password": "other-pass-2"})
    assert again.status_code == 400 and again.json()["field"] == "token"
    client.post("/api/logout")
    assert client.post("/api/login", json={"username": "new.buyer@example.com",
                                           "password": "guest-pass-1"}).status_code == 200


def test_the_link_expires_after_a_day(client, stripe_standin, make_agent, mailbox, guests_allowed):
    _paid(client, stripe_standin, make_agent(price_cents=900))
    token = mailbox.token("new.buyer@example.com", LINK)
    with db.session_scope() as session:
        row = session.exec(select(AccountToken).where(AccountToken.purpose == TokenPurpose.GUEST_SIGN_IN)).one()
        assert timedelta(hours=23, minutes=59) < row.expires_at - row.created_at <= timedelta(hours=24)
        session.exec(update(AccountToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    expired = client.post("/api/auth/guest-password", json={"token": token, "password": "guest-pass-1"})
    assert expired.status_code == 400 and expired.json()["field"] == "token"
    with pytest.raises(Invalid):
        guest_checkout.check_link(token=token)


def test_an_email_with_an_account_must_sign_in(client, stripe_standin, make_agent, make_user, guests_allowed):
    make_user("owner", email="owner@example.com")
    agent = make_agent(price_cents=1500)
    for email in ("owner@example.com", " OWNER@example.com "):
        refused = _intent(client, agent, email=email)
        assert refused.status_code == 409
        assert refused.json()["message"] == "Please sign in to buy with this e-mail"
    with db.session_scope() as session:
        assert session.exec(select(func.count()).select_from(Order)).one() == 0


def test_a_guest_who_bought_must_sign_in_to_buy_again(client, stripe_standin, make_agent, guests_allowed):
    _paid(client, stripe_standin, make_agent(price_cents=900))
    refused = _intent(client, make_agent(price_cents=700))
    assert refused.status_code == 409 and refused.json()["message"] == guest_checkout.SIGN_IN_TO_BUY


def test_an_abandoned_guest_checkout_can_be_started_again(client, stripe_standin, make_agent, guests_allowed):
    agent = make_agent(price_cents=1500)
    first, second = _intent(client, agent), _intent(client, agent)
    assert first.status_code == second.status_code == 200
    assert len(_users("new.buyer@example.com")) == 1


@pytest.mark.parametrize(("email", "name", "field", "message"), [
    ("not-an-email", "Nia", "email", guest_checkout.EMAIL_INVALID),
    ("", "Nia", "email", guest_checkout.EMAIL_INVALID),
    ("a@example.com", "   ", "name", guest_checkout.NAME_REQUIRED),
    ("a@example.com", "N" * 101, "name", guest_checkout.NAME_TOO_LONG),
])
def test_bad_guest_details_are_refused_clearly(client, stripe_standin, make_agent, guests_allowed, email, name,
                                               field, message):
    refused = _intent(client, make_agent(price_cents=1500), email=email, name=name)
    assert refused.status_code == 400
    assert refused.json()["message"] == message and refused.json()["field"] == field


def test_a_payment_of_a_signed_in_account_is_not_a_guests_to_complete(client, login, stripe_standin, make_agent,
                                                                     make_user, guests_allowed):
    buyer = make_user("member")
    agent = make_agent(price_cents=1500)
    login(buyer)
    body = _intent(client, agent, guest=False).json()
    assert stripe_standin.confirm(body["clientSecret"]).json()["status"] == "succeeded"
    client.post("/api/logout")
    refused = _complete(client, body["paymentIntentId"], agent)
    assert refused.status_code == 403 and refused.json()["message"] == guest_checkout.NOT_A_GUEST_PAYMENT


def test_a_guest_subscribes_to_a_monthly_agent(client, stripe_standin, make_agent, make_vendor, mailbox,
                                               guests_allowed):
    agent = make_agent(make_vendor("enabled"), price_cents=1215, name="Monthly Bot")
    intent = _intent(client, agent).json()
    assert intent["mode"] == "subscription"
    assert stripe_standin.confirm(intent["clientSecret"]).json()["status"] == "succeeded"
    assert _complete(client, intent["paymentIntentId"], agent).status_code == 200
    token = mailbox.token("new.buyer@example.com", LINK)
    assert client.post("/api/auth/guest-password", json={"token": token, "password": "guest-pass-1"}).is_success
    [item] = client.get("/api/user/subscriptions").json()
    assert (item["agentId"], item["status"]) == (agent.id, "active")


def test_guest_checkouts_are_limited_per_address(client, stripe_standin, make_agent, guests_allowed, monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_guest_checkout", 2)
    agent = make_agent(price_cents=1500)
    answers = [_intent(client, agent, email=f"g{i}@example.com").status_code for i in range(3)]
    assert answers == [200, 200, 429]
    assert _users("g2@example.com") == []


def test_the_service_refuses_while_off_and_checks_input_first():
    with pytest.raises(Forbidden):
        guest_checkout.open_account(details=guest_checkout.GuestDetails(email="a@example.com", name="A"))
    assert guest_checkout.details_errors(email="bad", name="") == {"email": guest_checkout.EMAIL_INVALID,
                                                                   "name": guest_checkout.NAME_REQUIRED}


def test_two_guest_checkouts_with_one_new_email_at_once_make_one_account(live_api: LiveApi, stripe_standin,
                                                                        make_agent, guests_allowed):
    agent = make_agent(price_cents=1500)

    def call():
        with live_api.client() as client:
            return _intent(client, agent, email="twice@example.com")

    answers = fire([call] * 6)
    assert [answer.status_code for answer in answers] == [200] * 6, [a.text for a in answers]
    assert len(_users("twice@example.com")) == 1
