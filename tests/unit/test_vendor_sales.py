"""Vendor earnings from order snapshots: split/direct, USD/EUR, two commission rates, refunds, month, series, CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from marketplace.models import AgentStatus, OrderStatus, Role
from marketplace.services import csv_export
from marketplace.services.errors import Forbidden, InvalidParameter, Unauthorized
from marketplace.services.vendors import agents, sales
from tests.factories import make_admin, make_agent, make_category, make_order, make_user, make_vendor

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
EUR = Decimal("0.9200")


@pytest.fixture
def book():
    """One vendor's sales of four kinds, plus what must not count (refunded, another vendor's)."""
    vendor, other, buyer = make_vendor(), make_vendor(), make_user()
    big = make_agent(vendor, price_cents=2999, name="Big")
    small = make_agent(vendor, price_cents=1000, name="Small")
    at = NOW - timedelta(days=40)
    orders = {
        # 2999 at 20%: fee 600, vendor 2399
        "usd_split_20": make_order(big, buyer, created_at=at),
        # 2999 at 12.5%: fee 374.875 -> 375, vendor 2624
        "usd_direct_12_5": make_order(big, buyer, split=False, commission_rate="12.50", created_at=at),
        # 2999 USD -> 2759 EUR; at 20%: fee 552, vendor 2207
        "eur_split_20": make_order(big, buyer, currency="eur", exchange_rate=EUR, created_at=at),
        # 1000 USD -> 920 EUR; at 12.5%: fee 115, vendor 805
        "eur_direct_12_5": make_order(small, buyer, currency="eur", exchange_rate=EUR, split=False,
                                      commission_rate="12.5", created_at=at),
    }
    make_order(big, buyer, status=OrderStatus.REFUNDED, amount_cents=5000, created_at=at)
    make_order(make_agent(other, price_cents=9999), buyer, created_at=at)
    return vendor, orders


def test_snapshots_are_what_checkout_would_have_written(book):
    _, orders = book
    got = {k: (o.total_amount_cents, o.platform_fee_cents, o.vendor_amount_cents) for k, o in orders.items()}
    assert got == {"usd_split_20": (2999, 600, 2399), "usd_direct_12_5": (2999, 375, 2624),
                   "eur_split_20": (2759, 552, 2207), "eur_direct_12_5": (920, 115, 805)}


def test_analytics_to_the_cent(book):
    vendor, _ = book
    result = sales.analytics(actor=vendor, now=NOW)
    # USD: 2399 + 2624; EUR group (0.92): (2207 + 805) / 0.92 = 3273.91 -> 3274
    assert result.total_vendor_earnings_cents == 2399 + 2624 + 3274
    # USD: 2999 + 2999; EUR: (2759 + 920) / 0.92 = 3998.91 -> 3999
    assert result.total_revenue_cents == 2999 + 2999 + 3999
    assert result.total_sales == 4  # refunded and the other vendor's sale do not count
    assert (result.this_month_earnings_cents, result.this_month_revenue_cents) == (0, 0)
    assert result.commission_rate == Decimal("20.00")


def test_conversion_rounds_half_up_per_rate_group():
    assert sales.to_usd(2759, "eur", Decimal("0.92")) == 2999
    assert sales.to_usd(1, "eur", Decimal("2")) == 1  # 0.5 -> 1
    assert sales.to_usd(1234, "usd", Decimal("0.5")) == 1234  # USD amounts are never converted
    vendor, buyer = make_vendor(), make_user()
    agent = make_agent(vendor, price_cents=1000)
    make_order(agent, buyer, currency="eur", exchange_rate="0.9000")   # 900 EUR, vendor 720
    make_order(agent, buyer, currency="eur", exchange_rate="0.8000")   # 800 EUR, vendor 640
    result = sales.analytics(actor=vendor, now=NOW)
    assert result.total_vendor_earnings_cents == 800 + 800 and result.total_revenue_cents == 2000


def test_this_month_starts_on_the_first_utc_day(book):
    vendor, _ = book
    agent = make_agent(vendor, price_cents=1000)
    make_order(agent, created_at=datetime(2026, 3, 1, tzinfo=UTC))                     # counts
    make_order(agent, created_at=datetime(2026, 2, 28, 23, 59, 59, tzinfo=UTC))        # last month
    make_order(agent, currency="eur", exchange_rate=EUR, created_at=datetime(2026, 3, 10, tzinfo=UTC))  # 920
    make_order(agent, status=OrderStatus.REFUNDED, created_at=datetime(2026, 3, 2, tzinfo=UTC))
    result = sales.analytics(actor=vendor, now=NOW)
    assert result.this_month_revenue_cents == 1000 + 1000
    assert result.this_month_earnings_cents == 800 + 800  # 736 EUR / 0.92 = 800
    assert result.total_sales == 4 + 3


def test_analytics_agent_counts_and_rating():
    vendor = make_vendor()
    make_agent(vendor, avg_rating=4.0, review_count=2)
    make_agent(vendor, avg_rating=5.0, review_count=1)
    make_agent(vendor, avg_rating=0.0, review_count=0)                       # unrated: not in the mean
    make_agent(vendor, status=AgentStatus.PENDING, avg_rating=1.0, review_count=1)  # not live
    make_agent(vendor, status=AgentStatus.REJECTED)
    make_agent(vendor, deleted_at=NOW)
    result = sales.analytics(actor=vendor, now=NOW)
    assert (result.total_agents, result.approved_agents, result.avg_rating) == (5, 3, 4.5)
    assert result.total_sales == 0 and result.total_vendor_earnings_cents == 0


def test_list_sales_newest_first_own_completed_only_with_snapshots(book):
    vendor, orders = book
    newest = make_order(make_agent(vendor), created_at=NOW)
    page = sales.list_sales(actor=vendor, limit=2)
    assert page.total == 5 and len(page.items) == 2
    assert page.items[0].order_id == newest.id
    everything = sales.list_sales(actor=vendor, limit=100).items
    assert {s.order_id for s in everything} == {newest.id, *(o.id for o in orders.values())}
    eur = next(s for s in everything if s.order_id == orders["eur_direct_12_5"].id)
    assert (eur.currency, eur.total_amount_cents, eur.price_usd_cents, eur.vendor_earnings_cents,
            eur.platform_fee_cents) == ("eur", 920, 1000, 805, 115)
    assert (eur.commission_rate, eur.split, eur.exchange_rate) == (Decimal("12.50"), False, EUR)
    assert eur.split_block_reason and eur.payment_intent_id.startswith("pi_test_")
    assert sales.list_sales(actor=vendor, limit=2, offset=4).items[0].order_id in {o.id for o in orders.values()}
    assert sales.list_sales(actor=vendor, offset=5).items == []


@pytest.mark.parametrize("kwargs", [{"limit": 0}, {"limit": 101}, {"offset": -1}, {"offset": 10**7}])
def test_list_sales_refuses_bad_paging(kwargs):
    with pytest.raises(InvalidParameter):
        sales.list_sales(actor=make_vendor(), **kwargs)


def test_every_vendor_call_needs_an_approved_vendor():
    calls = [
        lambda a: sales.analytics(actor=a), lambda a: sales.list_sales(actor=a),
        lambda a: sales.earnings_series(actor=a, period="day"), lambda a: sales.sales_csv(actor=a),
        lambda a: agents.list_own_agents(actor=a),
    ]
    for call in calls:
        with pytest.raises(Unauthorized):
            call(None)
        for actor in (make_user(), make_vendor(vendor_approved=False)):
            with pytest.raises(Forbidden, match="Vendor access required"):
                call(actor)
        call(make_admin())  # admins pass


def test_day_series_has_thirty_buckets_with_zeros(book):
    vendor, _ = book
    agent = make_agent(vendor, price_cents=1000)
    make_order(agent, created_at=datetime(2026, 3, 15, 0, 30, tzinfo=UTC))
    make_order(agent, currency="eur", exchange_rate=EUR, created_at=datetime(2026, 3, 15, 11, tzinfo=UTC))
    make_order(agent, created_at=datetime(2026, 2, 14, 0, 0, tzinfo=UTC))           # first bucket
    make_order(agent, created_at=datetime(2026, 2, 13, 23, 59, 59, tzinfo=UTC))    # before the window
    make_order(agent, status=OrderStatus.REFUNDED, created_at=datetime(2026, 3, 14, tzinfo=UTC))
    points = sales.earnings_series(actor=vendor, period="day", now=NOW)
    assert len(points) == 30
    assert (points[0].start, points[0].label, points[-1].start, points[-1].label) == (
        date(2026, 2, 14), "Feb 14", date(2026, 3, 15), "Mar 15")
    assert [p.start for p in points] == [date(2026, 2, 14) + timedelta(days=n) for n in range(30)]
    assert (points[-1].vendor_cents, points[-1].fee_cents, points[-1].sales) == (1600, 400, 2)
    assert (points[0].vendor_cents, points[0].sales) == (800, 1)
    assert sum(p.sales for p in points) == 3 and points[-2].sales == 0  # the refund is not a sale


def test_month_series_has_twelve_buckets_and_folds_days(book):
    vendor, _ = book  # the book's four sales are on 2026-02-03 (NOW - 40 days)
    agent = make_agent(vendor, price_cents=1000)
    make_order(agent, created_at=datetime(2025, 4, 1, tzinfo=UTC))                  # first bucket
    make_order(agent, created_at=datetime(2025, 3, 31, 23, 59, tzinfo=UTC))         # too old
    points = sales.earnings_series(actor=vendor, period="month", now=NOW)
    assert [p.label for p in points][:2] == ["Apr 2025", "May 2025"] and points[-1].label == "Mar 2026"
    assert len(points) == 12 and points[-1].start == date(2026, 3, 1)
    february = points[-2]
    assert (february.start, february.sales) == (date(2026, 2, 1), 4)
    assert (february.vendor_cents, february.fee_cents) == (2399 + 2624 + 3274, 600 + 375 + round(667 / 0.92))
    assert (points[0].sales, points[0].vendor_cents) == (1, 800)
    assert sum(p.sales for p in points) == 5


def test_month_series_across_a_year_end():
    vendor = make_vendor()
    points = sales.earnings_series(actor=vendor, period="month", now=datetime(2026, 1, 31, 23, tzinfo=UTC))
    assert [p.label for p in points][:1] + [p.label for p in points][-2:] == ["Feb 2025", "Dec 2025", "Jan 2026"]
    assert all(p.sales == 0 and p.vendor_cents == 0 for p in points)


def test_series_refuses_an_unknown_period():
    with pytest.raises(InvalidParameter, match="period"):
        sales.earnings_series(actor=make_vendor(), period="week")


def test_csv_has_a_header_and_every_sale_and_defuses_formulas(monkeypatch):
    monkeypatch.setattr(csv_export, "CHUNK", 2)  # several keyset pages
    vendor = make_vendor()
    agent = make_agent(vendor, name="=HYPERLINK(\"x\")", price_cents=1000)
    when = datetime(2026, 3, 1, tzinfo=UTC)
    made = [make_order(agent, created_at=when) for _ in range(3)]  # same second: the id breaks the tie
    made.append(make_order(agent, currency="eur", exchange_rate=EUR, split=False, created_at=when - timedelta(1)))
    make_order(agent, status=OrderStatus.REFUNDED)
    rows = list(csv.reader(io.StringIO("".join(sales.sales_csv(actor=vendor)))))
    assert rows[0] == list(sales.CSV_HEADER)
    assert sorted(r[0] for r in rows[1:]) == sorted(o.id for o in made)
    assert rows[-1][0] == made[-1].id  # oldest last
    eur = rows[-1]
    assert eur[2] == "'=HYPERLINK(\"x\")"
    assert eur[4:11] == ["EUR", "9.20", "10.00", "7.36", "1.84", "20.00", "direct"]
    assert eur[12] == "0.9200"


def test_own_agents_newest_first_with_category_and_status():
    vendor, other = make_vendor(), make_vendor()
    category = make_category("Writing")
    old = make_agent(vendor, category=category, created_at=NOW - timedelta(days=2))
    rejected = make_agent(vendor, status=AgentStatus.REJECTED, rejection_reason="Blurry screenshots",
                          created_at=NOW - timedelta(days=1))
    make_agent(vendor, deleted_at=NOW)
    make_agent(other)
    listed = agents.list_own_agents(actor=vendor)
    assert [a.id for a in listed] == [rejected.id, old.id]
    assert (listed[0].status, listed[0].rejection_reason, listed[0].category_name) == (
        "rejected", "Blurry screenshots", None)
    assert (listed[1].category_id, listed[1].category_name, listed[1].price_cents) == (
        category.id, "Writing", 2999)
    assert agents.list_own_agents(actor=make_user(role=Role.ADMIN)) == []


def test_a_sale_with_a_promotion_code_names_it_and_its_discount_in_the_list_and_the_csv():
    vendor = make_vendor()
    agent = make_agent(vendor, price_cents=2999)
    order = make_order(agent, amount_cents=2249, promotion_code="SAVE25", discount_cents=750)
    [sale] = sales.list_sales(actor=vendor).items
    assert (sale.order_id, sale.promotion_code, sale.discount_cents, sale.total_amount_cents) == (
        order.id, "SAVE25", 750, 2249)
    rows = list(csv.reader(io.StringIO("".join(sales.sales_csv(actor=vendor)))))
    assert rows[0][-2:] == ["promotion_code", "discount"] and rows[1][-2:] == ["SAVE25", "7.50"]
