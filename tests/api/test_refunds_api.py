"""The refund routes: `POST /api/user/refunds`, and the admin's list, approve, reject and refund of any order."""

from __future__ import annotations

import pytest

from marketplace import db
from marketplace.models import Order, OrderStatus
from tests import factories


@pytest.fixture
def paid(stripe_standin, make_agent):
    """A buyer's order paid at the stand-in 3 days ago."""
    buyer = factories.make_user("buyer")
    order = factories.make_paid_order(stripe_standin.stripe, make_agent(price_cents=2999, name="Sales Agent"), buyer,
                                      created_at=factories.ago(days=3))
    return buyer, order


def test_the_buyer_gets_the_money_back_over_http(client, login, paid):
    buyer, order = paid
    assert client.post("/api/user/refunds", json={"orderId": order.id, "reason": "x"}).status_code == 401
    login(buyer)
    answer = client.post("/api/user/refunds", json={"orderId": order.id, "reason": "Not what I needed"})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["status"] == "succeeded" and body["id"]
    assert body["message"] == "Your order has been refunded. The money reaches your card within 5-10 business days."
    orders = client.get("/api/user/orders").json()
    assert [o["status"] for o in orders] == ["refunded"]
    again = client.post("/api/user/refunds", json={"orderId": order.id, "reason": "Again"})
    assert again.status_code == 409 and again.json()["message"] == "This order has already been refunded"


def test_refusals_over_http(client, login, paid, make_user):
    buyer, order = paid
    login(make_user("someone"))
    assert client.post("/api/user/refunds", json={"orderId": order.id, "reason": "Mine?"}).status_code == 404
    client.post("/api/logout")
    login(buyer)
    missing = client.post("/api/user/refunds", json={"reason": "No id"})
    assert missing.status_code == 422
    long = client.post("/api/user/refunds", json={"orderId": order.id, "reason": "x" * 1001})
    assert long.status_code == 400 and long.json() == {"message": "The reason must be at most 1000 characters",
                                                       "field": "reason"}
    blank = client.post("/api/user/refunds", json={"orderId": order.id, "reason": " "})
    assert blank.status_code == 400 and blank.json()["field"] == "reason"
    old = factories.make_order(factories.make_agent(), buyer, created_at=factories.ago(days=31))
    late = client.post("/api/user/refunds", json={"orderId": old.id, "reason": "Late"})
    assert late.status_code == 409 and "30-day money-back guarantee has ended" in late.json()["message"]
    with db.session_scope() as session:
        assert session.get(Order, order.id).status == OrderStatus.COMPLETED


def test_admin_requests_approve_reject_and_refund_over_http(client, login, stripe_standin, make_agent):
    buyer, admin = factories.make_user("buyer"), factories.make_admin("boss")
    for _ in range(2):
        factories.make_refund(factories.make_order(factories.make_agent(), buyer))
    first = factories.make_paid_order(stripe_standin.stripe, make_agent(price_cents=1000), buyer)
    second = factories.make_paid_order(stripe_standin.stripe, make_agent(price_cents=2000), buyer)
    login(buyer)
    held = client.post("/api/user/refunds", json={"orderId": first.id, "reason": "Third"})
    assert held.status_code == 201 and held.json()["status"] == "requested"
    assert held.json()["message"] == "Your refund request has been sent to an admin for review."
    held_too = client.post("/api/user/refunds", json={"orderId": second.id, "reason": "Fourth"}).json()
    assert client.get("/api/admin/refunds").status_code == 403
    client.post("/api/logout")

    login(admin)
    listed = client.get("/api/admin/refunds", params={"status": "requested", "limit": 1})
    assert listed.status_code == 200 and listed.headers["X-Total-Count"] == "2" and len(listed.json()) == 1
    row = listed.json()[0]
    assert set(row) >= {"id", "orderId", "agentName", "customer", "amount", "currency", "status", "source", "reason",
                        "createdAt", "decidedAt", "decisionReason", "decidedBy"}
    assert client.get("/api/admin/refunds", params={"status": "nope"}).status_code == 422

    approved = client.post(f"/api/admin/refunds/{held.json()['id']}/approve")
    assert approved.status_code == 200 and approved.json()["status"] == "succeeded", approved.text
    assert client.post(f"/api/admin/refunds/{held.json()['id']}/approve").status_code == 409
    rejected = client.post(f"/api/admin/refunds/{held_too['id']}/reject", json={"reason": "Too many refunds"})
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert client.post(f"/api/admin/refunds/{held_too['id']}/reject").status_code == 409
    assert client.post("/api/admin/refunds/unknown/approve").status_code == 404
    done = client.get("/api/admin/refunds", params={"status": "succeeded"}).json()
    assert [r["decidedBy"] for r in done if r["orderId"] == first.id] == ["boss"]
    decided = client.get("/api/admin/refunds", params={"status": "rejected"}).json()
    assert decided[0]["decisionReason"] == "Too many refunds"

    old = factories.make_paid_order(stripe_standin.stripe, make_agent(price_cents=500), buyer,
                                    created_at=factories.ago(days=60))
    refunded = client.post("/api/admin/refunds", json={"orderId": old.id, "reason": "Goodwill"})
    assert refunded.status_code == 201 and refunded.json()["status"] == "succeeded"
    assert client.post("/api/admin/refunds", json={"orderId": old.id}).status_code == 409
    actions = [a[0] for a in factories.audit_actions()]
    assert actions.count("refund.approve") == 1 and actions.count("refund.reject") == 1
    assert actions.count("refund.create") == 1


def test_admin_refund_routes_need_an_admin(client, login, paid):
    buyer, order = paid
    for method, path, body in (("get", "/api/admin/refunds", None), ("post", "/api/admin/refunds",
                                                                      {"orderId": order.id}),
                               ("post", "/api/admin/refunds/abc/approve", None),
                               ("post", "/api/admin/refunds/abc/reject", None)):
        assert getattr(client, method)(path, **({"json": body} if body else {})).status_code == 401
    login(buyer)
    assert client.post("/api/admin/refunds", json={"orderId": order.id}).status_code == 403
    assert client.post("/api/admin/refunds/abc/approve").status_code == 403
    with db.session_scope() as session:
        assert session.get(Order, order.id).status == OrderStatus.COMPLETED
