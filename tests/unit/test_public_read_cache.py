"""One agent, its reviews, the categories and the stats are cached per catalog version (services/catalog/reads.py);
every change any of them shows must move the version (revisions 0004 and 0014) and so refresh them at once."""

import json

import pytest
from sqlalchemy import text
from sqlmodel import select

from marketplace import db
from marketplace.models import Agent, Purchase, Review, Role, User
from marketplace.models.base import utcnow
from marketplace.services import catalog, reviews
from marketplace.services.catalog import reads
from marketplace.services.errors import NotFound
from tests.catalog_helpers import statements
from tests.factories import make_agent, make_buyer, make_category


def version() -> int:
    with db.engine().connect() as conn:
        return conn.execute(text("SELECT version FROM catalog_version WHERE id = 1")).scalar_one()


def fresh_reads() -> tuple:
    """What the four reads answer straight from the database (the cache switched off for the call)."""
    capacity, reads.cache.capacity = reads.cache.capacity, 0
    try:
        return served_reads()
    finally:
        reads.cache.capacity = capacity


AGENT_ID: list[str] = []


def served_reads() -> tuple:
    agent_id = AGENT_ID[0]
    body, total = reviews.list_reviews_json(agent_id=agent_id, actor=lambda: None)
    return (json.loads(catalog.get_agent_json(agent_id=agent_id, actor=lambda: None)), json.loads(body), total,
            json.loads(catalog.list_categories_json()), json.loads(catalog.stats_json()))


@pytest.fixture
def vendor(make_user):
    return make_user("maker", role=Role.VENDOR)


@pytest.fixture
def agent(vendor):
    category = make_category("Writing", slug="writing")
    found = make_agent(vendor, "Subject", tags=["alpha"], category_id=category.id)
    AGENT_ID[:] = [found.id]
    return found


def test_a_repeated_read_only_reads_the_version(agent, make_user):
    reviews.submit_review(actor=make_buyer(agent, "reader"), agent_id=agent.id, rating=5, comment="Fine")
    first = served_reads()
    executed = statements(served_reads)
    # At most the version row per read (SQLite), else nothing (PostgreSQL learns it by notification).
    assert len(executed) <= 4 and all("catalog_version" in s for s in executed)
    assert served_reads() == first == fresh_reads()
    assert first[0]["name"] == "Subject" and first[1][0]["comment"] == "Fine" and first[2] == 1


def test_a_public_agent_read_does_not_look_up_the_caller(agent):
    asked = []
    catalog.get_agent_json(agent_id=agent.id, actor=lambda: asked.append(1))
    reviews.list_reviews_json(agent_id=agent.id, actor=lambda: asked.append(1))
    assert asked == []


def test_the_cached_agent_equals_the_model_rendering(agent):
    with db.session_scope() as session:
        model = catalog.agent_public(session, session.get(Agent, agent.id))
    assert json.loads(catalog.get_agent_json(agent_id=agent.id, actor=lambda: None)) == json.loads(
        model.model_dump_json(by_alias=True))
    assert catalog.get_agent(agent_id=agent.id) == model


def test_every_change_a_read_shows_refreshes_it(agent, vendor, make_user):
    reader = make_user("reader")
    with db.session_scope() as session:  # access without an order (as a subscription's row): may review
        session.add(Purchase(user_id=reader.id, agent_id=agent.id, order_id=None, purchase_price_cents=0,
                             currency="usd"))
    reviews.submit_review(actor=reader, agent_id=agent.id, rating=4, comment="Good")

    def change(fn):
        before = version()
        served_reads()
        with db.session_scope() as session:
            fn(session)
        assert version() > before
        assert served_reads() == fresh_reads()

    def review(session):
        return session.exec(select(Review).where(Review.agent_id == agent.id)).one()

    change(lambda s: setattr(review(s), "comment", "Changed"))  # a review edited without its rating
    change(lambda s: setattr(s.exec(select(Purchase).where(Purchase.user_id == reader.id)).one(), "access_until",
                             utcnow()))  # the access ended: the "verified purchase" mark goes
    assert served_reads()[1][0]["isVerifiedPurchase"] is False
    change(lambda s: setattr(s.get(User, reader.id), "first_name", "Rita"))  # the review's author
    assert served_reads()[1][0]["user"]["firstName"] == "Rita"
    change(lambda s: s.add(User(username="newcomer", email="new@example.com", role=Role.USER)))  # stats: users
    change(lambda s: setattr(s.get(User, reader.id), "deleted_at", utcnow()))
    change(lambda s: s.delete(review(s)))
    assert served_reads()[1] == []
    change(lambda s: setattr(s.get(Agent, agent.id), "description", "New text"))
    assert served_reads()[0]["description"] == "New text"


def test_an_agent_that_is_not_live_is_read_for_its_vendor_only(agent, vendor, make_user):
    served_reads()
    with db.session_scope() as session:
        session.get(Agent, agent.id).status = "pending"
    assert catalog.live_agent_json(agent.id) is None
    assert json.loads(catalog.get_agent_json(agent_id=agent.id, actor=lambda: vendor))["status"] == "pending"
    body, total = reviews.list_reviews_json(agent_id=agent.id, actor=lambda: vendor)
    assert json.loads(body) == [] and total == 0
    for stranger in (None, make_user("stranger")):
        with pytest.raises(NotFound):
            catalog.get_agent_json(agent_id=agent.id, actor=lambda s=stranger: s)
        with pytest.raises(NotFound):
            reviews.list_reviews_json(agent_id=agent.id, actor=lambda s=stranger: s)


def test_cache_off_reads_the_database_every_time(agent, monkeypatch):
    monkeypatch.setattr(reads.cache, "capacity", 0)
    served_reads()
    assert len(statements(lambda: catalog.stats_json())) == 3
