"""Promotion codes over HTTP, on SQLite and PostgreSQL (TEST_DATABASE_URL): vendors and admins make, list and
deactivate codes (permissions and bad input); checkout applies a code (the issue's five refusals, fee and share
on the discounted price in USD and EUR, split and direct), completion records it on the order, a 100% code is a
free claim with the code, and a cancelled or expired checkout gives its hold back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations import payments
from marketplace.models import PricingModel, PromotionCode, PromotionRedemption, RedemptionStatus
from marketplace.models.base import utcnow
from marketplace.services import purchases
from tests import factories
from tests.payments_fixtures import event_body, sign


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


def _one_time(make_agent, vendor=None, price_cents=2999, **fields):
    return make_agent(vendor, price_cents=price_cents, pricing_model=PricingModel.ONE_TIME, **fields)


def _checkout(client, agent, code=None):
    body = {"agentId": agent.id, "isGuestCheckout": False}
    if code is not None:
        body["promotionCode"] = code
    return client.post("/api/purchase/create-payment-intent", json=body)


def _complete(client, intent_id, agent):
    return client.post("/api/purchase/complete", json={"paymentIntentId": intent_id, "agentId": agent.id})


def _code(code_id: str) -> PromotionCode:
    with db.session_scope() as session:
        return session.get(PromotionCode, code_id)


def _uses(code_id: str) -> int:
    """Holds and redemptions not released: what the lists show (a code without a limit keeps no counter)."""
    return sum(r.status != RedemptionStatus.RELEASED for r in _redemptions(code_id))


def _redemptions(code_id: str) -> list[PromotionRedemption]:
    with db.session_scope() as session:
        return list(session.exec(select(PromotionRedemption).where(PromotionRedemption.code_id == code_id)).all())


# --- making codes -----------------------------------------------------------------------------------------------


def test_a_vendor_makes_lists_and_deactivates_codes_for_its_own_agents(client, login, make_agent):
    vendor = factories.make_vendor()
    agent = _one_time(make_agent, vendor)
    login(vendor)
    made = client.post(
        "/api/vendor/promotion-codes",
        json={
            "code": "spring-25",
            "percentOff": 25,
            "agentIds": [agent.id],
            "maxRedemptions": 10,
            "firstPurchaseOnly": True,
            "duration": "repeating",
            "durationMonths": 3,
        },
    )
    assert made.status_code == 201, made.text
    body = made.json()
    assert (body["code"], body["percentOff"], body["amountOffCents"], body["agentIds"]) == (
        "SPRING-25",
        25,
        None,
        [agent.id],
    )
    assert (body["maxRedemptions"], body["redemptions"], body["active"], body["firstPurchaseOnly"]) == (
        10,
        0,
        True,
        True,
    )
    assert (body["duration"], body["durationMonths"], body["allAgents"], body["expiresAt"]) == (
        "repeating",
        3,
        False,
        None,
    )
    assert [c["id"] for c in client.get("/api/vendor/promotion-codes").json()] == [body["id"]]

    off = client.post(f"/api/vendor/promotion-codes/{body['id']}/deactivate")
    assert off.status_code == 200 and off.json()["active"] is False
    again = client.post(f"/api/vendor/promotion-codes/{body['id']}/deactivate")
    assert again.status_code == 409 and again.json()["message"] == "This code is already deactivated."
    # The text is free again once the code is inactive (unique among active codes only).
    assert (
        client.post(
            "/api/vendor/promotion-codes", json={"code": "SPRING-25", "amountOffCents": 500, "agentIds": [agent.id]}
        ).status_code
        == 201
    )


def test_a_vendor_cannot_make_codes_for_another_vendors_agent_or_for_all(client, login, make_agent):
    vendor, other = factories.make_vendor(), factories.make_vendor()
    theirs = _one_time(make_agent, other)
    login(vendor)
    foreign = client.post(
        "/api/vendor/promotion-codes", json={"code": "THEIRS", "percentOff": 10, "agentIds": [theirs.id]}
    )
    assert foreign.status_code == 403
    assert foreign.json()["message"] == "You can only make codes for your own agents."
    every = client.post("/api/vendor/promotion-codes", json={"code": "EVERY", "percentOff": 10, "allAgents": True})
    assert every.status_code == 403 and every.json()["message"] == "Only an admin can make a code for all agents."
    with db.session_scope() as session:
        assert session.exec(select(PromotionCode)).all() == []


def test_another_vendor_cannot_see_or_deactivate_a_code(client, login, make_agent):
    vendor, other = factories.make_vendor(), factories.make_vendor()
    code = factories.make_promotion_code([_one_time(make_agent, vendor)], vendor=vendor)
    login(other)
    assert client.get("/api/vendor/promotion-codes").json() == []
    refused = client.post(f"/api/vendor/promotion-codes/{code.id}/deactivate")
    assert refused.status_code == 404 and _code(code.id).active is True


def test_an_admin_makes_codes_for_any_or_all_agents(client, login, make_agent):
    admin = factories.make_admin()
    agent = _one_time(make_agent, factories.make_vendor())
    login(admin)
    every = client.post("/api/admin/promotion-codes", json={"code": "ALLSTORE", "percentOff": 15, "allAgents": True})
    assert every.status_code == 201 and every.json()["allAgents"] is True and every.json()["agentIds"] == []
    one = client.post(
        "/api/admin/promotion-codes", json={"code": "ONEAGENT", "amountOffCents": 300, "agentIds": [agent.id]}
    )
    assert one.status_code == 201 and one.json()["agentIds"] == [agent.id]
    assert {c["code"] for c in client.get("/api/admin/promotion-codes").json()} == {"ALLSTORE", "ONEAGENT"}
    assert client.post(f"/api/admin/promotion-codes/{one.json()['id']}/deactivate").json()["active"] is False


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"code": "AB"}, "A code is 4 to 32 letters, digits, '-' or '_'."),
        ({"code": "HAS SPACE"}, "A code is 4 to 32 letters, digits, '-' or '_'."),
        ({"percentOff": None}, "Give either a percent off or an amount off."),
        ({"amountOffCents": 100}, "Give either a percent off or an amount off."),
        ({"percentOff": 0}, "The percent off must be a whole number from 1 to 100."),
        ({"percentOff": 101}, "The percent off must be a whole number from 1 to 100."),
        ({"percentOff": None, "amountOffCents": 0}, "The amount off must be from $0.01 to $10,000.00."),
        ({"expiresAt": "2020-01-01T00:00:00Z"}, "The expiry must be in the future."),
        ({"maxRedemptions": 0}, "The maximum redemptions must be from 1 to 1,000,000."),
        ({"duration": "weekly"}, "The months must be 'once', 'repeating' or 'forever'."),
        ({"duration": "repeating"}, "A repeating code applies for 1 to 36 months."),
        ({"duration": "repeating", "durationMonths": 37}, "A repeating code applies for 1 to 36 months."),
        ({"durationMonths": 3}, "Only a repeating code has a number of months."),
        ({"agentIds": []}, "Choose the agents this code applies to."),
    ],
)
def test_bad_codes_are_refused_with_a_reason(client, login, make_agent, body, message):
    vendor = factories.make_vendor()
    agent = _one_time(make_agent, vendor)
    login(vendor)
    answer = client.post(
        "/api/vendor/promotion-codes", json={"code": "GOOD-CODE", "percentOff": 10, "agentIds": [agent.id], **body}
    )
    assert answer.status_code == 400 and answer.json()["message"] == message
    with db.session_scope() as session:
        assert session.exec(select(PromotionCode)).all() == []


def test_an_active_code_text_is_taken_whatever_its_case(client, login, make_agent):
    vendor = factories.make_vendor()
    agent = _one_time(make_agent, vendor)
    factories.make_promotion_code([agent], code="TAKEN1", vendor=vendor)
    login(vendor)
    clash = client.post("/api/vendor/promotion-codes", json={"code": "taken1", "percentOff": 5, "agentIds": [agent.id]})
    assert clash.status_code == 409 and clash.json()["message"] == "An active code with this text already exists."


def test_code_routes_need_the_right_role(client, login, make_agent, buyer):
    assert client.get("/api/vendor/promotion-codes").status_code == 401
    login(buyer)
    assert client.get("/api/vendor/promotion-codes").status_code == 403
    assert (
        client.post("/api/vendor/promotion-codes", json={"code": "NOPE", "percentOff": 5, "agentIds": []}).status_code
        == 403
    )
    vendor = factories.make_vendor()
    login(vendor)
    assert client.get("/api/admin/promotion-codes").status_code == 403
    made = client.post("/api/admin/promotion-codes", json={"code": "NOPE", "percentOff": 5, "allAgents": True})
    assert made.status_code == 403


# --- checkout ---------------------------------------------------------------------------------------------------


def test_a_percent_code_lowers_the_price_and_both_fee_and_share_split(
    client, login, stripe_standin, buyer, make_vendor, make_agent
):
    vendor = make_vendor("enabled")
    agent = _one_time(make_agent, vendor, price_cents=2999)
    code = factories.make_promotion_code([agent], code="SAVE25", vendor=vendor, percent_off=25)
    login(buyer)
    answer = _checkout(client, agent, "save25")
    assert answer.status_code == 200, answer.text
    intent = answer.json()
    # 25% of $29.99 is $7.50 (half-up); the buyer pays $22.49.
    assert (intent["displayAmount"], intent["discountAmount"], intent["promotionCode"]) == ("22.49", "7.50", "SAVE25")
    pi = stripe_standin.stripe.v1.payment_intents.retrieve(intent["paymentIntentId"])
    assert pi.amount == 2249 and pi.application_fee_amount == 450  # 20% of the discounted price
    assert pi.metadata["promotionCode"] == "SAVE25" and pi.metadata["discountUsdCents"] == "750"
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.HELD] and _uses(code.id) == 1

    stripe_standin.confirm(intent["clientSecret"])
    assert _complete(client, intent["paymentIntentId"], agent).status_code == 200
    [order] = client.get("/api/user/orders").json()
    assert (order["totalAmount"], order["vendorAmount"], order["platformFeeAmount"]) == ("22.49", "17.99", "4.50")
    assert (order["promotionCode"], order["discountAmount"], order["originalPriceUSD"]) == ("SAVE25", "7.50", "29.99")
    assert order["commissionSplitEnabled"] is True
    [redemption] = _redemptions(code.id)
    assert redemption.status == RedemptionStatus.REDEEMED and redemption.order_id == order["id"]
    assert _uses(code.id) == 1


def test_a_fixed_code_in_eur_direct(client, login, stripe_standin, buyer, make_agent, eur_checkout):
    agent = _one_time(make_agent, price_cents=2999)  # no vendor: direct to the platform
    factories.make_promotion_code([agent], code="FIVEOFF", amount_off_cents=500)
    login(buyer)
    intent = _checkout(client, agent, "FIVEOFF").json()
    # $24.99 at 0.92 = €22.99; without the code €27.59: €4.60 off.
    assert (intent["currency"], intent["displayAmount"], intent["discountAmount"]) == ("eur", "22.99", "4.60")
    assert intent["commissionSplitEnabled"] is False
    stripe_standin.confirm(intent["clientSecret"])
    assert _complete(client, intent["paymentIntentId"], agent).status_code == 200
    [order] = client.get("/api/user/orders").json()
    assert (order["totalAmount"], order["vendorAmount"], order["platformFeeAmount"]) == ("22.99", "18.39", "4.60")
    assert (order["discountAmount"], order["promotionCode"], order["currency"]) == ("4.60", "FIVEOFF", "eur")


def test_a_fixed_code_in_eur_split(client, login, stripe_standin, buyer, make_vendor, make_agent, eur_checkout):
    vendor = make_vendor("enabled")
    agent = _one_time(make_agent, vendor, price_cents=4900)
    factories.make_promotion_code([agent], code="TENOFF", vendor=vendor, amount_off_cents=1000)
    login(buyer)
    intent = _checkout(client, agent, "TENOFF").json()
    assert (intent["displayAmount"], intent["discountAmount"]) == ("35.88", "9.20")  # $39.00 * 0.92
    pi = stripe_standin.stripe.v1.payment_intents.retrieve(intent["paymentIntentId"])
    assert (pi.amount, pi.currency, pi.application_fee_amount) == (3588, "eur", 718)


def test_the_five_refusals(client, login, stripe_standin, buyer, make_agent):
    vendor = factories.make_vendor()
    agent, other_agent = _one_time(make_agent, vendor), _one_time(make_agent, vendor)
    factories.make_promotion_code([agent], code="OLDCODE", vendor=vendor, expires_at=utcnow() - timedelta(days=1))
    factories.make_promotion_code([other_agent], code="ELSEWHERE", vendor=vendor)
    used_up = factories.make_promotion_code([agent], code="ALLGONE", vendor=vendor, max_redemptions=1,
                                            redemptions=1)
    factories.make_promotion_code([agent], code="NEWONLY", vendor=vendor, first_purchase_only=True)
    factories.make_order(_one_time(make_agent), buyer, amount_cents=1000)  # the buyer bought before
    login(buyer)
    for code, message in (
        ("OLDCODE", "This code has expired."),
        ("ELSEWHERE", "This code is not valid for this agent."),
        ("NOSUCHCODE", "This code is not valid for this agent."),
        ("ALLGONE", "This code has been used up."),
        ("NEWONLY", "This code is for first purchases only."),
    ):
        answer = _checkout(client, agent, code)
        assert answer.status_code == 400 and answer.json()["message"] == message, code
    assert _redemptions(used_up.id) == []  # a refused code holds nothing
    # Without a code the same checkout goes on.
    assert _checkout(client, agent).status_code == 200


def test_a_refused_hold_opens_no_intent(client, login, stripe_standin, buyer, make_agent, monkeypatch):
    """A code used up between its read and its hold: the hold comes first, so nothing is opened at Stripe and
    nothing is answered that could be paid."""
    agent = _one_time(make_agent)
    factories.make_promotion_code([agent], code="JUSTGONE", max_redemptions=1, redemptions=1)
    opened: list[dict] = []
    open_intent = payments.create_payment_intent
    monkeypatch.setattr(payments, "create_payment_intent", lambda **kw: opened.append(kw) or open_intent(**kw))
    login(buyer)
    answer = _checkout(client, agent, "JUSTGONE")
    assert answer.status_code == 400 and answer.json()["message"] == "This code has been used up."
    assert "clientSecret" not in answer.json() and opened == []


def test_a_hold_is_given_back_when_the_intent_cannot_open(
    client, login, stripe_standin, buyer, make_agent, monkeypatch
):
    agent = _one_time(make_agent)
    code = factories.make_promotion_code([agent], code="NOSTRIPE", max_redemptions=3)

    def failing(**_kwargs):
        raise payments.PaymentProviderError("Stripe is down")

    monkeypatch.setattr(payments, "create_payment_intent", failing)
    login(buyer)
    assert _checkout(client, agent, "NOSTRIPE").status_code == 502
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.RELEASED]
    assert _code(code.id).redemptions == 0


def test_a_deactivated_code_is_not_valid(client, login, stripe_standin, buyer, make_agent):
    agent = _one_time(make_agent)
    factories.make_promotion_code([agent], code="STOPPED", active=False)
    login(buyer)
    assert _checkout(client, agent, "STOPPED").json()["message"] == "This code is not valid for this agent."


def test_a_code_once_per_customer(client, login, stripe_standin, buyer, make_agent):
    first, second = _one_time(make_agent), _one_time(make_agent)
    code = factories.make_promotion_code([first, second], code="ONCEONLY")
    login(buyer)
    intent = _checkout(client, first, "ONCEONLY").json()
    again = _checkout(client, first, "ONCEONLY").json()  # a second click: the same hold, the same intent
    assert again["paymentIntentId"] == intent["paymentIntentId"] and _uses(code.id) == 1
    stripe_standin.confirm(intent["clientSecret"])
    assert _complete(client, intent["paymentIntentId"], first).status_code == 200
    refused = _checkout(client, second, "ONCEONLY")
    assert refused.status_code == 400 and refused.json()["message"] == "You have already used this code."


def test_an_admin_code_for_all_agents_applies_to_any_vendors_agent(client, login, stripe_standin, buyer, make_agent):
    agent = _one_time(make_agent, factories.make_vendor(), price_cents=1000)
    factories.make_promotion_code(code="EVERYONE", all_agents=True, percent_off=50)
    login(buyer)
    assert _checkout(client, agent, "everyone").json()["displayAmount"] == "5.00"


def test_a_vendor_code_never_applies_to_another_vendors_agent(client, login, stripe_standin, buyer, make_agent):
    vendor, other = factories.make_vendor(), factories.make_vendor()
    theirs = _one_time(make_agent, other)
    # Even if a link to another vendor's agent were stored, the vendor's code does not apply there.
    factories.make_promotion_code([theirs], code="MINEONLY", vendor=vendor)
    login(buyer)
    assert _checkout(client, theirs, "MINEONLY").json()["message"] == "This code is not valid for this agent."


def test_a_whole_price_code_is_a_free_claim_with_the_code(client, login, stripe_standin, buyer, make_agent):
    agent = _one_time(make_agent, factories.make_vendor(), price_cents=2999)
    code = factories.make_promotion_code([agent], code="ONTHEHOUSE", percent_off=100)
    login(buyer)
    intent = _checkout(client, agent, "ONTHEHOUSE").json()
    assert (intent["mode"], intent["displayAmount"], intent["discountAmount"]) == ("free", "0.00", "29.99")
    assert intent["clientSecret"] == "" and _redemptions(code.id) == []
    claimed = client.post("/api/purchase/claim-free", json={"agentId": agent.id, "promotionCode": "onthehouse"})
    assert claimed.status_code == 201, claimed.text
    [order] = client.get("/api/user/orders").json()
    assert (order["totalAmount"], order["promotionCode"], order["discountAmount"]) == ("0.00", "ONTHEHOUSE", "29.99")
    assert (order["vendorAmount"], order["platformFeeAmount"]) == ("0.00", "0.00")
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.REDEEMED]
    assert _uses(code.id) == 1


def test_a_partial_code_is_not_a_free_claim(client, login, stripe_standin, buyer, make_agent):
    agent = _one_time(make_agent)
    code = factories.make_promotion_code([agent], code="HALFOFF", percent_off=50)
    login(buyer)
    refused = client.post("/api/purchase/claim-free", json={"agentId": agent.id, "promotionCode": "HALFOFF"})
    assert refused.status_code == 400 and refused.json()["message"] == "This code does not make this agent free."
    assert _redemptions(code.id) == []


def test_a_monthly_agents_checkout_names_the_discount_and_its_months(client, login, stripe_standin, buyer,
                                                                     make_agent):
    agent = make_agent(price_cents=2999, pricing_model=PricingModel.MONTHLY)
    code = factories.make_promotion_code([agent], code="MONTHLY1", percent_off=20, duration="repeating",
                                         duration_months=3)
    login(buyer)
    answer = _checkout(client, agent, "monthly1")
    assert answer.status_code == 200, answer.text
    intent = answer.json()
    assert (intent["mode"], intent["intentType"], intent["promotionCode"]) == ("subscription", "payment", "MONTHLY1")
    assert (intent["displayAmount"], intent["discountAmount"], intent["dueTodayAmount"], intent["monthlyAmount"]) \
        == ("23.99", "6.00", "23.99", "29.99")
    assert intent["promotionMonths"] == "First 3 months"
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.HELD]
    refused = client.post("/api/purchase/claim-free", json={"agentId": agent.id, "promotionCode": "MONTHLY1"})
    assert refused.status_code == 400
    assert refused.json()["message"] == "A monthly agent's promotion code is applied at checkout."


# --- holds ------------------------------------------------------------------------------------------------------


def _cancelled(stripe_standin, intent_id: str) -> None:
    """Cancel the PaymentIntent at the stand-in and deliver its `payment_intent.canceled` event."""
    stripe_standin.stripe.v1.payment_intents.cancel(intent_id)
    body = event_body(stripe_standin.event_for(intent_id, "payment_intent.canceled"))
    outcome = purchases.handle_webhook(payload=body, signature=sign(body))
    assert outcome.result == "updated"


def test_a_cancelled_checkout_gives_its_hold_back(client, login, stripe_standin, buyer, make_user, make_agent):
    agent = _one_time(make_agent)
    code = factories.make_promotion_code([agent], code="LASTONE", max_redemptions=1)
    login(buyer)
    intent = _checkout(client, agent, "LASTONE").json()
    late = make_user("late")
    login(late)
    assert _checkout(client, agent, "LASTONE").json()["message"] == "This code has been used up."
    _cancelled(stripe_standin, intent["paymentIntentId"])
    assert _code(code.id).redemptions == 0
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.RELEASED]
    assert _checkout(client, agent, "LASTONE").json()["displayAmount"] == "26.99"


def test_an_expired_hold_is_given_back_when_the_code_is_full(
    client, login, stripe_standin, buyer, make_user, make_agent
):
    agent = _one_time(make_agent)
    code = factories.make_promotion_code([agent], code="STALEHOLD", max_redemptions=1)
    login(buyer)
    assert _checkout(client, agent, "STALEHOLD").status_code == 200
    with db.session_scope() as session:
        for row in session.exec(select(PromotionRedemption)).all():
            row.held_until = utcnow() - timedelta(minutes=1)
            session.add(row)
    login(make_user("next"))
    answer = _checkout(client, agent, "STALEHOLD")
    assert answer.status_code == 200, answer.text
    assert sorted(r.status for r in _redemptions(code.id)) == [RedemptionStatus.HELD, RedemptionStatus.RELEASED]
    assert _code(code.id).redemptions == 1


def test_a_payment_after_its_hold_expired_still_redeems(client, login, stripe_standin, buyer, make_agent):
    agent = _one_time(make_agent)
    code = factories.make_promotion_code([agent], code="LATEPAYER", max_redemptions=5)
    login(buyer)
    intent = _checkout(client, agent, "LATEPAYER").json()
    with db.session_scope() as session:
        for row in session.exec(select(PromotionRedemption)).all():
            row.held_until = utcnow() - timedelta(minutes=1)
            session.add(row)
    from marketplace.services import promotions

    assert promotions.release_expired_holds() == 1 and _code(code.id).redemptions == 0
    stripe_standin.confirm(intent["clientSecret"])
    assert _complete(client, intent["paymentIntentId"], agent).status_code == 200
    assert _code(code.id).redemptions == 1
    assert sorted(r.status for r in _redemptions(code.id)) == [RedemptionStatus.REDEEMED, RedemptionStatus.RELEASED]
