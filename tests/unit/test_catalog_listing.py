from datetime import UTC, datetime

import pytest
from sqlalchemy import event

from marketplace import db
from marketplace.models import AgentStatus, Role
from marketplace.services import catalog
from marketplace.services.errors import InvalidParameter, NotFound
from tests.catalog_helpers import update_agent
from tests.factories import ago, make_agent, make_category, make_purchase


@pytest.fixture
def vendor(make_user):
    return make_user("vendor1", role=Role.VENDOR, vendor_approved=True)


def names(page):
    return [a.name for a in page.items]


def test_stats_count_live_agents_all_categories_and_active_users(make_user, vendor):
    make_category("Writing")
    make_category("Coding")
    make_agent(vendor, "Live")
    make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    make_agent(vendor, "Rejected", status=AgentStatus.REJECTED)
    make_agent(vendor, "Deleted", deleted_at=datetime.now(UTC))
    gone = make_user("gone")
    with db.session_scope() as session:
        row = session.get(type(gone), gone.id)
        row.deleted_at = datetime.now(UTC)
    make_user("present")

    stats = catalog.stats()
    assert (stats.total_agents, stats.total_categories, stats.total_users) == (1, 2, 2)
    assert stats.model_dump(by_alias=True) == {"totalAgents": 1, "totalCategories": 2, "totalUsers": 2}


def test_categories_in_display_order_with_live_agent_counts(vendor):
    second = make_category("Zeta", slug="zeta", emoji="✍️", sort_order=1, description="last")
    first = make_category("Alpha", slug="alpha", sort_order=0, emoji="🅰️")
    make_agent(vendor, "a", category_id=second.id)
    make_agent(vendor, "b", category_id=second.id)
    make_agent(vendor, "c", category_id=second.id, status=AgentStatus.PENDING)
    make_agent(vendor, "d", category_id=first.id, deleted_at=datetime.now(UTC))

    categories = catalog.list_categories()
    assert [(c.slug, c.agent_count) for c in categories] == [("alpha", 0), ("zeta", 2)]
    assert categories[1].model_dump(by_alias=True) == {
        "id": second.id, "slug": "zeta", "name": "Zeta", "emoji": "✍️", "description": "last", "agentCount": 2,
    }


def test_category_lookup_by_id_or_slug(vendor):
    category = make_category("Data", slug="data-analysis")
    make_agent(vendor, "x", category_id=category.id)
    assert catalog.find_category(ref=category.id).slug == "data-analysis"
    assert catalog.find_category(ref=str(category.id)).agent_count == 1
    assert catalog.find_category(ref="Data-Analysis").id == category.id
    assert catalog.find_category(ref="nope") is None
    with pytest.raises(NotFound, match="Category not found"):
        catalog.get_category(ref="nope")


def test_only_live_agents_are_listed(vendor):
    make_agent(vendor, "Live")
    make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    make_agent(vendor, "Rejected", status=AgentStatus.REJECTED)
    make_agent(vendor, "Deleted", deleted_at=datetime.now(UTC))
    page = catalog.list_agents()
    assert names(page) == ["Live"]
    assert page.total == 1


def test_agent_json_has_every_spec_field(vendor):
    category = make_category("Writing", slug="writing", emoji="✍️")
    agent = make_agent(
        vendor, "Writer", tags=["writing", "automation", "chatgpt"], files=2, price_cents=2999, ratings=(5, 4),
        category_id=category.id, short_description="Short", description="Long", image_url="https://img/x.png",
        demo_url="https://demo", is_featured=True,
    )
    data = catalog.get_agent(agent_id=agent.id).model_dump(by_alias=True, mode="json")
    assert data == {
        "id": agent.id,
        "name": "Writer",
        "shortDescription": "Short",
        "description": "Long",
        "price": "29.99",
        "pricingModel": "monthly",
        "trialDays": 0,
        "imageUrl": "https://img/x.png",
        "demoUrl": "https://demo",
        "fileUrl": f"/api/agents/{agent.id}/download",
        "tags": ["writing", "automation", "chatgpt"],
        "isFeatured": True,
        "isApproved": True,
        "status": "approved",
        "rejectionReason": None,
        "avgRating": "4.50",
        "reviewCount": 2,
        "vendorId": vendor.id,
        "vendor": {"id": vendor.id, "username": "vendor1"},
        "categoryId": category.id,
        "category": {"id": category.id, "name": "Writing", "slug": "writing", "emoji": "✍️"},
        "createdAt": data["createdAt"],
        "updatedAt": data["updatedAt"],
        "scannedAt": data["scannedAt"],  # its files' clean scan (issue 33): the agent's own answer only
    }
    assert data["createdAt"].endswith("Z") and data["scannedAt"].endswith("Z")
    listed = catalog.list_agents().items[0].model_dump(by_alias=True, mode="json")
    assert listed == {**data, "scannedAt": None}


