"""A promotion code's redemption limit under simultaneous checkouts, over real HTTP (tests/live_api.py), on SQLite
and PostgreSQL: 5 buyers checking out at once with a code that has 1 redemption left: exactly one gets the
discounted PaymentIntent, the four others are told the code is used up, and the code counts one redemption."""

from __future__ import annotations

from functools import partial

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import PricingModel, PromotionCode, PromotionRedemption
from tests import factories
from tests.live_api import LiveApi, fire

rounds = pytest.mark.parametrize("round_", range(3))
N = 5


@rounds
def test_five_checkouts_for_the_last_redemption_one_wins(live_api: LiveApi, stripe_standin, make_agent, round_: int):
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME)
    other = make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME)
    code = factories.make_promotion_code([agent, other], code="LASTSEAT", percent_off=50, max_redemptions=2)
    earlier = live_api.signed_in(factories.make_user().username)  # takes the first of the two
    assert (
        earlier.post(
            "/api/purchase/create-payment-intent", json={"agentId": other.id, "promotionCode": "LASTSEAT"}
        ).status_code
        == 200
    )
    clients = [live_api.signed_in(factories.make_user().username) for _ in range(N)]
    answers = fire(
        [
            partial(
                c.post, "/api/purchase/create-payment-intent", json={"agentId": agent.id, "promotionCode": "lastseat"}
            )
            for c in clients
        ]
    )

    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] + [400] * (N - 1), [(a.status_code, a.text) for a in answers]
    [won] = [a.json() for a in answers if a.status_code == 200]
    assert won["displayAmount"] == "10.00" and won["discountAmount"] == "10.00"
    assert {a.json()["message"] for a in answers if a.status_code == 400} == {"This code has been used up."}
    with db.session_scope() as session:
        assert session.get(PromotionCode, code.id).redemptions == 2
        held = session.exec(select(PromotionRedemption).where(PromotionRedemption.code_id == code.id)).all()
    assert len(held) == 2 and {h.status for h in held} == {"held"}


@rounds
def test_five_subscription_checkouts_for_the_last_redemption_of_a_monthly_code_one_wins(
        live_api: LiveApi, stripe_standin, make_agent, round_: int):
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.MONTHLY)
    code = factories.make_promotion_code([agent], code="LASTMONTH", percent_off=50, max_redemptions=1,
                                         duration="repeating", duration_months=2)
    clients = [live_api.signed_in(factories.make_user().username) for _ in range(N)]
    answers = fire([partial(c.post, "/api/purchase/create-payment-intent",
                            json={"agentId": agent.id, "promotionCode": "lastmonth"}) for c in clients])
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] + [400] * (N - 1), [(a.status_code, a.text) for a in answers]
    [won] = [a.json() for a in answers if a.status_code == 200]
    assert (won["mode"], won["displayAmount"], won["discountAmount"], won["promotionMonths"]) == (
        "subscription", "10.00", "10.00", "First 2 months")
    assert {a.json()["message"] for a in answers if a.status_code == 400} == {"This code has been used up."}
    with db.session_scope() as session:
        assert session.get(PromotionCode, code.id).redemptions == 1
        held = session.exec(select(PromotionRedemption).where(PromotionRedemption.code_id == code.id)).all()
    assert [h.status for h in held] == ["held"]


@rounds
def test_a_code_without_a_limit_holds_once_per_buyer_without_counting(live_api: LiveApi, stripe_standin, make_agent,
                                                                      round_: int):
    """A code without a limit: its hold is one INSERT that writes nothing to the code's row. 5 buyers at once all
    get it; one buyer's 5 checkouts at once (5 agents) end with one hold (the once-per-customer index decides,
    the others reuse it)."""
    agents = [make_agent(price_cents=2000, pricing_model=PricingModel.ONE_TIME) for _ in range(N)]
    code = factories.make_promotion_code(agents, code="NOLIMIT", percent_off=25)
    buyers = [live_api.signed_in(factories.make_user().username) for _ in range(N)]
    body = {"agentId": agents[0].id, "promotionCode": "nolimit"}
    answers = fire([partial(c.post, "/api/purchase/create-payment-intent", json=body) for c in buyers])
    assert [a.status_code for a in answers] == [200] * N, [a.text for a in answers]
    assert {a.json()["displayAmount"] for a in answers} == {"15.00"}

    one = live_api.signed_in(factories.make_user().username)
    mine = fire([partial(one.post, "/api/purchase/create-payment-intent",
                         json={"agentId": agent.id, "promotionCode": "NOLIMIT"}) for agent in agents])
    assert [a.status_code for a in mine] == [200] * N, [a.text for a in mine]
    with db.session_scope() as session:
        assert session.get(PromotionCode, code.id).redemptions == 0  # no counter for a code without a limit
        held = session.exec(select(PromotionRedemption).where(PromotionRedemption.code_id == code.id)).all()
    assert len(held) == N + 1 and {h.status for h in held} == {"held"}
    assert len({h.user_id for h in held}) == N + 1
