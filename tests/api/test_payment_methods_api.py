"""The Payment tab's saved cards over HTTP, against the Stripe stand-in: list, add (a SetupIntent confirmed as
Stripe.js does), make one the default (the customer's and every live subscription's), remove one (refused while a
subscription is charged with it); another customer's card, a made-up id and a signed-out caller."""

from __future__ import annotations

import pytest

from marketplace.services.billing import payment_methods
from tests import factories

ROUTE = "/api/user/payment-methods"


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


def _subscribe(client, standin, agent) -> str:
    """A monthly agent bought at checkout: the card it was paid with is kept as the subscription's default."""
    intent = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    assert standin.confirm(intent["clientSecret"]).json()["status"] == "succeeded"
    done = client.post("/api/purchase/complete", json={"paymentIntentId": intent["paymentIntentId"],
                                                        "agentId": agent.id})
    assert done.status_code == 200, done.text
    return intent["subscriptionId"]


def _stripe_subscription(standin, subscription_id: str):
    from marketplace import db
    from marketplace.models import Subscription

    with db.session_scope() as session:
        stripe_id = session.get(Subscription, subscription_id).stripe_subscription_id
    return standin.stripe.v1.subscriptions.retrieve(stripe_id)


def test_a_customer_adds_a_card_makes_it_the_default_and_removes_the_old_one(client, login, stripe_standin, buyer,
                                                                              make_agent):
    login(buyer)
    assert client.get(ROUTE).json() == []  # before any checkout: no Stripe Customer, nothing to list
    sub_id = _subscribe(client, stripe_standin, make_agent(name="Ledger Bot"))
    [first] = client.get(ROUTE).json()
    assert set(first) == {"id", "brand", "last4", "expMonth", "expYear", "isDefault"}
    assert (first["brand"], first["last4"], first["expMonth"], first["expYear"], first["isDefault"]) == (
        "visa", "4242", 12, 2034, True)  # the checkout's card pays the subscription

    started = client.post(f"{ROUTE}/setup")
    assert started.status_code == 200 and set(started.json()) == {"clientSecret"}
    secret = started.json()["clientSecret"]
    assert secret.startswith("seti_")
    intent = stripe_standin.stripe.v1.setup_intents.retrieve(secret.split("_secret_")[0])
    assert intent.automatic_payment_methods.enabled is True and intent.usage == "off_session"
    assert stripe_standin.confirm_setup(secret, "5555555555554444").json()["status"] == "succeeded"
    second, again = client.get(ROUTE).json()
    assert again == first and (second["last4"], second["isDefault"]) == ("4444", False)

    refused = client.delete(f"{ROUTE}/{first['id']}")
    assert refused.status_code == 409
    assert refused.json() == {"message": "This card pays an active subscription. Make another card the default "
                                         "first."}

    made = client.post(f"{ROUTE}/{second['id']}/default")
    assert made.status_code == 200
    assert [(c["id"], c["isDefault"]) for c in made.json()] == [(second["id"], True), (first["id"], False)]
    customer = stripe_standin.stripe.v1.customers.retrieve(_stripe_subscription(stripe_standin, sub_id).customer)
    assert customer.invoice_settings.default_payment_method == second["id"]
    assert _stripe_subscription(stripe_standin, sub_id).default_payment_method == second["id"]

    assert client.delete(f"{ROUTE}/{first['id']}").status_code == 204
    assert [c["id"] for c in client.get(ROUTE).json()] == [second["id"]]
    assert stripe_standin.stripe.v1.payment_methods.retrieve(first["id"]).customer is None
    assert client.delete(f"{ROUTE}/{first['id']}").status_code == 404  # gone: no longer the customer's


def test_a_card_no_subscription_needs_can_be_removed(client, login, stripe_standin, buyer):
    card = factories.make_saved_card(stripe_standin.stripe, buyer)
    login(buyer)
    [listed] = client.get(ROUTE).json()
    assert listed["id"] == card and listed["isDefault"] is False
    assert client.post(f"{ROUTE}/{card}/default").json()[0]["isDefault"] is True
    # The customer's default, but no live subscription is charged with it: it may go.
    assert client.delete(f"{ROUTE}/{card}").status_code == 204
    assert client.get(ROUTE).json() == []


def test_another_customers_card_is_not_found(client, login, stripe_standin, buyer, make_user):
    theirs = factories.make_saved_card(stripe_standin.stripe, make_user("owner"))
    mine = factories.make_saved_card(stripe_standin.stripe, buyer)
    login(buyer)
    for response in (client.post(f"{ROUTE}/{theirs}/default"), client.delete(f"{ROUTE}/{theirs}")):
        assert response.status_code == 404 and response.json() == {"message": "Payment method not found"}
    assert [c["id"] for c in client.get(ROUTE).json()] == [mine]
    assert stripe_standin.stripe.v1.payment_methods.retrieve(theirs).customer is not None


