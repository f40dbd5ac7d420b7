"""Admin writes over HTTP: each one x signed out / customer / vendor / admin, deletes, commission rate, audit log."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from marketplace import db
from marketplace.api.deps import SESSION_COOKIE
from marketplace.models import Agent, AgentStatus, Order, Role, User
from marketplace.services import auth, platform
from tests import factories as f
from tests.conftest import browser_client


@dataclass
class World:
    """One target for every admin write."""

    applicant_a: User
    applicant_b: User
    pending_a: Agent
    pending_b: Agent
    customer: User
    live: Agent


@pytest.fixture
def world() -> World:
    vendor = f.make_vendor()
    a, b = f.make_user(), f.make_user()
    f.make_application(a)
    f.make_application(b)
    return World(applicant_a=a, applicant_b=b, pending_a=f.make_agent(vendor, status=AgentStatus.PENDING, files=1),
                 pending_b=f.make_agent(vendor, status=AgentStatus.PENDING, files=1), customer=f.make_user(),
                 live=f.make_agent(vendor))


Call = Callable[[TestClient, World], object]
WRITES: dict[str, tuple[Call, int, tuple[str, str]]] = {
    # name: (request, success status, (audit action, target type))
    "approve vendor": (lambda c, w: c.post(f"/api/admin/vendor/{w.applicant_a.id}/approve"), 200,
                       ("vendor.approve", "user")),
    "reject vendor": (lambda c, w: c.post(f"/api/admin/vendor/{w.applicant_b.id}/reject"), 200,
                      ("vendor.reject", "user")),
    "approve agent": (lambda c, w: c.post(f"/api/admin/agents/{w.pending_a.id}/approve"), 200,
                      ("agent.approve", "agent")),
    "reject agent": (lambda c, w: c.post(f"/api/admin/agents/{w.pending_b.id}/reject",
                                         json={"rejectionReason": "No docs"}), 200, ("agent.reject", "agent")),
    "delete user": (lambda c, w: c.delete(f"/api/admin/users/{w.customer.id}"), 204, ("user.delete", "user")),
    "delete agent": (lambda c, w: c.delete(f"/api/admin/agents/{w.live.id}"), 204, ("agent.delete", "agent")),
    "commission rate": (lambda c, w: c.put("/api/admin/settings/commissionRate", json={
        "value": "15%", "description": "Platform commission rate on each sale"}), 200, ("setting.update", "setting")),
}


def _unchanged(w: World) -> None:
    with db.session_scope() as session:
        assert session.get(User, w.applicant_a.id).role == Role.USER
        assert session.get(Agent, w.pending_a.id).status == AgentStatus.PENDING
        assert session.get(Agent, w.pending_b.id).status == AgentStatus.PENDING
        assert session.get(User, w.customer.id).deleted_at is None
        assert session.get(Agent, w.live.id).deleted_at is None
    assert platform.get_setting(platform.COMMISSION_RATE) == "20%"
    assert f.audit_actions() == []


@pytest.mark.parametrize("write", WRITES)
def test_signed_out_gets_401(client, world, write):
    response = WRITES[write][0](client, world)
    assert response.status_code == 401 and response.json() == {"message": "Unauthorized"}
    _unchanged(world)


@pytest.mark.parametrize("role", [Role.USER, Role.VENDOR])
@pytest.mark.parametrize("write", WRITES)
def test_customers_and_vendors_get_403(client, login, world, write, role):
    login(f.make_user(role=role))
    response = WRITES[write][0](client, world)
    assert response.status_code == 403 and response.json() == {"message": "Admin access required"}
    _unchanged(world)


@pytest.mark.parametrize("write", WRITES)
def test_admin_write_succeeds_and_is_audited(client, login, world, write):
    call, status, (action, target_type) = WRITES[write]
    admin = f.make_admin()
    login(admin)
    response = call(client, world)
    assert response.status_code == status, response.text
    [entry] = client.get("/api/admin/audit-log").json()
    assert (entry["action"], entry["targetType"], entry["actorId"]) == (action, target_type, admin.id)
    assert entry["actorUsername"] == admin.username and entry["targetId"] and entry["createdAt"]


@pytest.mark.parametrize("role", [None, Role.USER, Role.VENDOR])
def test_audit_log_is_admin_only(client, login, role):
    if role:
        login(f.make_user(role=role))
    assert client.get("/api/admin/audit-log").status_code == (401 if role is None else 403)


def test_audit_log_pages_with_total_and_search(client, login):
    admin = f.make_admin("root")
    login(admin)
    for value in ("11%", "12%", "13%"):
        assert client.put("/api/admin/settings/commissionRate", json={"value": value}).status_code == 200
    response = client.get("/api/admin/audit-log", params={"limit": 2, "offset": 1})
    assert response.headers["X-Total-Count"] == "3"
    assert [e["details"] for e in response.json()] == [{"from": "11%", "to": "12%"}, {"from": "20%", "to": "11%"}]
    found = client.get("/api/admin/audit-log", params={"search": "commission"})
    assert found.headers["X-Total-Count"] == "3"
    assert client.get("/api/admin/audit-log", params={"search": "nobody"}).json() == []
    assert client.get("/api/admin/audit-log", params={"limit": 101}).status_code == 422


def test_deleted_user_is_signed_out_everywhere_and_cannot_sign_in(client, login):
    victim = f.make_user("victim")
    token = auth.create_session(user=victim)
    client.cookies.set(SESSION_COOKIE, token)
    assert client.get("/api/user").status_code == 200
    client.cookies.clear()

    login(f.make_admin())
    assert client.delete(f"/api/admin/users/{victim.id}").status_code == 204
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, token)
    assert client.get("/api/user").status_code == 401
    client.cookies.clear()
    refused = client.post("/api/login", json={"username": "victim", "password": f.PASSWORD})
    assert refused.status_code == 401


def test_deletes_keep_orders_purchases_commissions_and_downloads(client, login):
    vendor, buyer = f.make_vendor(), f.make_user("keeper")
    agent = f.make_agent(vendor, name="Kept Agent")
    f.store_agent_file(agent, b"payload", filename="agent.txt")
    f.make_purchase(buyer, agent)
    commission = f.make_order(agent, buyer, commission_rate="20")
    admin = f.make_admin()

    login(admin)
    assert client.delete(f"/api/admin/users/{vendor.id}").status_code == 204
    assert client.get(f"/api/agents/{agent.id}").status_code == 404
    assert agent.id not in [a["id"] for a in client.get("/api/agents").json()]
    assert client.delete(f"/api/admin/agents/{agent.id}").status_code == 404  # already gone with its vendor
    client.post("/api/logout")

    login(buyer)
    [purchase] = client.get("/api/user/purchases").json()
    assert purchase["agent"]["name"] == "Kept Agent" and purchase["order"]["status"] == "completed"
    assert len(client.get("/api/user/orders").json()) == 2
    download = client.get(f"/api/agents/{agent.id}/download")
    assert download.status_code == 200
    with zipfile.ZipFile(io.BytesIO(download.content)) as z:
        assert z.read("agent.txt") == b"payload"
    client.post("/api/logout")

    login(admin)
    assert client.delete(f"/api/admin/users/{buyer.id}").status_code == 204
    with db.session_scope() as session:
        kept = session.get(Order, commission.id)
        assert (kept.user_id, kept.vendor_id, kept.platform_fee_cents) == (buyer.id, vendor.id,
                                                                           commission.platform_fee_cents)


def test_self_delete_last_admin_and_unknown_ids(client, login):
    admin, other = f.make_admin(), f.make_admin()
    login(admin)
    response = client.delete(f"/api/admin/users/{admin.id}")
    assert response.status_code == 409 and response.json() == {"message": "You cannot delete your own account"}
    assert client.delete(f"/api/admin/users/{other.id}").status_code == 204
    assert client.delete(f"/api/admin/users/{other.id}").status_code == 404
    assert client.delete("/api/admin/users/nobody").json() == {"message": "User not found"}
    assert client.delete("/api/admin/agents/nothing").json() == {"message": "Agent not found"}
    assert client.delete(f"/api/admin/users/{admin.id}").status_code == 409  # still itself, now the last


@pytest.mark.parametrize("value", ["", "abc", "-1", "100.001", "15.555", "101%"])
def test_commission_validation_answers_400_with_the_spec_message(client, login, value):
    login(f.make_admin())
    response = client.put("/api/admin/settings/commissionRate", json={"value": value})
    assert response.status_code == 400
    assert response.json() == {"message": "Please enter a valid number for commission rate", "field": "value"}
    assert platform.get_setting(platform.COMMISSION_RATE) == "20%"


def test_commission_with_decimals_is_accepted(client, login):
    login(f.make_admin())
    response = client.put("/api/admin/settings/commissionRate",
                          json={"value": "15.5%", "description": "Platform commission rate on each sale"})
    assert response.status_code == 200 and response.json()["value"] == "15.5%"
    assert client.get("/api/admin/settings").json()[0]["value"] == "15.5%"


def _buy(client: TestClient, stripe_standin, agent: Agent, buyer: User, *, then: Callable[[], None] | None = None):
    """Checkout and pay for `agent` as `buyer` (signed in); `then` runs between checkout and completion."""
    intent = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    assert stripe_standin.confirm(intent["clientSecret"]).json()["status"] == "succeeded"
    if then:
        then()
    done = client.post("/api/purchase/complete", json={
        "paymentIntentId": intent["paymentIntentId"], "agentId": agent.id, "agentName": agent.name,
        "userId": buyer.id, "customerEmail": buyer.email, "customerName": "Customer", "isGuestCheckout": False})
    assert done.status_code == 200, done.text


def test_a_new_rate_applies_only_to_later_sales(client, login, stripe_standin, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    first, second, third = (make_agent(vendor, price_cents=10000) for _ in range(3))
    admin, buyer = f.make_admin(), f.make_user("payer")

    def set_rate(value: str) -> None:
        with browser_client() as other:
            other.post("/api/login", json={"username": admin.username, "password": f.PASSWORD})
            assert other.put("/api/admin/settings/commissionRate", json={"value": value}).status_code == 200

    login(buyer)
    _buy(client, stripe_standin, first, buyer)
    # Checked out at 20%, the rate changes before the payment is recorded: the sale keeps the agreed 20%.
    _buy(client, stripe_standin, second, buyer, then=lambda: set_rate("15%"))
    _buy(client, stripe_standin, third, buyer)

    orders = {o["agentId"]: o for o in client.get("/api/user/orders").json()}
    assert [(orders[a.id]["commissionRate"], orders[a.id]["platformFeeAmount"], orders[a.id]["vendorAmount"])
            for a in (first, second, third)] == [("20.00", "20.00", "80.00"), ("20.00", "20.00", "80.00"),
                                                 ("15.00", "15.00", "85.00")]
