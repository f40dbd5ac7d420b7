"""Guest checkout's rules, below HTTP: the switch's values, the form's messages, who counts as an unclaimed guest
(and so gets a sign-in link in the receipt), and what a signed-out visitor may open at checkout."""

from __future__ import annotations

import pytest

from marketplace.db import session_scope
from marketplace.models import PlatformSetting, User
from marketplace.services import guest_checkout, mail_texts, platform, purchases
from marketplace.services.errors import Forbidden, Invalid, Unauthorized
from tests import factories


@pytest.fixture
def guests_allowed() -> None:
    with session_scope() as session:
        session.merge(PlatformSetting(key=platform.ALLOW_GUEST_CHECKOUT, value="true"))


@pytest.mark.parametrize("value", ["yes", "1", "", "on", "truee"])
def test_the_switch_takes_true_or_false_only(value: str) -> None:
    admin = factories.make_admin()
    with pytest.raises(Invalid, match="Allow guest checkout must be true or false"):
        platform.update_setting(actor=admin, key=platform.ALLOW_GUEST_CHECKOUT, value=value)
    assert platform.update_setting(actor=admin, key=platform.ALLOW_GUEST_CHECKOUT, value="False").value == "false"
    with pytest.raises(Forbidden):
        platform.update_setting(actor=factories.make_user(), key=platform.ALLOW_GUEST_CHECKOUT, value="true")


def test_the_form_names_every_problem() -> None:
    assert guest_checkout.details_errors(email="nia@example.com", name="Nia") == {}
    assert guest_checkout.details_errors(email="nia@", name="x" * 101) == {
        "email": guest_checkout.EMAIL_INVALID, "name": guest_checkout.NAME_TOO_LONG}


def test_only_an_unclaimed_guest_gets_a_sign_in_link() -> None:
    guest = User(username="g", email="g@example.com")
    assert guest_checkout.is_unclaimed(guest)
    for claimed in (factories.make_user(), factories.make_user(verified=False)):
        assert not guest_checkout.is_unclaimed(claimed)
        with session_scope() as session:
            assert guest_checkout.sign_in_token(session, buyer=claimed) is None


def test_the_receipt_carries_the_link_only_when_given() -> None:
    common = {"to": "g@example.com", "name": "Gina", "agent_name": "Bot", "amount": "9.00", "currency": "usd",
              "order_id": "o" * 32, "agent_id": "a1", "license_key": "ABCDE-FGHJK-MNPQR-STVWX"}
    assert "/set-password" not in mail_texts.receipt(**common).text
    text = mail_texts.receipt(**common, sign_in_token="tok").text
    assert "/set-password?token=tok" in text and "expires in 24 hours" in text


def test_a_signed_out_visitor_may_open_a_paid_agents_checkout_only_while_it_is_on(guests_allowed: None) -> None:
    paid, free = factories.make_agent(price_cents=900), factories.make_agent(price_cents=0)
    assert purchases.checkout_agent(actor=None, agent_id=paid.id, guest=True).id == paid.id
    with pytest.raises(Unauthorized, match="Please log in to get free agents"):
        purchases.checkout_agent(actor=None, agent_id=free.id, guest=True)
    platform.update_setting(actor=factories.make_admin(), key=platform.ALLOW_GUEST_CHECKOUT, value="false")
    with pytest.raises(Forbidden):
        purchases.checkout_agent(actor=None, agent_id=paid.id, guest=True)
    with pytest.raises(Unauthorized):
        purchases.checkout_agent(actor=None, agent_id=paid.id)
