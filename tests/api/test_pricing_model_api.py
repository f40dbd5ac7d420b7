"""`pricingModel` over HTTP: set by the vendor routes (400 naming the field for anything else, 401/403 for others),
carried by every read of an agent (catalogue list, agent, vendor and admin lists, the pending queue)."""

from __future__ import annotations

import pytest

from marketplace.services.vendors.drafts import PRICING_MODEL_INVALID
from tests.factories import make_admin, make_agent, make_category, make_user, make_vendor

DRAFT = {"name": "Mail Bot", "shortDescription": "Answers mail", "description": "Reads and answers your mail.",
         "price": "49.00", "tags": ["mail"]}


@pytest.fixture
def category():
    return make_category("Writing")


def as_user(client, login, user):
    client.cookies.clear()
    return login(user) if user else client


def test_vendor_creates_a_licence_and_every_read_says_so(client, login, category):
    vendor = make_vendor()
    created = login(vendor).post("/api/vendor/agents",
                                 json={**DRAFT, "categoryId": category.id, "pricingModel": "one_time"})
    assert created.status_code == 201, created.text
    assert created.json()["pricingModel"] == "one_time"
    default = client.post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id})
    assert default.json()["pricingModel"] == "monthly"
    assert {a["id"]: a["pricingModel"] for a in client.get("/api/vendor/agents").json()} == {
        created.json()["id"]: "one_time", default.json()["id"]: "monthly"}
    assert client.get(f"/api/vendor/agents/{created.json()['id']}").json()["pricingModel"] == "one_time"
    as_user(client, login, make_admin())
    rows = client.get("/api/admin/agents").json()
    assert {a["id"]: a["pricingModel"] for a in rows}[created.json()["id"]] == "one_time"


def test_the_public_agent_json_carries_it(client, category):
    licence = make_agent(make_vendor(), name="Licence", pricing_model="one_time", files=1)
    make_agent(make_vendor(), name="Subscription")
    listed = client.get("/api/agents").json()
    assert {a["name"]: a["pricingModel"] for a in listed} == {"Licence": "one_time", "Subscription": "monthly"}
    assert client.get(f"/api/agents/{licence.id}").json()["pricingModel"] == "one_time"


@pytest.mark.parametrize("value", ["weekly", "", "ONE_TIME", 3])
def test_any_other_model_is_400_naming_the_field(client, login, category, value):
    response = login(make_vendor()).post("/api/vendor/agents",
                                         json={**DRAFT, "categoryId": category.id, "pricingModel": value})
    if isinstance(value, int):
        assert response.status_code == 422  # not text at all: refused by the request schema
        return
    assert response.status_code == 400
    assert response.json() == {"message": PRICING_MODEL_INVALID, "field": "pricing_model"}


def test_only_the_owner_changes_it_and_a_live_change_goes_to_review(client, login, category):
    vendor = make_vendor()
    live = make_agent(vendor, name="Live", short_description=DRAFT["shortDescription"],
                      description=DRAFT["description"], category=category, tags=DRAFT["tags"], files=1,
                      price_cents=4900)
    body = {**DRAFT, "name": "Live", "categoryId": category.id, "pricingModel": "one_time"}
    url = f"/api/vendor/agents/{live.id}"
    assert client.put(url, json=body).status_code == 401
    assert as_user(client, login, make_user()).put(url, json=body).status_code == 403
    for other in (make_vendor(), make_admin()):
        refused = as_user(client, login, other).put(url, json=body)
        assert refused.status_code == 403 and refused.json() == {"message": "You can only change your own agents"}
    edited = as_user(client, login, vendor).put(url, json=body)
    assert edited.status_code == 200
    assert (edited.json()["pricingModel"], edited.json()["hasPendingRevision"]) == ("one_time", True)
    client.cookies.clear()
    assert client.get(f"/api/agents/{live.id}").json()["pricingModel"] == "monthly"  # live terms until approved
    as_user(client, login, make_admin())
    [pending] = client.get("/api/admin/agents/pending").json()
    assert (pending["pricingModel"], pending["changedFields"]) == ("one_time", ["pricing_model"])
    assert client.post(f"/api/admin/agents/{live.id}/approve").status_code == 200
    client.cookies.clear()
    assert client.get(f"/api/agents/{live.id}").json()["pricingModel"] == "one_time"
