"""One agent, its reviews, the categories, the stats and the plans on offer are cached per catalog version
(services/catalog/reads.py); every change any of them shows must move the version (revisions 0004, 0014 and 0041)
and so refresh them at once."""

import json
from decimal import Decimal

import pytest
from sqlalchemy import text
from sqlmodel import select

from marketplace import db
from marketplace.models import FREE_PLAN_ID, Agent, Plan, PlatformSetting, Purchase, Review, Role, User
from marketplace.models.base import utcnow
from marketplace.services import catalog, plans, platform, reviews
from marketplace.services.catalog import reads
from marketplace.services.errors import NotFound
from tests import factories
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


def fresh_plans() -> list[plans.PlanView]:
    capacity, reads.cache.capacity = reads.cache.capacity, 0
    try:
        return plans.list_plans()
    finally:
        reads.cache.capacity = capacity


def test_a_repeated_plans_read_runs_no_query_of_its_own():
    """The landing page's plans come from the cache: no statement reads the plans or the settings again."""
    first = plans.list_plans()
    executed = statements(plans.list_plans)
    # At most the version row (PostgreSQL, within the moment after this process wrote), else nothing.
    assert len(executed) <= 1 and all("catalog_version" in s for s in executed)
    assert plans.list_plans() == first == fresh_plans()
    assert [p.id for p in first] == ["free", "pro", "enterprise"]


def test_every_change_the_plans_show_is_read_next_time():
    """Each writer of what a plan shows (the admin's plan edit, the commission rate that is the Free plan's fee,
    a row changed or added by other means) moves the version, so the next read shows it."""
    admin = factories.make_admin()

    def change(fn) -> list[plans.PlanView]:
        before = version()
        plans.list_plans()
        fn()
        assert version() > before
        served = plans.list_plans()
        assert served == fresh_plans()
        return served

    def by_id(offer: list[plans.PlanView]) -> dict[str, plans.PlanView]:
        return {p.id: p for p in offer}

    edited = change(lambda: plans.update_plan(actor=admin, plan_id="pro", name="Pro+", monthly_price="35",
                                              agent_limit="50", fee_percent="8%"))
    assert (by_id(edited)["pro"].name, by_id(edited)["pro"].monthly_price_cents, by_id(edited)["pro"].agent_limit,
            by_id(edited)["pro"].fee_percent) == ("Pro+", 3500, 50, Decimal("8.00"))
    fee = change(lambda: plans.update_plan(actor=admin, plan_id=FREE_PLAN_ID, fee_percent="15%"))
    assert by_id(fee)[FREE_PLAN_ID].fee_percent == Decimal("15.00")
    rate = change(lambda: platform.set_commission_rate(actor=admin, value="12%"))
    assert by_id(rate)[FREE_PLAN_ID].fee_percent == Decimal("12.00")

    def raw_edit() -> None:
        with db.session_scope() as session:
            session.get(Plan, "enterprise").sort_order = -1

    assert change(raw_edit)[0].id == "enterprise"

    def setting_deleted() -> None:  # back to the default rate
        with db.session_scope() as session:
            session.delete(session.get(PlatformSetting, platform.COMMISSION_RATE))

    assert by_id(change(setting_deleted))[FREE_PLAN_ID].fee_percent == Decimal("20.00")


def test_an_anonymous_visit_of_the_public_pages_does_no_database_work(agent):
    """What `/`, `/agents`, `/agents/{id}` and `/categories` read for a signed-out visitor, once read, comes from
    the cache: besides the cache's check of the catalog version (none on SQLite, whose check has a connection of
    its own, nor on PostgreSQL once its listener has caught up), no statement."""
    from marketplace.services import agent_page
    from marketplace.state import catalog as catalog_state

    browse = {"sort": catalog_state.DEFAULT_SORT, "limit": catalog_state.PAGE_SIZE, "offset": 0}

    def visit() -> None:
        catalog_state._home_reads(None)
        plans.list_plans()
        catalog.list_categories()
        catalog_state._shown_page(browse, 1)
        catalog.agent_facets()
        agent_page.agent_page(agent_id=agent.id, actor=None)

    visit()
    assert [s for s in statements(visit) if "catalog_version" not in s] == []
