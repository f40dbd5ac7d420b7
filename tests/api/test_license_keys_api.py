"""Key management over HTTP: the activation limit a vendor sets on an agent (wizard's Pricing step, same routes as
the price), a vendor's own agents' keys with Disable / Enable, and the admin's list of every key."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Agent, LicenseKey
from marketplace.models.admin import AuditEntry
from marketplace.services import licenses
from marketplace.services.vendors.drafts import ACTIVATION_LIMIT_INVALID
from tests import factories
from tests.conftest import browser_client

DRAFT = {"name": "Key Bot", "shortDescription": "Checks keys", "description": "An agent with a licence key.",
         "price": "19.00", "pricingModel": "one_time", "tags": ["keys"]}


def as_user(client, login, user):
    client.cookies.clear()
    return login(user) if user else client


def _key_of(purchase_id: str) -> LicenseKey:
    with db.session_scope() as session:
        return session.exec(select(LicenseKey).where(LicenseKey.purchase_id == purchase_id)).one()


def _limit(agent_id: str) -> int | None:
    with db.session_scope() as session:
        return session.get(Agent, agent_id).activation_limit


@pytest.fixture
def category():
    return factories.make_category("Keys")


@pytest.fixture
def sale():
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor, name="Sold Bot", price_cents=1500, pricing_model="one_time", files=1)
    buyer = factories.make_user("keybuyer")
    purchase = factories.make_purchase(buyer, agent)
    return vendor, agent, buyer, _key_of(purchase.id)


# --- the activation limit ----------------------------------------------------------------------------------


def test_a_new_agent_has_three_activations_unless_the_vendor_sets_another_limit(client, login, category):
    login(factories.make_vendor())
    default = client.post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id})
    assert default.status_code == 201, default.text
    assert default.json()["activationLimit"] == 3 and _limit(default.json()["id"]) == 3
    ten = client.post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id, "activationLimit": "10"})
    assert ten.json()["activationLimit"] == 10 and _limit(ten.json()["id"]) == 10
    unlimited = client.post("/api/vendor/agents",
                            json={**DRAFT, "categoryId": category.id, "activationLimit": "unlimited"})
    assert unlimited.json()["activationLimit"] == "unlimited" and _limit(unlimited.json()["id"]) is None
    assert client.get(f"/api/vendor/agents/{unlimited.json()['id']}").json()["activationLimit"] == "unlimited"


@pytest.mark.parametrize("value", [0, 101, -1, "abc", "2.5", "", "1e2", "٣", True])
def test_a_limit_outside_1_to_100_is_400_naming_the_field(client, login, category, value):
    response = login(factories.make_vendor()).post(
        "/api/vendor/agents", json={**DRAFT, "categoryId": category.id, "activationLimit": value})
    if value is True:
        assert response.status_code == 422  # neither a number nor text: refused by the request schema
        return
    assert response.status_code == 400, response.text
    assert response.json() == {"message": ACTIVATION_LIMIT_INVALID, "field": "activation_limit"}


def test_a_live_agents_limit_changes_through_review_and_only_by_its_vendor(client, login, category):
    vendor = factories.make_vendor()
    live = factories.make_agent(vendor, name="Live", short_description=DRAFT["shortDescription"],
                                description=DRAFT["description"], category=category, tags=DRAFT["tags"], files=1,
                                price_cents=1900, pricing_model="one_time")
    url, body = f"/api/vendor/agents/{live.id}", {**DRAFT, "name": "Live", "categoryId": category.id,
                                                   "activationLimit": 50}
    assert client.put(url, json=body).status_code == 401
    assert as_user(client, login, factories.make_user()).put(url, json=body).status_code == 403
    assert as_user(client, login, factories.make_vendor()).put(url, json=body).status_code == 403
    edited = as_user(client, login, vendor).put(url, json=body)
    assert edited.status_code == 200
    assert (edited.json()["activationLimit"], edited.json()["hasPendingRevision"]) == (50, True)
    assert _limit(live.id) == 3  # the live terms hold until an admin approves
    kept = client.put(url, json={**body, "activationLimit": None})  # left out: the proposed limit stays
    assert kept.json()["activationLimit"] == 50
    as_user(client, login, factories.make_admin())
    [pending] = client.get("/api/admin/agents/pending").json()
    assert pending["changedFields"] == ["activation_limit"]
    assert pending["fieldChanges"] == [{"field": "activation_limit", "old": "3", "new": "50"}]
    assert client.post(f"/api/admin/agents/{live.id}/approve").status_code == 200
    assert _limit(live.id) == 50


# --- a vendor's keys ---------------------------------------------------------------------------------------


def test_the_vendor_reads_its_agents_keys_masked(client, login, sale):
    vendor, agent, _, key = sale
    response = login(vendor).get(f"/api/vendor/agents/{agent.id}/license-keys")
    assert response.status_code == 200, response.text
    assert response.headers["X-Total-Count"] == "1"
    [row] = response.json()
    assert row["key"] == "XXXXX-XXXXX-XXXXX-" + key.key[-5:] and key.key not in response.text
    assert (row["id"], row["buyer"], row["buyerEmail"], row["status"], row["disabled"]) == (
        key.id, "keybuyer", None, "active", False)
    assert (row["activationLimit"], row["activationUsage"], row["activations"]) == (3, 0, [])
    found = client.get(f"/api/vendor/agents/{agent.id}/license-keys", params={"search": key.key[-5:].lower()})
    assert found.headers["X-Total-Count"] == "1"
    assert client.get(f"/api/vendor/agents/{agent.id}/license-keys", params={"search": "nobody"}).json() == []


def test_only_the_agents_vendor_or_an_admin_reads_its_keys(client, login, sale):
    _, agent, buyer, _ = sale
    url = f"/api/vendor/agents/{agent.id}/license-keys"
    assert client.get(url).status_code == 401
    assert as_user(client, login, buyer).get(url).status_code == 403
    other = as_user(client, login, factories.make_vendor()).get(url)
    assert (other.status_code, other.json()) == (403, {"message": licenses.NOT_YOUR_AGENT})
    missing = client.get("/api/vendor/agents/nope/license-keys")
    assert (missing.status_code, missing.json()) == (404, {"message": licenses.AGENT_NOT_FOUND})
    assert as_user(client, login, factories.make_admin()).get(url).headers["X-Total-Count"] == "1"


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"offset": -1}, {"search": "x" * 201}])
def test_bad_paging_or_search_is_422(client, login, sale, params):
    vendor, agent, _, _ = sale
    assert login(vendor).get(f"/api/vendor/agents/{agent.id}/license-keys", params=params).status_code == 422
    assert as_user(client, login, factories.make_admin()).get("/api/admin/license-keys",
                                                              params=params).status_code == 422


def test_the_vendor_disables_and_enables_a_key_and_the_agent_stops_validating(client, login, sale):
    vendor, _, _, key = sale
    login(vendor)
    disabled = client.post(f"/api/vendor/license-keys/{key.id}/disable", json={"reason": "Shared on a forum"})
    assert disabled.status_code == 200, disabled.text
    assert (disabled.json()["status"], disabled.json()["disabled"]) == ("disabled", True)
    assert not licenses.validate(license_key=key.key, instance_id=None, address="test").ok
    again = client.post(f"/api/vendor/license-keys/{key.id}/disable", json={"reason": "Again"})
    assert (again.status_code, again.json()) == (409, {"message": licenses.ALREADY_DISABLED})
    enabled = client.post(f"/api/vendor/license-keys/{key.id}/enable")
    assert (enabled.json()["status"], enabled.json()["disabled"]) == ("active", False)
    assert client.post(f"/api/vendor/license-keys/{key.id}/enable").status_code == 409
    assert licenses.validate(license_key=key.key, instance_id=None, address="test").ok
    with db.session_scope() as session:
        actions = session.exec(select(AuditEntry.action).where(AuditEntry.target_id == key.id)
                               .order_by(AuditEntry.created_at)).all()
    assert list(actions) == ["license.disable", "license.enable"]


def test_another_vendor_or_a_customer_cannot_disable_a_key(client, login, sale):
    _, _, buyer, key = sale
    url = f"/api/vendor/license-keys/{key.id}/disable"
    assert client.post(url).status_code == 401
    assert as_user(client, login, buyer).post(url).status_code == 403
    other = as_user(client, login, factories.make_vendor()).post(url)
    assert (other.status_code, other.json()) == (403, {"message": licenses.NOT_YOUR_AGENT})
    missing = client.post("/api/vendor/license-keys/nope/disable")
    assert (missing.status_code, missing.json()) == (404, {"message": licenses.KEY_NOT_FOUND})
    assert _key_of(key.purchase_id).disabled_at is None


def test_two_disables_at_once_one_wins(sale):
    vendor, _, _, key = sale

    def disable(_: int) -> int:
        with browser_client() as c:
            assert c.post("/api/login", json={"username": vendor.username,
                                              "password": factories.PASSWORD}).status_code == 200
            return c.post(f"/api/vendor/license-keys/{key.id}/disable", json={"reason": "Leaked"}).status_code

    with ThreadPoolExecutor(4) as pool:
        codes = sorted(pool.map(disable, range(4)))
    assert codes == [200, 409, 409, 409]


# --- the admin's list --------------------------------------------------------------------------------------


def test_the_admin_lists_searches_and_disables_any_key(client, login, sale):
    _, _, buyer, key = sale
    other = factories.make_purchase(factories.make_user("someoneelse"),
                                    factories.make_agent(factories.make_vendor(), name="Other Bot"))
    login(factories.make_admin())
    listed = client.get("/api/admin/license-keys")
    assert listed.status_code == 200 and listed.headers["X-Total-Count"] == "2"
    assert key.key not in listed.text and _key_of(other.id).key not in listed.text
    for search in ("keybuyer", buyer.email, "sold bot", key.key[-5:]):
        found = client.get("/api/admin/license-keys", params={"search": search})
        assert [r["id"] for r in found.json()] == [key.id], search
    [row] = client.get("/api/admin/license-keys", params={"search": "keybuyer"}).json()
    assert (row["agentName"], row["buyerEmail"]) == ("Sold Bot", buyer.email)
    paged = client.get("/api/admin/license-keys", params={"limit": 1, "offset": 1})
    assert len(paged.json()) == 1 and paged.headers["X-Total-Count"] == "2"
    done = client.post(f"/api/admin/license-keys/{key.id}/disable", json={"reason": "Chargeback fraud"})
    assert (done.status_code, done.json()["status"]) == (200, "disabled")
    assert client.post(f"/api/admin/license-keys/{key.id}/enable").json()["status"] == "active"


def test_only_admins_use_the_admin_list(client, login, sale):
    vendor, _, buyer, key = sale
    assert client.get("/api/admin/license-keys").status_code == 401
    assert client.post(f"/api/admin/license-keys/{key.id}/disable").status_code == 401
    for user in (buyer, vendor):
        as_user(client, login, user)
        assert client.get("/api/admin/license-keys").status_code == 403
    as_user(client, login, buyer)
    assert client.post(f"/api/admin/license-keys/{key.id}/disable").status_code == 403
    assert _key_of(key.purchase_id).disabled_at is None


# --- issue 34: a whole key finds its row; a Disable says why, and the buyer is told --------------------------


def test_the_admin_finds_a_key_by_its_whole_value_and_never_sees_it_whole(client, login, sale):
    _, _, _, key = sale
    factories.make_purchase(factories.make_user("someoneelse"), factories.make_agent(factories.make_vendor()))
    login(factories.make_admin())
    for quoted in (key.key, f"  {key.key.lower()} "):  # as a customer quotes it: any case, spaces around
        found = client.get("/api/admin/license-keys", params={"search": quoted})
        assert found.status_code == 200 and found.headers["X-Total-Count"] == "1", found.text
        assert [r["id"] for r in found.json()] == [key.id] and key.key not in found.text
        assert found.json()[0]["key"] == licenses.mask(key.key)
    other = key.key[:-1] + ("0" if key.key[-1] != "0" else "1")  # one character off: another key, none found
    assert client.get("/api/admin/license-keys", params={"search": other}).json() == []


@pytest.mark.parametrize("route", ["/api/vendor/license-keys/{id}/disable", "/api/admin/license-keys/{id}/disable"])
def test_a_disable_without_a_reason_is_refused_and_changes_nothing(client, login, sale, route, mailbox):
    vendor, _, buyer, key = sale
    login(vendor if "vendor" in route else factories.make_admin())
    url = route.format(id=key.id)
    for body in (None, {}, {"reason": ""}, {"reason": "   "}, {"reason": None}):
        refused = client.post(url, json=body) if body is not None else client.post(url)
        assert (refused.status_code, refused.json()["message"]) == (400, licenses.REASON_REQUIRED), body
    too_long = client.post(url, json={"reason": "x" * 501})
    assert (too_long.status_code, too_long.json()["message"]) == (400, licenses.REASON_TOO_LONG)
    assert _key_of(key.purchase_id).disabled_at is None
    assert mailbox.messages(buyer.email) == []


@pytest.mark.parametrize("who", ["vendor", "admin"])
def test_the_buyer_reads_why_the_key_was_disabled_and_is_told_both_ways(client, login, sale, who, mailbox):
    vendor, agent, buyer, key = sale
    actor = vendor if who == "vendor" else factories.make_admin()
    login(actor)
    prefix = "/api/vendor" if who == "vendor" else "/api/admin"
    done = client.post(f"{prefix}/license-keys/{key.id}/disable", json={"reason": "  Shared on a public forum  "})
    assert done.status_code == 200 and done.json()["disabledReason"] == "Shared on a public forum", done.text
    told = mailbox.last(buyer.email, f"Your license key for {agent.name} was disabled")
    assert "Reason: Shared on a public forum" in told.text

    as_user(client, login, buyer)
    [mine] = client.get("/api/user/purchases").json()
    assert (mine["licenseKey"], mine["licenseKeyDisabledReason"]) == (key.key, "Shared on a public forum")

    as_user(client, login, actor)
    assert client.post(f"{prefix}/license-keys/{key.id}/enable").json()["disabledReason"] is None
    assert "enabled again" in mailbox.last(buyer.email, f"Your license key for {agent.name} works again").text
    as_user(client, login, buyer)
    assert client.get("/api/user/purchases").json()[0]["licenseKeyDisabledReason"] is None
