"""Admin sales from order snapshots: USD and EUR at each order's own rate, split and direct, refunds listed but
never summed; commission entries; the CSV exports carry the same values as the JSON; the per-day series."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from marketplace.models import OrderStatus
from marketplace.services import csv_export, platform
from marketplace.services.admin import sales, stats
from marketplace.services.errors import InvalidParameter
from tests.factories import make_admin, make_agent, make_order, make_user, make_vendor

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


@pytest.fixture
def book():
    """Sales of two vendors in USD and EUR (two rates), split and direct, 20% and 12.5%, plus a refund."""
    v1, v2, buyer = make_vendor(), make_vendor(), make_user(email="buyer@shop.test")
    big = make_agent(v1, "Big", price_cents=2999)
    small = make_agent(v2, "Small", price_cents=1000)
    at = NOW - timedelta(days=2)
    orders = [
        make_order(big, buyer, created_at=at),                                          # 2999: fee 600, vendor 2399
        make_order(big, buyer, split=False, commission_rate="12.50", created_at=at + timedelta(minutes=1)),
        # 2999 USD -> 2759 EUR at 0.92: fee 552, vendor 2207
        make_order(big, buyer, currency="eur", exchange_rate="0.9200", created_at=at + timedelta(minutes=2)),
        # 1000 USD -> 905 EUR at 0.905, direct at 20%: fee 181, vendor 724
        make_order(small, buyer, currency="eur", exchange_rate="0.9050", split=False,
                   created_at=at + timedelta(minutes=3)),
    ]
    make_order(big, buyer, status=OrderStatus.REFUNDED, amount_cents=9999, created_at=at - timedelta(minutes=1))
    make_order(small, buyer, status=OrderStatus.PROCESSING, amount_cents=7777, created_at=at)
    return orders


def test_summary_to_the_cent(book):
    result = sales.summary(actor=make_admin())
    # USD 2999 + 2999; EUR 2759 / 0.92 = 2998.91 -> 2999; 905 / 0.905 = 1000
    assert result.total_revenue_cents == 2999 + 2999 + 2999 + 1000
    # fees: 600 + 375; 552 / 0.92 = 600; 181 / 0.905 = 200
    assert result.admin_earnings_cents == 600 + 375 + 600 + 200
    # vendors: 2399 + 2624; 2207 / 0.92 = 2398.91 -> 2399; 724 / 0.905 = 800
    assert result.vendor_earnings_cents == 2399 + 2624 + 2399 + 800
    assert (result.total_sales, result.split_payments, result.direct_payments) == (4, 2, 2)
    assert result.commission_split_rate == 50.0
    assert result.total_vendor_payouts_cents == 2399 + 2399  # split payments only
    assert result.commission_rate == "20%"


def test_summary_without_sales_and_with_another_rate():
    admin = make_admin()
    platform.set_commission_rate(actor=admin, value="15.5%")
    result = sales.summary(actor=admin)
    assert (result.total_sales, result.total_revenue_cents, result.commission_split_rate) == (0, 0, None)
    assert result.commission_rate == "15.5%"


def test_commission_entries_newest_first_in_usd(book):
    admin = make_admin()
    rows, total = sales.list_commissions(actor=admin)
    assert total == 5 and [r.order_id for r in rows[:4]] == [o.id for o in reversed(book)]
    assert [(r.status, r.refunded, r.charged_amount_cents) for r in rows[4:]] == [("refunded", True, 9999)]
    assert {r.kind_label for r in rows} == {"Purchase"}
    eur = rows[1]
    assert (eur.currency, eur.charged_amount_cents, eur.sale_amount_cents) == ("eur", 2759, 2999)
    assert (eur.commission_amount_cents, eur.vendor_amount_cents, eur.commission_split_enabled) == (600, 2399, True)
    direct = rows[2]
    assert (direct.commission_split_enabled, direct.commission_rate, direct.commission_amount_cents) == (
        False, Decimal("12.50"), 375)
    assert rows[0].customer_email == "buyer@shop.test" and rows[0].agent_name == "Small"
    page, _ = sales.list_commissions(actor=admin, limit=2, offset=2)
    assert [r.order_id for r in page] == [book[1].id, book[0].id]
    assert sales.list_commissions(actor=admin, search="SMALL")[1] == 1
    assert sales.list_commissions(actor=admin, search="shop.test")[1] == 5


def _csv(lines) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO("".join(lines))))


def test_commissions_csv_matches_the_entries(book, monkeypatch):
    admin = make_admin()
    monkeypatch.setattr(csv_export, "CHUNK", 3)  # more than one keyset page
    rows = _csv(sales.commissions_csv(actor=admin))
    entries, _ = sales.list_commissions(actor=admin, limit=100)
    assert [r["orderId"] for r in rows] == [e.order_id for e in entries]
    for row, entry in zip(rows, entries, strict=True):
        assert row["saleAmount"] == f"{entry.sale_amount_cents / 100:.2f}"
        assert row["commissionAmount"] == f"{entry.commission_amount_cents / 100:.2f}"
        assert row["vendorAmount"] == f"{entry.vendor_amount_cents / 100:.2f}"
        assert row["commissionSplitEnabled"] == ("true" if entry.commission_split_enabled else "false")
        assert (row["agentName"], row["customerEmail"], row["currency"]) == (
            entry.agent_name, entry.customer_email, entry.currency)
        assert datetime.fromisoformat(row["createdAt"]) == entry.created_at
        assert (row["kind"], row["status"]) == (entry.kind, entry.status)
    assert [r["status"] for r in rows] == ["completed"] * 4 + ["refunded"]


def test_sales_csv_has_every_completed_and_refunded_sale_with_its_vendor(book, monkeypatch):
    admin = make_admin()
    monkeypatch.setattr(csv_export, "CHUNK", 2)
    rows = _csv(sales.sales_csv(actor=admin))
    refunded = rows.pop()
    assert (refunded["status"], refunded["charged_amount"], refunded["kind"]) == ("refunded", "99.99", "purchase")
    assert [r["order_id"] for r in rows] == [o.id for o in reversed(book)]
    assert {(r["status"], r["kind"]) for r in rows} == {("completed", "purchase")}
    eur = rows[1]
    assert (eur["currency"], eur["charged_amount"], eur["exchange_rate"], eur["sale_amount_usd"]) == (
        "EUR", "27.59", "0.9200", "29.99")
    assert (eur["platform_fee_usd"], eur["vendor_amount_usd"], eur["payment"]) == ("6.00", "23.99", "split")
    assert rows[0]["payment"] == "direct" and rows[0]["split_block_reason"]
    assert sum(Decimal(r["sale_amount_usd"]) for r in rows) == Decimal("99.97")  # = the summary's revenue here
    assert rows[0]["vendor"].startswith("vendor") and rows[0]["agent"] == "Small"


def test_csv_cells_that_look_like_formulas_are_defused():
    agent = make_agent(make_vendor(), "=HYPERLINK(1)")
    make_order(agent, make_user())
    rows = _csv(sales.commissions_csv(actor=make_admin()))
    assert rows[0]["agentName"] == "'=HYPERLINK(1)"


def test_daily_sales_every_day_present(book):
    admin = make_admin()
    points = stats.daily_sales(actor=admin, now=NOW)
    assert len(points) == 30 and points[-1].day == date(2026, 3, 15) and points[0].day == date(2026, 2, 14)
    by_day = {p.day: p for p in points}
    assert (by_day[date(2026, 3, 13)].sales, by_day[date(2026, 3, 13)].revenue_cents) == (4, 9997)
    assert sum(p.sales for p in points) == 4
    assert stats.daily_sales(actor=admin, days=1, now=NOW)[0].sales == 0
    for days in (0, 367):
        with pytest.raises(InvalidParameter):
            stats.daily_sales(actor=admin, days=days)


def _totals() -> list[tuple]:
    from sqlmodel import select

    from marketplace import db
    from marketplace.models import OrderDayTotal

    with db.session_scope() as session:
        rows = session.exec(select(OrderDayTotal)).all()
    return sorted((str(r.day), r.currency, Decimal(r.exchange_rate), r.commission_split_enabled, r.sales,
                   r.total_amount_cents, r.platform_fee_cents, r.vendor_amount_cents) for r in rows if r.sales)


def test_day_totals_follow_refunds_and_equal_a_rebuild(book):
    from benchmarks.day_totals import rebuild_day_totals
    from marketplace import db
    from marketplace.models import Order

    admin = make_admin()
    with db.session_scope() as session:
        order = session.get(Order, book[2].id)  # the EUR split sale
        order.status = OrderStatus.REFUNDED
        session.add(order)
    result = sales.summary(actor=admin)
    assert (result.total_sales, result.total_revenue_cents, result.split_payments) == (3, 2999 + 2999 + 1000, 1)
    kept = _totals()
    with db.engine().begin() as connection:
        rebuild_day_totals(connection)
    assert _totals() == kept
    with db.session_scope() as session:
        order = session.get(Order, book[2].id)
        order.status = OrderStatus.COMPLETED
        session.add(order)
    assert sales.summary(actor=admin).total_sales == 4


def test_a_commission_entry_names_the_promotion_code_and_its_discount():
    admin = make_admin()
    agent = make_agent(make_vendor(), price_cents=2999)
    make_order(agent, amount_cents=2249, promotion_code="SAVE25", discount_cents=750)
    [row], _total = sales.list_commissions(actor=admin)
    assert (row.promotion_code, row.discount_cents, row.charged_amount_cents) == ("SAVE25", 750, 2249)
    lines = "".join(sales.commissions_csv(actor=admin)).splitlines()
    assert lines[0].endswith("promotionCode,discountAmount") and lines[1].endswith("SAVE25,7.50")
