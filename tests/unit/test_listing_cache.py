"""Listing pages are cached per catalog version; every change a listing can show must move the version."""

import json

import pytest
from sqlalchemy import text

from marketplace import db
from marketplace.models import Agent, AgentFile, AgentTag, Category, Role, User
from marketplace.services import catalog, favorites, reviews
from marketplace.services.catalog import listing_cache
from tests.catalog_helpers import statements
from tests.factories import make_agent, make_category, make_order


def version() -> int:
    with db.engine().connect() as conn:
        return conn.execute(text("SELECT version FROM catalog_version WHERE id = 1")).scalar_one()


def fresh(**filters):
    """The page straight from the database, bypassing the cache."""
    with db.engine().connect() as conn:
        listing = catalog.search_agents_json(conn, catalog.parse_filters(**filters))
    return json.loads(listing.json), listing.total


def served(**filters):
    listing = catalog.list_agents_json(**filters)
    return json.loads(listing.json), listing.total


@pytest.fixture
def vendor(make_user):
    return make_user("maker", role=Role.VENDOR)


def test_a_repeated_listing_only_reads_the_version(vendor):
    make_agent(vendor, "Cached", tags=["x"])
    first = served(search="cached")
    executed = statements(lambda: served(search="cached"))
    # No pooled connection at all: PostgreSQL learns the version by notification, SQLite from its own
    # connection's `PRAGMA data_version` (at most the version row, when the listener is not there yet).
    assert len(executed) <= 1 and all("catalog_version" in s for s in executed)
    assert served(search="cached") == first == fresh(search="cached")


def test_every_visible_change_refreshes_the_listing(make_user, vendor):
    category = make_category("Writing", slug="writing")
    agent = make_agent(vendor, "Subject", tags=["alpha"], category_id=category.id)
    customer = make_user("reader")
    make_order(agent, customer)  # only buyers review (an order alone: the agent can still be deleted below)

    def change(fn):
        before = version()
        served()
        served(search="subject")
        with db.session_scope() as session:
            fn(session)
        assert version() > before
        assert served() == fresh()
        assert served(search="subject") == fresh(search="subject")

    change(lambda s: setattr(s.get(Agent, agent.id), "name", "Subject Renamed"))
    change(lambda s: setattr(s.get(Agent, agent.id), "price_cents", 4200))
    change(lambda s: s.add(AgentTag(agent_id=agent.id, tag="beta", position=1)))
    change(lambda s: s.delete(s.get(AgentTag, (agent.id, "alpha"))))
    change(lambda s: s.add(AgentFile(agent_id=agent.id, storage_key="k", filename="f.zip")))
    change(lambda s: setattr(s.get(User, vendor.id), "username", "maker2"))
    change(lambda s: setattr(s.get(Category, category.id), "emoji", "📝"))
    change(lambda s: setattr(s.get(Agent, agent.id), "sales_count", 9))

    before = version()
    reviews.submit_review(actor=customer, agent_id=agent.id, rating=4, comment="Good")
    assert version() > before
    assert served()[0][0]["avgRating"] == "4.00"

    change(lambda s: setattr(s.get(Agent, agent.id), "status", "pending"))
    assert served() == ([], 0)
    change(lambda s: setattr(s.get(Agent, agent.id), "status", "approved"))
    change(lambda s: s.delete(s.get(Agent, agent.id)))
    assert served() == ([], 0)


def test_changes_no_cached_read_shows_keep_the_version(make_user, vendor):
    agent = make_agent(vendor, "Steady")
    fan = make_user("fan")
    before = version()
    favorites.add_favorite(actor=fan, agent_id=agent.id)  # favorites_count is not shown
    with db.session_scope() as session:
        session.get(User, vendor.id).email = "vera@example.com"
        session.get(Agent, agent.id).view_count = 5
    assert version() == before


def test_one_transaction_moves_the_version_once(vendor):
    agents = [make_agent(vendor, f"a{n}") for n in range(3)]
    before = version()
    with db.session_scope() as session:
        for agent in agents:
            session.get(Agent, agent.id).price_cents = 1
            session.flush()
    moved = version() - before
    assert moved == 1 if db.is_postgres() else moved >= 1


def test_a_rolled_back_change_keeps_the_version(vendor):
    agent = make_agent(vendor, "Kept")
    before = version()
    with pytest.raises(RuntimeError), db.session_scope() as session:
        session.get(Agent, agent.id).name = "Never"
        session.flush()
        raise RuntimeError("abort")
    assert version() == before
    assert served()[0][0]["name"] == "Kept"


def test_cache_can_be_turned_off(monkeypatch, vendor):
    make_agent(vendor, "Uncached")
    monkeypatch.setattr(listing_cache.cache, "capacity", 0)
    served()
    executed = statements(served)
    assert not any("catalog_version" in s for s in executed)