def test_agent_without_files_vendor_or_category():
    agent = make_agent(None, "Orphan", price_cents=0)
    data = catalog.get_agent(agent_id=agent.id)
    assert (data.file_url, data.vendor, data.vendor_id, data.category, data.price, data.avg_rating) == (
        None, None, None, None, "0.00", "0.00"
    )


@pytest.mark.parametrize(
    ("cents", "text"), [(0, "0.00"), (5, "0.05"), (100, "1.00"), (2999, "29.99"), (123456, "1234.56")]
)
def test_price_string(cents, text):
    assert catalog.price_string(cents) == text


@pytest.mark.parametrize(
    ("total", "count", "text"), [(0, 0, "0.00"), (9, 2, "4.50"), (14, 3, "4.67"), (13, 3, "4.33"), (5, 1, "5.00")]
)
def test_rating_string_rounds_half_up(total, count, text):
    assert catalog.rating_string(total, count) == text


def test_default_order_is_newest_first_and_ties_break_by_id(vendor):
    make_agent(vendor, "old", created_at=ago(days=1, seconds=-1))
    make_agent(vendor, "new", created_at=ago(days=1, seconds=-5))
    tie_a = make_agent(vendor, "tie-a", created_at=ago(days=1, seconds=-3))
    tie_b = make_agent(vendor, "tie-b", created_at=ago(days=1, seconds=-3))
    update_agent(tie_b.id, created_at=tie_a.created_at)
    tied = sorted([tie_a, tie_b], key=lambda a: a.id, reverse=True)
    assert names(catalog.list_agents()) == ["new", tied[0].name, tied[1].name, "old"]


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("newest", ["c", "b", "a"]),
        (None, ["c", "b", "a"]),
        ("", ["c", "b", "a"]),
        ("popularity", ["b", "c", "a"]),
        ("rating", ["a", "c", "b"]),
        ("price-low", ["c", "a", "b"]),
        ("price-high", ["b", "a", "c"]),
        ("PRICE-HIGH", ["b", "a", "c"]),
        ("relevance", ["c", "b", "a"]),  # without a search, relevance falls back to newest
    ],
)
def test_each_sort(vendor, sort, expected):
    make_agent(vendor, "a", price_cents=1500, sales_count=1, ratings=(5, 5))
    make_agent(vendor, "b", price_cents=9000, sales_count=50, ratings=(2,))
    make_agent(vendor, "c", price_cents=0, sales_count=7, ratings=(4, 4, 5))
    assert names(catalog.list_agents(sort=sort)) == expected


def test_rating_sort_breaks_ties_by_review_count_then_id(vendor):
    make_agent(vendor, "one-review", ratings=(4,))
    make_agent(vendor, "three-reviews", ratings=(4, 4, 4))
    make_agent(vendor, "unrated")
    assert names(catalog.list_agents(sort="rating")) == ["three-reviews", "one-review", "unrated"]


def test_price_sort_is_stable_by_id(vendor):
    agents = [make_agent(vendor, f"same{n}", price_cents=500) for n in range(4)]
    low = names(catalog.list_agents(sort="price-low"))
    high = names(catalog.list_agents(sort="price-high"))
    assert low == [a.name for a in sorted(agents, key=lambda a: a.id)]
    assert high == list(reversed(low))


PRICES = {"p0": 0, "p5": 500, "p10": 1000, "p1001": 1001, "p25": 2500, "p2599": 2599, "p50": 5000, "p75": 7500,
          "p100": 10000, "p10050": 10050}


@pytest.mark.parametrize(
    ("price", "expected"),
    [
        ("free", {"p0"}),
        ("0-10", {"p5", "p10"}),
        ("10-50", {"p1001", "p25", "p2599", "p50"}),
        ("50-100", {"p75", "p100"}),
        ("100+", {"p10050"}),
        ("100 ", {"p10050"}),  # '+' decoded as a space in a hand-typed URL
        ("1-25", {"p5", "p10", "p1001", "p25"}),
        ("26-50", {"p2599", "p50"}),
        ("51-100", {"p75", "p100"}),
        ("any", set(PRICES)),
        ("", set(PRICES)),
    ],
)
def test_price_filters(vendor, price, expected):
    for name, cents in PRICES.items():
        make_agent(vendor, name, price_cents=cents)
    page = catalog.list_agents(price=price, limit=100)
    assert set(names(page)) == expected
    assert page.total == len(expected)


