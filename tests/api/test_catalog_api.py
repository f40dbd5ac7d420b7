from datetime import UTC, datetime

import pytest

from marketplace.models import AgentStatus, Role
from tests.factories import ago, make_agent, make_category


@pytest.fixture
def vendor(make_user):
    return make_user("seller", role=Role.VENDOR, vendor_approved=True)


def test_stats(client, make_user, vendor):
    make_category("Writing")
    make_agent(vendor, "Live")
    make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    make_user("buyer")
    response = client.get("/api/stats")
    assert response.status_code == 200
    assert response.json() == {"totalAgents": 1, "totalCategories": 1, "totalUsers": 2}


def test_categories(client, vendor):
    category = make_category("Data Analysis", slug="data-analysis", emoji="📊", description="Numbers")
    make_agent(vendor, "a", category_id=category.id)
    response = client.get("/api/categories")
    assert response.status_code == 200
    assert response.json() == [
        {"id": category.id, "slug": "data-analysis", "name": "Data Analysis", "emoji": "📊",
         "description": "Numbers", "agentCount": 1}
    ]
    assert client.get("/api/categories/data-analysis").json()["id"] == category.id
    assert client.get(f"/api/categories/{category.id}").json()["slug"] == "data-analysis"
    missing = client.get("/api/categories/nope")
    assert (missing.status_code, missing.json()) == (404, {"message": "Category not found"})


def test_agent_list_is_a_json_list_with_total_header(client, vendor):
    for n in range(5):
        make_agent(vendor, f"a{n}", created_at=ago(days=1, seconds=-n))
    response = client.get("/api/agents", params={"limit": 2, "offset": 1})
    assert response.status_code == 200
    assert [a["name"] for a in response.json()] == ["a3", "a2"]
    assert response.headers["X-Total-Count"] == "5"
    assert "X-Total-Count" in response.headers["Access-Control-Expose-Headers"]
    assert set(response.json()[0]) >= {
        "id", "name", "shortDescription", "description", "price", "imageUrl", "demoUrl", "fileUrl", "tags",
        "isFeatured", "isApproved", "status", "rejectionReason", "avgRating", "reviewCount", "vendorId", "vendor",
        "categoryId", "category", "createdAt", "updatedAt",
    }


def test_cross_origin_reader_can_see_the_total(client, vendor):
    make_agent(vendor, "a")
    response = client.get("/api/agents", headers={"Origin": "http://localhost:3000"})
    assert response.headers["Access-Control-Expose-Headers"] == "X-Total-Count"


def test_query_string_filters(client, vendor):
    writing = make_category("Writing", slug="writing")
    make_agent(vendor, "Robot Writer", category_id=writing.id, price_cents=12000, ratings=(5,), tags=["writing"],
               is_featured=True, sales_count=3)
    make_agent(vendor, "Robot Coder", price_cents=0, ratings=(3,), tags=["automation", "chatgpt"], sales_count=9)
    make_agent(vendor, "Helper", price_cents=3000, tags=["automation"])

    def names(query):
        response = client.get(f"/api/agents?{query}")
        assert response.status_code == 200, response.text
        return [a["name"] for a in response.json()]

    assert names("featured=true&limit=6") == ["Robot Writer"]
    assert names("category=writing") == ["Robot Writer"]
    assert names(f"category={writing.id}") == ["Robot Writer"]
    assert names("price=100%2B") == ["Robot Writer"]
    assert names("price=100+") == ["Robot Writer"]  # '+' arrives as a space
    assert names("price=free") == ["Robot Coder"]
    assert names("price=26-50") == ["Helper"]
    assert names("rating=4%2B") == ["Robot Writer"]
    assert names("rating=any&price=&category=") == ["Helper", "Robot Coder", "Robot Writer"]
    assert names("tag=automation&tag=chatgpt") == ["Robot Coder"]
    assert names("sort=popularity") == ["Robot Coder", "Robot Writer", "Helper"]
    assert names("sort=price-high") == ["Robot Writer", "Helper", "Robot Coder"]
    assert names("search=robot+writer") == ["Robot Writer"]
    assert names("search=robot&sort=price-low") == ["Robot Coder", "Robot Writer"]


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("price=cheap", "price"),
        ("rating=7", "rating"),
        ("sort=best", "sort"),
        ("category=%21%21", "category"),
        ("featured=perhaps", "featured"),
        ("limit=1000", "limit"),
        ("limit=0", "limit"),
        ("limit=abc", "limit"),
        ("offset=-5", "offset"),
        ("offset=x", "offset"),
        ("search=" + "q" * 300, "search"),
        ("tag=" + "t" * 60, "tag"),
    ],
)
def test_bad_parameters_get_422_naming_the_parameter(client, query, parameter):
    response = client.get(f"/api/agents?{query}")
    assert response.status_code == 422
    assert response.json()["message"].startswith(parameter)


def test_unknown_category_gives_an_empty_list(client, vendor):
    make_agent(vendor, "a")
    response = client.get("/api/agents?category=no-such-thing")
    assert (response.status_code, response.json(), response.headers["X-Total-Count"]) == (200, [], "0")


def test_agent_detail_and_visibility(client, make_user, login, vendor):
    live = make_agent(vendor, "Live", tags=["x"])
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    deleted = make_agent(vendor, "Gone", deleted_at=datetime.now(UTC))

    response = client.get(f"/api/agents/{live.id}")
    assert response.status_code == 200
    assert response.json()["name"] == "Live" and response.json()["tags"] == ["x"]
    for agent_id in ("missing", pending.id, deleted.id):
        response = client.get(f"/api/agents/{agent_id}")
        assert (response.status_code, response.json()) == (404, {"message": "Agent not found"})

    login(make_user("nosy"))
    assert client.get(f"/api/agents/{pending.id}").status_code == 404
    login(vendor)
    assert client.get(f"/api/agents/{pending.id}").json()["status"] == "pending"
    assert client.get(f"/api/agents/{deleted.id}").status_code == 404
    login(make_user("root", role=Role.ADMIN))
    assert client.get(f"/api/agents/{pending.id}").json()["isApproved"] is False


def test_listing_hides_agents_that_are_not_live_even_from_their_vendor(client, login, vendor):
    make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    login(vendor)
    response = client.get("/api/agents")
    assert (response.json(), response.headers["X-Total-Count"]) == ([], "0")


def test_listing_parameters_are_documented(client):
    spec = client.get("/api/openapi.json").json()
    documented = {p["name"] for p in spec["paths"]["/api/agents"]["get"]["parameters"]}
    assert documented == {"search", "category", "price", "rating", "sort", "tag", "featured", "limit", "offset"}
