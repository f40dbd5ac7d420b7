"""What the dashboard shows for a purchase and an order: split badge numbers, direct-payment reasons, dates, and the
promotion code of an order and of a vendor's sale."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from marketplace.models import Agent, Order, Purchase
from marketplace.services import status_labels
from marketplace.services.purchases import PurchaseRecord
from marketplace.services.vendors.sales import SaleRecord
from marketplace.state.dashboard import order_row, purchase_card
from marketplace.state.display import format_day, format_day_time, time_zone
from marketplace.state.vendors.dashboard import _sale_row

WHEN = datetime(2025, 1, 5, 15, 4, tzinfo=UTC)
UTC_ZONE = ZoneInfo("UTC")


def _agent(**fields) -> Agent:
    values = {"id": "a" * 32, "name": "Data Wizard", "short_description": "Short", "description": "Long",
              "price_cents": 2999} | fields
    return Agent(**values)


def _order(**fields) -> Order:
    values = {"id": "0123456789abcdef0123456789abcdef", "agent_name": "Data Wizard", "currency": "usd",
              "total_amount_cents": 2999, "original_price_usd_cents": 2999, "exchange_rate": Decimal(1),
              "commission_rate": Decimal(20), "commission_split_enabled": True, "vendor_amount_cents": 2399,
              "platform_fee_cents": 600, "payment_intent_id": "pi_1", "created_at": WHEN} | fields
    return Order(**values)


def _record(order: Order | None, *, has_files: bool = True, **agent_fields) -> PurchaseRecord:
    purchase = Purchase(id="p" * 32, user_id="u", agent_id="a" * 32, purchase_price_cents=order.total_amount_cents
                        if order else 2999, currency=order.currency if order else "usd", purchased_at=WHEN)
    return PurchaseRecord(purchase=purchase, agent=_agent(**agent_fields), has_files=has_files, order=order)


def test_split_purchase_in_usd():
    card = purchase_card(_record(_order()), UTC_ZONE)
    assert card.has_order and card.split_enabled
    assert (card.split_label, card.vendor_amount, card.platform_fee) == ("80/20", "23.99 USD", "6.00 USD")
    assert card.original_usd == ""  # paid in USD: no conversion line
    assert (card.purchased_on, card.price, card.description) == ("Jan 5, 2025", "$29.99", "Short")


def test_split_purchase_in_euros_shows_the_rate_and_usd_price_and_its_own_commission():
    order = _order(currency="eur", total_amount_cents=2759, exchange_rate=Decimal("0.9200"),
                   commission_rate=Decimal("12.5"), vendor_amount_cents=2414, platform_fee_cents=345)
    card = purchase_card(_record(order), UTC_ZONE)
    assert card.split_label == "87.5/12.5"
    assert (card.vendor_amount, card.platform_fee) == ("24.14 EUR", "3.45 EUR")
    assert (card.original_usd, card.exchange_rate, card.price) == ("$29.99", "0.9200", "€27.59")


def test_direct_payment_keeps_the_reason():
    order = _order(commission_split_enabled=False, split_block_reason="Vendor has not connected a Stripe account")
    card = purchase_card(_record(order), UTC_ZONE)
    assert not card.split_enabled and card.split_reason == "Vendor has not connected a Stripe account"


def test_purchase_without_order_or_files_or_short_description():
    card = purchase_card(_record(None, has_files=False, short_description="", demo_url=None, image_url=None),
                         UTC_ZONE)
    assert not card.has_order and not card.has_files
    assert (card.description, card.demo_url, card.image_url) == ("Long", "", "")


def test_order_row_number_time_and_status():
    row = order_row(_order(status="processing"), ZoneInfo("America/New_York"))
    assert row.number == "89abcdef"
    assert row.placed_at == "Jan 5, 2025 • 10:04 AM"
    assert row.total == "$29.99"  # one money format everywhere (issue 34)
    assert (row.status, row.status_label) == ("processing", "Processing")
    refunded = order_row(_order(status="refunded"), UTC_ZONE)
    assert (refunded.status, refunded.status_label) == ("refunded", "Refunded")
    assert order_row(_order(status="completed"), UTC_ZONE).status_label == "Completed"


def test_dates_follow_the_browser_zone_and_fall_back_to_utc():
    assert format_day_time(WHEN, UTC_ZONE) == "Jan 5, 2025 • 3:04 PM"
    assert format_day_time(datetime(2025, 1, 5, 0, 4), UTC_ZONE) == "Jan 5, 2025 • 12:04 AM"  # naive = UTC
    assert format_day(WHEN, ZoneInfo("Pacific/Kiritimati")) == "Jan 6, 2025"
    assert time_zone("Not/AZone").key == "UTC"
    assert time_zone(None).key == "UTC"
    assert time_zone("../../etc/passwd").key == "UTC"


def test_statuses_read_in_one_set_of_words():
    assert [status_labels.subscription_label(s) for s in ("active", "past_due", "canceled", "trialing")] == [
        "Active", "Past due", "Cancelled", "Trial"]
    assert [status_labels.order_label(s) for s in ("completed", "refunded", "failed")] == [
        "Completed", "Refunded", "Failed"]


def test_an_order_and_the_vendors_sale_say_the_code_and_what_it_took_off():
    coded = {"promotion_code": "TRIAL25", "discount_cents": 750, "total_amount_cents": 2249}
    assert order_row(_order(**coded), UTC_ZONE).discount == "Code TRIAL25: -$7.50"
    assert order_row(_order(currency="eur", **coded), UTC_ZONE).discount == "Code TRIAL25: -€7.50"
    assert order_row(_order(), UTC_ZONE).discount == ""
    # A code whose months are over discounts nothing: the renewal is snapshotted without it.
    assert order_row(_order(promotion_code="TRIAL25", discount_cents=0), UTC_ZONE).discount == ""
    sale = SaleRecord(order_id="o" * 32, agent_id="a" * 32, agent_name="Data Wizard", customer_email="c@example.com",
                      created_at=WHEN, currency="usd", total_amount_cents=2249, price_usd_cents=2249,
                      vendor_earnings_cents=1799, platform_fee_cents=450, commission_rate=Decimal(20), split=False,
                      split_block_reason=None, payment_intent_id="pi_1", exchange_rate=Decimal(1),
                      kind="subscription", promotion_code="TRIAL25", discount_cents=750)
    row = _sale_row(sale, UTC_ZONE)
    assert (row.total, row.discount, row.kind) == ("$22.49", "Code TRIAL25: -$7.50", "Subscription")
    assert _sale_row(replace(sale, promotion_code=None, discount_cents=0), UTC_ZONE).discount == ""