@pytest.mark.parametrize(
    ("rating", "expected"),
    [
        ("5", {"five"}),
        ("4+", {"five", "four-half"}),
        ("4", {"five", "four-half"}),
        ("3+", {"five", "four-half", "three"}),
        ("3 ", {"five", "four-half", "three"}),
        ("2+", {"five", "four-half", "three", "two"}),
        ("any", {"five", "four-half", "three", "two", "one", "none"}),
        ("", {"five", "four-half", "three", "two", "one", "none"}),
    ],
)
def test_rating_filters(vendor, rating, expected):
    make_agent(vendor, "five", ratings=(5, 5))
    make_agent(vendor, "four-half", ratings=(5, 4))
    make_agent(vendor, "three", ratings=(3,))
    make_agent(vendor, "two", ratings=(2, 2, 3))
    make_agent(vendor, "one", ratings=(1,))
    make_agent(vendor, "none")
    assert set(names(catalog.list_agents(rating=rating))) == expected


def test_category_filter_by_id_or_slug(vendor):
    writing = make_category("Writing", slug="writing")
    coding = make_category("Coding", slug="coding")
    make_agent(vendor, "w1", category_id=writing.id)
    make_agent(vendor, "w2", category_id=writing.id)
    make_agent(vendor, "c1", category_id=coding.id)
    make_agent(vendor, "none")
    assert names(catalog.list_agents(category="writing")) == ["w2", "w1"]
    assert names(catalog.list_agents(category=str(coding.id))) == ["c1"]
    assert names(catalog.list_agents(category=coding.id)) == ["c1"]
    assert catalog.list_agents(category="all").total == 4
    empty = catalog.list_agents(category="no-such-category")
    assert (empty.items, empty.total) == ([], 0)


def test_tag_filter_requires_every_tag(vendor):
    make_agent(vendor, "both", tags=["automation", "chatgpt"])
    make_agent(vendor, "auto", tags=["automation"])
    make_agent(vendor, "chat", tags=["chatgpt", "writing"])
    assert set(names(catalog.list_agents(tags=["automation"]))) == {"both", "auto"}
    assert names(catalog.list_agents(tags="ChatGPT ")) == ["chat", "both"]
    assert names(catalog.list_agents(tags=["automation", "chatgpt"])) == ["both"]
    assert catalog.list_agents(tags=["unknown"]).total == 0


def test_featured_filter(vendor):
    make_agent(vendor, "star", is_featured=True)
    make_agent(vendor, "plain")
    make_agent(vendor, "hidden-star", is_featured=True, status=AgentStatus.PENDING)
    assert names(catalog.list_agents(featured="true")) == ["star"]
    assert names(catalog.list_agents(featured=True, limit=6)) == ["star"]
    assert set(names(catalog.list_agents(featured="false"))) == {"star", "plain"}


def test_filters_combine(vendor):
    writing = make_category("Writing", slug="writing")
    make_agent(vendor, "match", category_id=writing.id, price_cents=2000, ratings=(5,), tags=["writing"])
    make_agent(vendor, "too-cheap", category_id=writing.id, price_cents=500, ratings=(5,), tags=["writing"])
    make_agent(vendor, "low-rated", category_id=writing.id, price_cents=2000, ratings=(2,), tags=["writing"])
    make_agent(vendor, "no-tag", category_id=writing.id, price_cents=2000, ratings=(5,))
    make_agent(vendor, "other-category", price_cents=2000, ratings=(5,), tags=["writing"])
    page = catalog.list_agents(category="writing", price="10-50", rating="4+", tags=["writing"])
    assert (names(page), page.total) == (["match"], 1)


