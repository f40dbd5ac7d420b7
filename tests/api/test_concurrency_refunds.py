"""Refunds under simultaneous requests, over real HTTP (tests/live_api.py), on SQLite and PostgreSQL: of N
requests refunding one order exactly one is paid back (one Stripe Refund, one notification, one mail each) and
every other answers 409 having caused nothing; two admins deciding one request: one decision, one audit entry."""

from __future__ import annotations

from functools import partial

import httpx
import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Notification, OutboxMail, Refund, RefundStatus
from tests import factories
from tests.live_api import LiveApi, fire

rounds = pytest.mark.parametrize("round_", range(3))
N = 5


def _one_winner(answers: list[httpx.Response], ok: int) -> None:
    statuses = sorted(a.status_code for a in answers)
    assert statuses == sorted([ok] + [409] * (len(answers) - 1)), [(a.status_code, a.text) for a in answers]
    assert all(a.json()["message"] for a in answers if a.status_code == 409)


def _rows(model, *where) -> list:
    with db.session_scope() as session:
        return list(session.exec(select(model).where(*where)).all())


@rounds
def test_simultaneous_refunds_of_one_order_pay_back_once(live_api: LiveApi, stripe_standin, make_vendor, make_agent,
                                                        round_: int):
    vendor = make_vendor("enabled")
    buyer = factories.make_user()
    order = factories.make_paid_order(stripe_standin.stripe, make_agent(vendor, price_cents=3000), buyer)
    clients = [live_api.signed_in(buyer.username) for _ in range(N)]
    answers = fire([partial(c.post, "/api/user/refunds", json={"orderId": order.id, "reason": f"Try {n}"})
                    for n, c in enumerate(clients)])

    _one_winner(answers, 201)
    assert len(stripe_standin.stripe.v1.refunds.list(params={"payment_intent": order.payment_intent_id}).data) == 1
    assert [r.status for r in _rows(Refund, Refund.order_id == order.id)] == [RefundStatus.SUCCEEDED]
    assert len(_rows(Notification, Notification.user_id == vendor.id)) == 1
    assert len(_rows(OutboxMail, OutboxMail.recipient == buyer.email)) == 1
    assert len(_rows(OutboxMail, OutboxMail.recipient == vendor.email)) == 1


@rounds
def test_a_customer_and_an_admin_refunding_at_once_make_one_refund(live_api: LiveApi, stripe_standin, make_agent,
                                                                  round_: int):
    buyer, admin = factories.make_user(), factories.make_admin()
    order = factories.make_paid_order(stripe_standin.stripe, make_agent(price_cents=1200), buyer)
    customer, staff = live_api.signed_in(buyer.username), live_api.signed_in(admin.username)
    answers = fire([partial(customer.post, "/api/user/refunds", json={"orderId": order.id, "reason": "Mine"}),
                    partial(staff.post, "/api/admin/refunds", json={"orderId": order.id, "reason": "Theirs"})])

    _one_winner(answers, 201)
    assert len(stripe_standin.stripe.v1.refunds.list(params={"payment_intent": order.payment_intent_id}).data) == 1
    assert len(_rows(Refund, Refund.order_id == order.id)) == 1


@rounds
def test_two_admins_deciding_one_request_make_one_decision(live_api: LiveApi, stripe_standin, make_agent,
                                                          round_: int):
    buyer = factories.make_user()
    for _ in range(2):
        factories.make_refund(factories.make_order(factories.make_agent(), buyer))
    order = factories.make_paid_order(stripe_standin.stripe, make_agent(price_cents=1200), buyer)
    held = live_api.signed_in(buyer.username).post("/api/user/refunds", json={"orderId": order.id, "reason": "3rd"})
    assert held.json()["status"] == "requested"
    admins = [live_api.signed_in(factories.make_admin().username) for _ in range(4)]
    refund_id = held.json()["id"]
    answers = fire([partial(a.post, f"/api/admin/refunds/{refund_id}/{'approve' if n % 2 else 'reject'}")
                    for n, a in enumerate(admins)])

    _one_winner(answers, 200)
    decided = [a[0] for a in factories.audit_actions() if a[2] == refund_id]
    assert len(decided) == 1
    paid_back = len(stripe_standin.stripe.v1.refunds.list(params={"payment_intent": order.payment_intent_id}).data)
    assert paid_back == (1 if decided == ["refund.approve"] else 0)
    assert len(_rows(Notification, Notification.user_id == buyer.id)) == 1
