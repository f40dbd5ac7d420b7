"""The listing JSON is built by the database; it must equal the pydantic rendering of `AgentPublic`."""

import json
from datetime import UTC, datetime

from pydantic import TypeAdapter

from marketplace import db
from marketplace.models import Agent, AgentPublic, AgentStatus, Role
from marketplace.services import catalog
from tests.factories import make_agent, make_category

AGENTS_JSON = TypeAdapter(list[AgentPublic])


def pydantic_rendering(ids):
    with db.session_scope() as session:
        rows = [session.get(Agent, agent_id) for agent_id in ids]
        return json.loads(AGENTS_JSON.dump_json(catalog.agents_public(session, rows), by_alias=True))


def test_database_json_equals_pydantic_json(make_user):
    vendor = make_user("maker", role=Role.VENDOR)
    category = make_category("Data & \"Quotes\"", slug="data", emoji="📊")
    whole_second = datetime(2025, 1, 5, 15, 4, 5, tzinfo=UTC)
    make_agent(vendor, "Plain", price_cents=0)
    make_agent(vendor, "Rounded", price_cents=123456, ratings=(5, 5, 4), tags=["b", "a", "c"], files=2,
               category_id=category.id, is_featured=True, short_description='Short "quoted" \\ text',
               description="Line one\nLine two — ünïcode ✓", image_url="https://img.example/x.png",
               demo_url="https://demo.example", pricing_model="one_time")
    make_agent(vendor, "Third", price_cents=5, ratings=(1, 2), created_at=whole_second, updated_at=whole_second)
    make_agent(None, "No vendor", price_cents=1000, ratings=(4, 4, 4, 5, 5, 5, 3))
    make_agent(vendor, "Odd average", ratings=(5, 4, 4, 4, 4, 4))  # 4.1666... -> 4.17

    listing = catalog.list_agents_json(limit=100)
    from_database = json.loads(listing.json)
    assert listing.total == 5
    assert from_database == pydantic_rendering([a["id"] for a in from_database])
    by_name = {a["name"]: a for a in from_database}
    assert by_name["Third"]["createdAt"] == "2025-01-05T15:04:05Z"
    assert by_name["Rounded"]["tags"] == ["b", "a", "c"]
    assert by_name["Rounded"]["avgRating"] == "4.67"
    assert by_name["Odd average"]["avgRating"] == "4.17"
    assert by_name["Rounded"]["price"] == "1234.56"
    assert by_name["Third"]["price"] == "0.05"
    assert (by_name["Rounded"]["pricingModel"], by_name["Third"]["pricingModel"]) == ("one_time", "monthly")


def test_page_models_come_from_the_same_json(make_user):
    vendor = make_user("maker", role=Role.VENDOR)
    make_agent(vendor, "Only", tags=["x"])
    make_agent(vendor, "Hidden", status=AgentStatus.PENDING)
    listing = catalog.list_agents_json()
    page = listing.page()
    assert [a.name for a in page.items] == ["Only"]
    assert json.loads(listing.json) == json.loads(AGENTS_JSON.dump_json(page.items, by_alias=True))
    empty = catalog.list_agents_json(search="nothing-matches-this")
    assert (empty.json, empty.total) == ("[]", 0)