def test_paging_and_total(vendor):
    for n in range(7):
        make_agent(vendor, f"a{n}", created_at=ago(days=1, seconds=-n))
    first = catalog.list_agents(limit=3)
    second = catalog.list_agents(limit=3, offset=3)
    last = catalog.list_agents(limit=3, offset=6)
    beyond = catalog.list_agents(limit=3, offset=50)
    assert names(first) == ["a6", "a5", "a4"]
    assert names(second) == ["a3", "a2", "a1"]
    assert names(last) == ["a0"]
    assert beyond.items == []
    assert {first.total, second.total, last.total, beyond.total} == {7}
    assert len(catalog.list_agents().items) == 7  # default limit 24


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"price": "cheap"}, "price"),
        ({"price": "10-20"}, "price"),
        ({"rating": "6"}, "rating"),
        ({"rating": "4.5"}, "rating"),
        ({"sort": "random"}, "sort"),
        ({"category": "not a slug!"}, "category"),
        ({"featured": "maybe"}, "featured"),
        ({"limit": 0}, "limit"),
        ({"limit": "abc"}, "limit"),
        ({"limit": "2.5"}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"offset": "1e3"}, "offset"),
        ({"limit": 101}, "limit"),
        ({"offset": -1}, "offset"),
        ({"search": "x" * 201}, "search"),
        ({"tags": ["t"] * 11 + [f"t{n}" for n in range(11)]}, "tag"),
        ({"tags": ["x" * 51]}, "tag"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, field):
    with pytest.raises(InvalidParameter) as caught:
        catalog.list_agents(**kwargs)
    assert caught.value.status == 422
    assert caught.value.field == field
    assert caught.value.message.startswith(field)


def test_limit_accepts_the_cap_and_query_string_values(vendor):
    for n in range(3):
        make_agent(vendor, f"x{n}", created_at=ago(days=1, seconds=-n))
    assert catalog.list_agents(limit=100).total == 3
    assert names(catalog.list_agents(limit="2", offset=" 1 ")) == ["x1", "x0"]
    assert len(catalog.list_agents(limit="", offset="").items) == 3


def test_get_agent_visibility(make_user, vendor):
    other_vendor = make_user("vendor2", role=Role.VENDOR, vendor_approved=True)
    customer = make_user("customer")
    admin = make_user("boss", role=Role.ADMIN)
    pending = make_agent(vendor, "Pending", status=AgentStatus.PENDING)
    rejected = make_agent(vendor, "Rejected", status=AgentStatus.REJECTED, rejection_reason="Blurry")
    deleted = make_agent(vendor, "Deleted", deleted_at=datetime.now(UTC))
    live = make_agent(vendor, "Live")

    for actor in (None, customer, other_vendor, vendor, admin):
        assert catalog.get_agent(agent_id=live.id, actor=actor).name == "Live"
        with pytest.raises(NotFound, match="Agent not found"):
            catalog.get_agent(agent_id=deleted.id, actor=actor)
    for actor in (None, customer, other_vendor):
        for agent in (pending, rejected):
            with pytest.raises(NotFound, match="Agent not found"):
                catalog.get_agent(agent_id=agent.id, actor=actor)
    for actor in (vendor, admin):
        assert catalog.get_agent(agent_id=pending.id, actor=actor).status == "pending"
        seen = catalog.get_agent(agent_id=rejected.id, actor=actor)
        assert (seen.is_approved, seen.rejection_reason) == (False, "Blurry")
    with pytest.raises(NotFound):
        catalog.get_agent(agent_id="missing")
    with pytest.raises(NotFound):
        catalog.get_agent(agent_id="x" * 500)


def test_purchased_agent_ids(make_user, vendor):
    buyer = make_user("buyer")
    bought = make_agent(vendor, "bought")
    make_agent(vendor, "not-bought")
    also = make_agent(vendor, "also", status=AgentStatus.PENDING)
    make_purchase(buyer, bought)
    make_purchase(buyer, also)
    assert catalog.purchased_agent_ids(actor=buyer) == {bought.id, also.id}
    assert catalog.purchased_agent_ids(actor=None) == set()
    assert catalog.purchased_agent_ids(actor=make_user("nobody")) == set()


def _count_queries(fn):
    statements = []

    def _record(*_args):
        statements.append(1)

    engine = db.engine()
    event.listen(engine, "before_cursor_execute", _record)
    try:
        fn()
    finally:
        event.remove(engine, "before_cursor_execute", _record)
    return len(statements)


def test_listing_uses_a_fixed_number_of_queries(make_user, vendor):
    category = make_category("Writing")
    make_agent(vendor, "first", tags=["a"], files=1, category_id=category.id)
    few = _count_queries(lambda: catalog.list_agents(search="first"))
    for n in range(15):
        make_agent(make_user(f"v{n}", role=Role.VENDOR), f"first {n}", tags=["a", "b"], files=1,
                   category_id=make_category(f"C{n}").id)
    many = _count_queries(lambda: catalog.list_agents(search="first"))
    assert catalog.list_agents(search="first").total == 16
    assert few == many
