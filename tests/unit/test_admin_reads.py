"""Admin reads: every one refuses signed out (401), customers and vendors (403); the people and agent tables."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from marketplace.models import AgentStatus, User
from marketplace.models.base import utcnow
from marketplace.services.admin import analytics, catalog, people, sales, stats
from marketplace.services.errors import Forbidden, InvalidParameter, Unauthorized
from tests.factories import ago, make_admin, make_agent, make_category, make_user, make_vendor

READS: dict[str, Callable[[User | None], object]] = {
    "customers": lambda a: people.list_customers(actor=a),
    "vendors": lambda a: people.list_vendors(actor=a),
    "agents": lambda a: catalog.list_agents(actor=a),
    "sales": lambda a: sales.summary(actor=a),
    "commissions": lambda a: sales.list_commissions(actor=a),
    "commissions.csv": lambda a: sales.commissions_csv(actor=a),
    "sales.csv": lambda a: sales.sales_csv(actor=a),
    "analytics": lambda a: analytics.overview(actor=a),
    "most-bought": lambda a: analytics.most_bought(actor=a),
    "most-saved": lambda a: analytics.most_saved(actor=a),
    "most-viewed": lambda a: analytics.most_viewed(actor=a),
    "top-category": lambda a: analytics.top_categories(actor=a),
    "daily": lambda a: stats.daily_sales(actor=a),
    "weekly": lambda a: stats.weekly_signups(actor=a),
}


@pytest.mark.parametrize("read", READS.values(), ids=READS.keys())
def test_every_read_is_admin_only(read):
    with pytest.raises(Unauthorized):
        read(None)
    for user in (make_user(), make_vendor(), make_vendor(vendor_approved=False)):
        with pytest.raises(Forbidden):
            read(user)
    deleted_admin = make_admin(deleted_at=utcnow())
    with pytest.raises(Unauthorized):
        read(deleted_admin)
    assert read(make_admin()) is not None


def test_customers_newest_first_searchable_without_deleted_or_other_roles():
    admin = make_admin()
    old = make_user("oldie", first_name="Olive", last_name="Stone", created_at=ago(days=3))
    new = make_user("newbie", email="fresh@mail.test", created_at=ago(days=1))
    make_user("gone", deleted_at=utcnow())
    make_vendor("seller")
    rows, total = people.list_customers(actor=admin)
    assert total == 2 and [r.username for r in rows] == ["newbie", "oldie"]
    assert rows[1].first_name == "Olive" and rows[1].role == "user" and rows[1].agent_count == 0
    assert rows[0].created_at.date() == new.created_at.date()
    for term, expected in [("FRESH@", [new.id]), ("stone", [old.id]), ("olive", [old.id]), ("NEWB", [new.id]),
                           ("%", []), ("_", []), ("  ", [new.id, old.id])]:
        found, count = people.list_customers(actor=admin, search=term)
        assert [r.id for r in found] == expected and count == len(expected), term
    page, total = people.list_customers(actor=admin, limit=1, offset=1)
    assert [r.username for r in page] == ["oldie"] and total == 2


def test_vendors_with_approval_and_agent_count():
    admin = make_admin()
    approved = make_vendor("approved", created_at=ago(days=2))
    pending = make_vendor("pending", vendor_approved=False, created_at=ago(days=1))
    make_agent(approved)
    make_agent(approved, status=AgentStatus.PENDING)
    make_agent(approved, deleted_at=utcnow())
    make_user("customer")
    rows, total = people.list_vendors(actor=admin)
    assert total == 2
    assert [(r.username, r.is_vendor_approved, r.agent_count) for r in rows] == [
        ("pending", False, 0), ("approved", True, 2)]
    assert people.list_vendors(actor=admin, search="appro")[1] == 1
    assert pending.id in {r.id for r in rows}


@pytest.mark.parametrize("kwargs", [{"limit": 0}, {"limit": 101}, {"offset": -1}, {"search": "x" * 201}])
def test_bad_page_or_search_is_422(kwargs):
    admin = make_admin()
    for read in (people.list_customers, people.list_vendors, catalog.list_agents, sales.list_commissions):
        with pytest.raises(InvalidParameter):
            read(actor=admin, **kwargs)


def test_agents_every_status_with_vendor_category_tags():
    admin = make_admin()
    vendor = make_vendor("maker")
    gone_vendor = make_vendor("gone", deleted_at=utcnow())
    category = make_category("Writing", emoji="✍️")
    live = make_agent(vendor, "Live one", category=category, tags=["b", "a"], ratings=(5, 4),
                      demo_url="https://demo.test", created_at=ago(days=3))
    pending = make_agent(vendor, "Pending one", status=AgentStatus.PENDING, created_at=ago(days=2))
    rejected = make_agent(gone_vendor, "Rejected one", status=AgentStatus.REJECTED, rejection_reason="Thin",
                          created_at=ago(days=1))
    orphan = make_agent(None, "Orphan", created_at=ago(hours=1))
    make_agent(vendor, "Deleted", deleted_at=utcnow())
    rows, total = catalog.list_agents(actor=admin)
    assert total == 4 and [r.id for r in rows] == [orphan.id, rejected.id, pending.id, live.id]
    row = rows[3]
    assert (row.vendor_username, row.category_name, row.tags, row.is_approved, row.status) == (
        "maker", "Writing", ["b", "a"], True, "approved")
    assert (row.avg_rating, row.review_count, row.demo_url, row.price_cents) == (4.5, 2, "https://demo.test", 2999)
    assert rows[0].vendor_username is None and rows[1].vendor_username is None  # no vendor / deleted vendor
    assert rows[1].rejection_reason == "Thin" and not rows[2].is_approved
    assert [r.id for r in catalog.list_agents(actor=admin, status="pending")[0]] == [pending.id]
    assert catalog.list_agents(actor=admin, status="rejected")[1] == 1
    assert catalog.list_agents(actor=admin, status="all")[1] == 4
    assert [r.id for r in catalog.list_agents(actor=admin, search="LIVE")[0]] == [live.id]
    with pytest.raises(InvalidParameter):
        catalog.list_agents(actor=admin, status="deleted")
