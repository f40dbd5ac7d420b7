import pytest

from marketplace.models import AgentStatus, Role
from tests.catalog_helpers import agent_row
from tests.factories import make_agent, make_purchase

UNAUTHORIZED = {"message": "Unauthorized"}


@pytest.fixture
def vendor(make_user):
    return make_user("seller", role=Role.VENDOR, vendor_approved=True)


@pytest.fixture
def agent(vendor):
    return make_agent(vendor, "Bot")


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/agents/{id}/reviews", {"rating": 5, "comment": "Nice"}),
        ("POST", "/api/favorites", {"agentId": "{id}"}),
        ("DELETE", "/api/favorites", {"agentId": "{id}"}),
        ("DELETE", "/api/favorites/{id}", None),
        ("GET", "/api/favorites", None),
        ("POST", "/api/agents/{id}/report", {"reportType": "spam", "reason": "Spam"}),
    ],
)
def test_writes_need_sign_in(client, agent, method, path, body):
    if body and body.get("agentId"):
        body = {"agentId": agent.id}
    response = client.request(method, path.format(id=agent.id), json=body)
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED)
    row = agent_row(agent.id)
    assert (row.review_count, row.favorites_count) == (0, 0)


def test_signed_out_status_checks_answer_false(client, agent):
    assert client.get(f"/api/agents/{agent.id}/favorited").json() == {"isFavorited": False}
    assert client.get(f"/api/agents/{agent.id}/reported").json() == {"hasReported": False}


def test_review_flow(client, login, make_user, agent):
    buyer = make_user("buyer")
    make_purchase(buyer, agent)
    login(buyer)
    created = client.post(f"/api/agents/{agent.id}/reviews", json={"rating": 5, "comment": " Superb "})
    assert created.status_code == 201
    body = created.json()
    assert (body["rating"], body["comment"], body["isVerifiedPurchase"]) == (5, "Superb", True)
    assert body["user"] == {"id": buyer.id, "username": "buyer", "firstName": None}

    updated = client.post(f"/api/agents/{agent.id}/reviews", json={"rating": "3", "comment": "Meh now"})
    assert updated.status_code == 200
    assert updated.json()["id"] == body["id"]

    listed = client.get(f"/api/agents/{agent.id}/reviews")
    assert listed.status_code == 200
    assert [r["comment"] for r in listed.json()] == ["Meh now"]
    assert listed.headers["X-Total-Count"] == "1"
    detail = client.get(f"/api/agents/{agent.id}").json()
    assert (detail["avgRating"], detail["reviewCount"]) == ("3.00", 1)


@pytest.mark.parametrize(
    ("body", "parameter"),
    [
        ({"rating": 9, "comment": "x"}, "rating"),
        ({"comment": "x"}, "rating"),
        ({"rating": 5, "comment": "  "}, "comment"),
        ({"rating": 5}, "comment"),
    ],
)
def test_review_validation_names_the_field(client, login, make_user, agent, body, parameter):
    login(make_user("critic"))
    response = client.post(f"/api/agents/{agent.id}/reviews", json=body)
    assert response.status_code == 422
    assert response.json()["message"].startswith(parameter)
    assert agent_row(agent.id).review_count == 0


def test_review_of_hidden_agent_is_404(client, login, make_user, vendor):
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    login(make_user("critic"))
    response = client.post(f"/api/agents/{pending.id}/reviews", json={"rating": 5, "comment": "x"})
    assert (response.status_code, response.json()) == (404, {"message": "Agent not found"})
    assert client.get(f"/api/agents/{pending.id}/reviews").status_code == 404


def test_favourites_flow(client, login, make_user, agent, vendor):
    other = make_agent(vendor, "Other")
    user = make_user("fan")
    login(user)
    assert client.get(f"/api/agents/{agent.id}/favorited").json() == {"isFavorited": False}
    for _ in range(2):
        response = client.post("/api/favorites", json={"agentId": agent.id})
        assert (response.status_code, response.json()) == (200, {"isFavorited": True})
    client.post("/api/favorites", json={"agentId": other.id})
    assert agent_row(agent.id).favorites_count == 1
    assert client.get(f"/api/agents/{agent.id}/favorited").json() == {"isFavorited": True}

    listed = client.get("/api/favorites")
    assert [a["name"] for a in listed.json()] == ["Other", "Bot"]
    assert listed.headers["X-Total-Count"] == "2"

    assert client.request("DELETE", "/api/favorites", json={"agentId": agent.id}).json() == {"isFavorited": False}
    assert client.request("DELETE", "/api/favorites", json={"agentId": agent.id}).json() == {"isFavorited": False}
    assert client.delete(f"/api/favorites/{other.id}").json() == {"isFavorited": False}
    assert client.get("/api/favorites").json() == []
    assert (agent_row(agent.id).favorites_count, agent_row(other.id).favorites_count) == (0, 0)


def test_favourite_validation(client, login, make_user, vendor):
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    login(make_user("fan"))
    response = client.post("/api/favorites", json={})
    assert response.status_code == 422 and response.json()["message"].startswith("agentId")
    response = client.post("/api/favorites", json={"agentId": pending.id})
    assert (response.status_code, response.json()) == (404, {"message": "Agent not found"})
    assert client.get(f"/api/agents/{pending.id}/favorited").status_code == 404


def test_report_flow(client, login, make_user, agent):
    login(make_user("watchdog"))
    assert client.get(f"/api/agents/{agent.id}/reported").json() == {"hasReported": False}
    response = client.post(
        f"/api/agents/{agent.id}/report", json={"reportType": "misleading", "reason": "Claims GPT-5", "description": ""}
    )
    assert response.status_code == 201
    body = response.json()
    assert (body["reportType"], body["reason"], body["description"], body["agentId"]) == (
        "misleading", "Claims GPT-5", None, agent.id
    )
    assert client.get(f"/api/agents/{agent.id}/reported").json() == {"hasReported": True}
    again = client.post(f"/api/agents/{agent.id}/report", json={"reportType": "spam", "reason": "x"})
    assert (again.status_code, again.json()) == (409, {"message": "You have already reported this agent"})


@pytest.mark.parametrize(
    ("body", "parameter"),
    [
        ({"reportType": "nasty", "reason": "x"}, "reportType"),
        ({"reason": "x"}, "reportType"),
        ({"reportType": "spam", "reason": " "}, "reason"),
        ({"reportType": "spam"}, "reason"),
        ({"reportType": "spam", "reason": "x", "description": "d" * 3000}, "description"),
    ],
)
def test_report_validation_names_the_field(client, login, make_user, agent, body, parameter):
    login(make_user("watchdog"))
    response = client.post(f"/api/agents/{agent.id}/report", json=body)
    assert response.status_code == 422
    assert response.json()["message"].startswith(parameter)
    assert client.get(f"/api/agents/{agent.id}/reported").json() == {"hasReported": False}


def test_cross_site_write_is_refused(client, login, make_user, agent):
    login(make_user("fan"))
    response = client.post("/api/favorites", json={"agentId": agent.id}, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert agent_row(agent.id).favorites_count == 0
