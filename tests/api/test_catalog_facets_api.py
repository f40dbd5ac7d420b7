"""`GET /api/agents/facets`: per filter option, how many agents the list would hold with it."""

import pytest

from marketplace.models import AgentStatus, Role
from tests.factories import make_agent, make_category


@pytest.fixture
def vendor(make_user):
    return make_user("seller", role=Role.VENDOR, vendor_approved=True)


@pytest.fixture
def catalogue(vendor):
    writing = make_category("Writing", slug="writing", sort_order=1)
    data = make_category("Data", slug="data", sort_order=2)
    make_category("Empty", slug="empty", sort_order=3)
    make_agent(vendor, "Robot Writer", category_id=writing.id, price_cents=0, ratings=(5,), tags=["ai"])
    make_agent(vendor, "Robot Poet", category_id=writing.id, price_cents=4000, ratings=(4,), is_featured=True)
    make_agent(vendor, "Data Robot", category_id=data.id, price_cents=12000, ratings=(3,), tags=["ai"])
    make_agent(vendor, "Sheet Helper", category_id=data.id, price_cents=900)
    make_agent(vendor, "Loose Robot", price_cents=900, ratings=(5,))
    make_agent(vendor, "Robot Pending", category_id=writing.id, status=AgentStatus.PENDING)
    return {"writing": writing.id, "data": data.id}


def facets(client, query=""):
    response = client.get(f"/api/agents/facets?{query}")
    assert response.status_code == 200, response.text
    body = response.json()
    return ({c["slug"]: c["count"] for c in body["categories"]},
            {p["value"]: p["count"] for p in body["prices"]},
            {r["value"]: r["count"] for r in body["ratings"]})


def test_counts_without_filters(client, catalogue):
    response = client.get("/api/agents/facets")
    categories = response.json()["categories"]
    assert categories == [{"id": catalogue["writing"], "slug": "writing", "count": 2},
                          {"id": catalogue["data"], "slug": "data", "count": 2},
                          {"id": categories[2]["id"], "slug": "empty", "count": 0}]
    _, prices, ratings = facets(client)
    assert prices == {"free": 1, "0-10": 2, "10-50": 1, "50-100": 0, "100+": 1, "1-25": 2, "26-50": 1, "51-100": 0}
    assert ratings == {"5": 2, "4+": 3, "3+": 4, "2+": 4}


def test_each_facet_ignores_its_own_filter_and_obeys_the_others(client, catalogue):
    categories, prices, ratings = facets(client, "category=writing&rating=4%2B")
    assert categories == {"writing": 2, "data": 0, "empty": 0}  # rating 4+ applies, the category does not
    assert prices == {"free": 1, "0-10": 0, "10-50": 1, "50-100": 0, "100+": 0, "1-25": 0, "26-50": 1, "51-100": 0}
    assert ratings == {"5": 1, "4+": 2, "3+": 2, "2+": 2}  # in writing, whatever the rating
    categories, _, ratings = facets(client, "price=0-10")
    assert categories == {"writing": 0, "data": 1, "empty": 0}
    assert ratings == {"5": 1, "4+": 1, "3+": 1, "2+": 1}
    assert facets(client, "featured=true")[0] == {"writing": 1, "data": 0, "empty": 0}


def test_counts_follow_search_and_tags_typos_included(client, catalogue):
    categories, prices, _ = facets(client, "search=robot")
    assert categories == {"writing": 2, "data": 1, "empty": 0}  # the pending robot is not counted
    assert prices["0-10"] == 1 and prices["100+"] == 1
    assert facets(client, "search=robto")[0] == facets(client, "search=robot")[0]
    assert facets(client, "tag=ai")[0] == {"writing": 1, "data": 1, "empty": 0}
    assert facets(client, "search=robot&tag=ai&category=data")[0] == {"writing": 1, "data": 1, "empty": 0}
    assert facets(client, "search=robot&tag=ai&category=data")[2] == {"5": 0, "4+": 0, "3+": 1, "2+": 1}


def test_counts_agree_with_the_list(client, catalogue):
    for query in ("", "search=robot", "search=robto&price=100%2B", "tag=ai&rating=3", "price=0-10"):
        categories, _, _ = facets(client, query)
        for slug, count in categories.items():
            listed = client.get(f"/api/agents?{query}&category={slug}")
            assert listed.headers["X-Total-Count"] == str(count), (query, slug)


@pytest.mark.parametrize("query, parameter", [
    ("price=cheap", "price"), ("rating=7", "rating"), ("category=%21%21", "category"),
    ("featured=perhaps", "featured"), ("search=" + "q" * 300, "search"), ("tag=" + "t" * 60, "tag"),
])
def test_bad_filters_get_422_naming_the_parameter(client, query, parameter):
    response = client.get(f"/api/agents/facets?{query}")
    assert response.status_code == 422
    assert response.json()["message"].startswith(parameter)


def test_facets_are_in_the_api_document(client):
    operation = client.get("/api/openapi.json").json()["paths"]["/api/agents/facets"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"search", "category", "price", "rating", "tag",
                                                            "featured"}
    assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("AgentFacets")
