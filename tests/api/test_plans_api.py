"""Vendor plans over HTTP: the public offer, the vendor's plan, choosing and cancelling, the admin's edit, and
the agent limit at submission, including submissions sent at the same moment at the limit (never over), on
SQLite and PostgreSQL."""

from __future__ import annotations

from functools import partial

import pytest
from sqlmodel import func, select

from marketplace import db
from marketplace.models import Agent, AgentStatus
from marketplace.services import plans
from tests import factories
from tests.live_api import LiveApi, fire

LIMIT_MESSAGE = "Your Free plan allows 3 agents. Upgrade to list more."


def _draft(category_id: int, name: str) -> dict[str, object]:
    return {"name": name, "shortDescription": "Short", "description": "Long", "price": "5",
            "categoryId": category_id, "tags": []}


def _agents(vendor) -> int:
    with db.session_scope() as session:
        return session.exec(select(func.count()).select_from(Agent).where(Agent.vendor_id == vendor.id)).one()


def test_the_public_offer_in_order(client):
    answer = client.get("/api/plans")
    assert answer.status_code == 200
    assert answer.json() == [
        {"id": "free", "name": "Free", "monthlyPrice": "0.00", "agentLimit": 3, "feePercent": "20.00"},
        {"id": "pro", "name": "Pro", "monthlyPrice": "29.00", "agentLimit": None, "feePercent": "10.00"},
        {"id": "enterprise", "name": "Enterprise", "monthlyPrice": "99.00", "agentLimit": None,
         "feePercent": "5.00"}]


def test_the_vendor_plan_and_the_limit_at_submission(client, login):
    vendor = factories.make_vendor()
    category = factories.make_category()
    for status in (AgentStatus.APPROVED, AgentStatus.PENDING):
        factories.make_agent(vendor, status=status)
    login(vendor)
    plan = client.get("/api/vendor/plan").json()
    assert (plan["plan"]["id"], plan["status"], plan["agentsUsed"], plan["agentLimit"], plan["pendingPlanId"]) == (
        "free", "active", 2, 3, None)
    assert client.post("/api/vendor/agents", json=_draft(category.id, "Third")).status_code == 201
    refused = client.post("/api/vendor/agents", json=_draft(category.id, "Fourth"))
    assert (refused.status_code, refused.json()["message"]) == (403, LIMIT_MESSAGE)
    assert _agents(vendor) == 3 and client.get("/api/vendor/plan").json()["agentsUsed"] == 3


def test_plan_requests_answer_their_refusals(client, login):
    login(factories.make_vendor())
    assert client.post("/api/vendor/plan", json={"planId": "gold"}).json() == {"message": "Plan not found"}
    assert client.post("/api/vendor/plan", json={"planId": "free"}).status_code == 409
    assert client.post("/api/vendor/plan", json={}).status_code == 422
    cancel = client.post("/api/vendor/plan/cancel")
    assert (cancel.status_code, cancel.json()["message"]) == (
        409, "You are on the Free plan: there is nothing to cancel")


def test_choosing_pro_answers_the_payment_elements_client_secret(client, login, stripe_standin):
    login(factories.make_vendor())
    answer = client.post("/api/vendor/plan", json={"planId": "pro"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["clientSecret"].startswith("pi_") and body["message"].startswith(
        "Pay $29.00/month to start your Pro plan. The next charge of $29.00 is on ")
    assert body["plan"]["plan"]["id"] == "free"  # until it is paid


def test_the_admin_edits_a_plan(client, login):
    login(factories.make_admin())
    answer = client.put("/api/admin/plans/pro", json={"monthlyPrice": "39", "agentLimit": 25, "feePercent": "8%"})
    assert answer.json() == {"id": "pro", "name": "Pro", "monthlyPrice": "39.00", "agentLimit": 25,
                             "feePercent": "8.00"}
    assert client.put("/api/admin/plans/pro", json={"agentLimit": None}).json()["agentLimit"] is None
    bad = client.put("/api/admin/plans/pro", json={"feePercent": "120%"})
    assert (bad.status_code, bad.json()["message"]) == (
        400, "Fee must be a number from 0 to 100 with at most 2 decimals")  # names the fee, not the rate
    assert client.put("/api/admin/plans/free", json={"feePercent": "17.5"}).json()["feePercent"] == "17.50"
    assert client.get("/api/admin/settings").json()[0] | {"updatedAt": None} == {
        "key": "commissionRate", "value": "17.5%", "description": "Platform commission rate on each sale",
        "updatedAt": None}
    assert client.put("/api/admin/plans/gold", json={"name": "Gold"}).status_code == 404
    login(factories.make_vendor())
    assert client.put("/api/admin/plans/pro", json={"name": "Mine"}).status_code == 403


@pytest.mark.parametrize("round_", range(3))
def test_submissions_at_the_same_moment_never_go_over_the_limit(live_api: LiveApi, round_: int):
    vendor = factories.make_vendor()
    category = factories.make_category()
    factories.make_agent(vendor, status=AgentStatus.APPROVED)
    clients = [live_api.signed_in(vendor.username) for _ in range(6)]
    answers = fire([partial(c.post, "/api/vendor/agents", json=_draft(category.id, f"Race {n}"))
                    for n, c in enumerate(clients)])
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201, 201, 403, 403, 403, 403], [a.text for a in answers]
    assert {a.json()["message"] for a in answers if a.status_code == 403} == {LIMIT_MESSAGE}
    assert _agents(vendor) == 3


@pytest.mark.parametrize("round_", range(2))
def test_cancellations_at_the_same_moment_cancel_once(live_api: LiveApi, stripe_standin, mailbox, round_: int):
    vendor = factories.make_vendor()
    change = plans.choose_plan(actor=vendor, plan_id="pro")
    assert stripe_standin.confirm(change.client_secret).json()["status"] == "succeeded"
    assert plans.refresh_plan(actor=vendor).plan.id == "pro"
    clients = [live_api.signed_in(vendor.username) for _ in range(4)]
    answers = fire([partial(c.post, "/api/vendor/plan/cancel") for c in clients])
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409], [a.text for a in answers]
    assert all(a.json()["message"] for a in answers)
    assert plans.current_plan(actor=vendor).cancelled
    cancelled = [m for m in mailbox.messages(vendor.email) if m.subject == "Your Pro plan is cancelled"]
    assert len(cancelled) == 1