def test_made_up_ids_are_not_found(client, login, stripe_standin, buyer):
    factories.make_saved_card(stripe_standin.stripe, buyer)
    login(buyer)
    for bad in ("nope", "pm_unknown", "pm_" + "x" * 200, "pm_a%20b", "seti_123", "%20"):
        assert client.post(f"{ROUTE}/{bad}/default").status_code == 404, bad
        assert client.delete(f"{ROUTE}/{bad}").status_code == 404, bad


def test_signed_out_is_401(client, stripe_standin, buyer):
    card = factories.make_saved_card(stripe_standin.stripe, buyer)
    assert client.get(ROUTE).status_code == 401
    assert client.post(f"{ROUTE}/setup").status_code == 401
    assert client.post(f"{ROUTE}/{card}/default").status_code == 401
    assert client.delete(f"{ROUTE}/{card}").status_code == 401


def test_the_service_refuses_without_a_user_and_for_bad_ids(stripe_standin, buyer):
    from marketplace.services.errors import NotFound, Unauthorized

    card = factories.make_saved_card(stripe_standin.stripe, buyer)
    for call in (lambda: payment_methods.list_cards(actor=None),
                 lambda: payment_methods.start_adding_card(actor=None),
                 lambda: payment_methods.make_default(actor=None, payment_method_id=card),
                 lambda: payment_methods.remove_card(actor=None, payment_method_id=card)):
        with pytest.raises(Unauthorized):
            call()
    for bad in (None, 42, ["pm_x"], "", "pm_"):
        with pytest.raises(NotFound):
            payment_methods.make_default(actor=buyer, payment_method_id=bad)
        with pytest.raises(NotFound):
            payment_methods.remove_card(actor=buyer, payment_method_id=bad)


# --- making a card the default while removing it ------------------------------------------------------------


def _subscribed_with_a_second_card(client, login, standin, buyer, agent) -> tuple[str, str, str]:
    """A subscription paid with the checkout's card, and a second card saved (not the default): (the
    subscription, the first card, the second)."""
    login(buyer)
    sub_id = _subscribe(client, standin, agent)
    [first] = client.get(ROUTE).json()
    second = factories.make_saved_card(standin.stripe, buyer, number="5555555555554444")
    client.post("/api/logout")
    return sub_id, first["id"], second


@pytest.mark.parametrize("round_", range(3))
def test_making_a_card_the_default_while_removing_it_never_leaves_a_subscription_without_one(
        client, login, live_api, stripe_standin, buyer, make_agent, round_):
    from tests.live_api import fire

    sub_id, first, second = _subscribed_with_a_second_card(client, login, stripe_standin, buyer,
                                                           make_agent(name=f"Race Bot {round_}"))
    default, remove = live_api.signed_in("buyer"), live_api.signed_in("buyer")
    try:
        made, removed = fire([lambda: default.post(f"{ROUTE}/{second}/default"),
                              lambda: remove.delete(f"{ROUTE}/{second}")])
    finally:
        default.close()
        remove.close()
    # One decision: the default won (the card is then needed: 409), or the removal won (the default then finds
    # no card, 404, or the customer's cards busy, 409); never both.
    outcomes = sorted([("default", made.status_code), ("remove", removed.status_code)])
    assert outcomes in ([("default", 200), ("remove", 409)], [("default", 404), ("remove", 204)],
                        [("default", 409), ("remove", 204)]), outcomes
    charged = _stripe_subscription(stripe_standin, sub_id).default_payment_method
    attached = {pm.id for pm in stripe_standin.stripe.v1.payment_methods.list(
        params={"customer": _stripe_subscription(stripe_standin, sub_id).customer, "type": "card"}).data}
    assert charged in attached  # the subscription is charged with a card the customer still has
    assert charged == (second if made.status_code == 200 else first)


def test_a_second_change_while_the_cards_are_claimed_is_refused_until_the_lease_ends(client, login, stripe_standin,
                                                                                     buyer, make_agent):
    from datetime import timedelta

    from marketplace import db
    from marketplace.models import BillingCustomer
    from marketplace.models.base import utcnow

    _sub_id, first, second = _subscribed_with_a_second_card(client, login, stripe_standin, buyer, make_agent())

    def lease(until):
        with db.session_scope() as session:
            row = session.get(BillingCustomer, buyer.id)
            row.cards_busy_until = until
            session.add(row)

    lease(utcnow() + timedelta(seconds=30))  # another request is changing the cards
    login(buyer)
    for response in (client.post(f"{ROUTE}/{second}/default"), client.delete(f"{ROUTE}/{second}")):
        assert response.status_code == 409
        assert response.json() == {"message": payment_methods.CARDS_BUSY}
    assert [c["isDefault"] for c in client.get(ROUTE).json() if c["id"] == first] == [True]  # nothing changed
    lease(utcnow() - timedelta(seconds=1))  # that request died: its lease ran out
    assert client.post(f"{ROUTE}/{second}/default").status_code == 200
    with db.session_scope() as session:
        assert session.get(BillingCustomer, buyer.id).cards_busy_until is None  # given back
