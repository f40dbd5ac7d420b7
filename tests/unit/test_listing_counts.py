"""The trigger-maintained `agent_listing_counts` must always equal a real count of live agents."""

import itertools
import random
from datetime import UTC, datetime

from sqlalchemy import func, select, text

from marketplace import db
from marketplace.models import Agent, AgentListingCount, AgentStatus, Category, Role
from marketplace.services import catalog
from tests.factories import make_agent, make_category


def cells() -> dict[tuple, int]:
    with db.session_scope() as session:
        rows = session.execute(select(AgentListingCount)).scalars().all()
        return {(r.category_id, r.price_band, r.rating_band, r.is_featured): r.live_count for r in rows if r.live_count}


def expected_cells() -> dict[tuple, int]:
    found: dict[tuple, int] = {}
    with db.session_scope() as session:
        for agent in session.execute(select(Agent)).scalars():
            if catalog.is_live(agent):
                key = (agent.category_id or 0, catalog.price_band(agent.price_cents),
                       catalog.rating_band(agent.avg_rating), agent.is_featured)
                found[key] = found.get(key, 0) + 1
    return found


def real_total(**filters) -> int:
    parsed = catalog.parse_filters(**filters)
    conds = [catalog.LIVE]
    a = catalog.AGENTS.c
    if parsed.category is not None:
        conds.append(a.category_id == parsed.category)
    if parsed.price is not None:
        low, high = parsed.price
        conds += [a.price_cents > low] if low is not None else []
        conds += [a.price_cents <= high] if high is not None else []
    if parsed.min_rating is not None:
        conds.append(a.avg_rating >= parsed.min_rating)
    if parsed.featured:
        conds.append(a.is_featured.is_(True))
    with db.session_scope() as session:
        return session.execute(select(func.count()).select_from(catalog.AGENTS).where(*conds)).scalar_one()


def assert_totals_exact(category_ids):
    assert cells() == expected_cells()
    for category, price, rating, featured in itertools.product(
        [None, *category_ids], [None, *catalog.PRICE_RANGES], [None, "5", "4+", "3+", "2+"], [None, "true"]
    ):
        filters = {"category": category, "price": price, "rating": rating, "featured": featured}
        assert catalog.list_agents(**filters, limit=1).total == real_total(**filters), filters


def test_bands_in_sql_match_the_python_bands(make_user):
    vendor = make_user("v", role=Role.VENDOR)
    prices = sorted({max(0, e + d) for e in catalog.PRICE_BAND_EDGES for d in (-1, 0, 1)} | {99_999})
    ratings = [0.0, 1.99, 2.0, 2.5, 2.99, 3.0, 3.999, 4.0, 4.5, 4.99, 5.0]
    for price in prices:
        make_agent(vendor, f"p{price}", price_cents=price)
    for n, avg in enumerate(ratings):
        make_agent(vendor, f"r{n}", avg_rating=avg, review_count=1)
    assert cells() == expected_cells()
    with db.engine().begin() as conn:
        catalog.rebuild_listing_counts(conn)
    assert cells() == expected_cells()


def test_filters_are_unions_of_cells():
    assert catalog.PRICE_FILTER_BANDS == {
        "free": (0,), "0-10": (1,), "10-50": (2, 3), "50-100": (4,), "100+": (5,),
        "1-25": (1, 2), "26-50": (3,), "51-100": (4,),
    }
    assert catalog.RATING_FILTER_BANDS == {5.0: (4,), 4.0: (3, 4), 3.0: (2, 3, 4), 2.0: (1, 2, 3, 4)}


def test_totals_stay_exact_through_every_kind_of_change(make_user):
    rng = random.Random(7)
    vendor = make_user("v", role=Role.VENDOR)
    categories = [make_category(f"C{n}") for n in range(3)]
    category_ids = [c.id for c in categories]
    prices = [0, 500, 1000, 1001, 2500, 2600, 5000, 9999, 10000, 10001, 20000]
    statuses = [AgentStatus.APPROVED, AgentStatus.APPROVED, AgentStatus.PENDING, AgentStatus.REJECTED]

    def random_fields():
        reviews = rng.randint(0, 4)
        total = sum(rng.randint(1, 5) for _ in range(reviews))
        return {
            "category_id": rng.choice([None, *category_ids]),
            "price_cents": rng.choice(prices),
            "status": rng.choice(statuses),
            "is_featured": rng.random() < 0.3,
            "rating_sum": total,
            "review_count": reviews,
            "avg_rating": total / reviews if reviews else 0.0,
        }

    agents = [make_agent(vendor, f"a{n}", **random_fields()) for n in range(25)]
    assert_totals_exact(category_ids)

    for _ in range(40):
        agent = rng.choice(agents)
        with db.session_scope() as session:
            row = session.get(Agent, agent.id)
            field, value = rng.choice([*random_fields().items(), ("deleted_at", datetime.now(UTC))])
            setattr(row, field, value)
    assert_totals_exact(category_ids)

    with db.session_scope() as session:  # several agents change in one statement
        session.execute(catalog.AGENTS.update().where(catalog.AGENTS.c.price_cents < 2000).values(
            status=AgentStatus.APPROVED, deleted_at=None))
    assert_totals_exact(category_ids)

    with db.session_scope() as session:  # a category disappears: its agents lose their category
        session.delete(session.get(Category, categories[0].id))
    assert_totals_exact(category_ids[1:])

    with db.session_scope() as session:
        session.execute(catalog.AGENTS.delete().where(catalog.AGENTS.c.is_featured.is_(True)))
        session.delete(session.get(Agent, agents[0].id)) if session.get(Agent, agents[0].id) else None
    assert_totals_exact(category_ids[1:])

    with db.engine().begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("TRUNCATE agents CASCADE"))
        else:
            conn.execute(text("DELETE FROM agents"))
    assert cells() == {}
    assert catalog.stats().total_agents == 0


def test_stats_and_categories_read_the_counts(make_user):
    vendor = make_user("v", role=Role.VENDOR)
    category = make_category("Writing")
    make_agent(vendor, "a", category_id=category.id)
    make_agent(vendor, "b", category_id=category.id, is_featured=True, price_cents=0)
    make_agent(vendor, "c")
    make_agent(vendor, "d", category_id=category.id, status=AgentStatus.PENDING)
    assert catalog.stats().total_agents == 3
    assert [c.agent_count for c in catalog.list_categories()] == [2]
    assert catalog.find_category(ref=category.id).agent_count == 2
