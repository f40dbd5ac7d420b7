"""What the admin panel's own tabs make of the services' answers: table rows, commission labels and promotion
codes, audit text."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from marketplace.services.admin.catalog import AdminAgentRow
from marketplace.services.admin.people import PersonRow
from marketplace.services.admin.sales import CommissionRow
from marketplace.state.admin.agents import agent_view
from marketplace.state.admin.audit import _details
from marketplace.state.admin.customers import person_view
from marketplace.state.admin.page import TABS
from marketplace.state.admin.sales import _commission_view

WHEN = datetime(2025, 1, 5, 23, 30, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")


def _person(**fields: object) -> PersonRow:
    values: dict = dict(id="u1", first_name="Ada", last_name="Lovelace", email="ada@x.test", username="ada",
                        role="user", is_vendor_approved=False, created_at=WHEN, profile_image_url=None, agent_count=0,
                        published_count=0)
    values.update(fields)
    return PersonRow(**values)


def _agent(**fields: object) -> AdminAgentRow:
    values: dict = dict(id="a1", name="Inbox Pilot", short_description="Short", description="", price_cents=2999,
                        pricing_model="monthly", status="pending", is_approved=False, avg_rating=4.25, review_count=4,
                        vendor_id=None,
                        vendor_username=None, category_id=None, category_name=None, demo_url=None, image_url=None,
                        tags=[], created_at=WHEN)
    values.update(fields)
    return AdminAgentRow(**values)


def _commission(**fields: object) -> CommissionRow:
    values: dict = dict(order_id="o1", agent_name="Inbox Pilot", sale_amount_cents=2999, commission_split_enabled=True,
                        commission_amount_cents=600, vendor_amount_cents=2399, customer_email="c@x.test",
                        created_at=WHEN, currency="usd", charged_amount_cents=2999, commission_rate=Decimal("20"))
    values.update(fields)
    return CommissionRow(**values)


def test_every_spec_tab_and_the_audit_log_have_an_address():
    assert TABS == ("overview", "customers", "vendors", "agents", "vendor-applications", "agent-approvals",
                    "reports", "refunds", "license-keys", "analytics", "stats", "sales", "audit")


def test_person_row_names_and_local_join_date():
    row = person_view(_person(), BERLIN)
    assert (row.name, row.joined, row.image_url) == ("Ada Lovelace", "Jan 6, 2025", "")  # 00:30 in Berlin
    assert person_view(_person(first_name=None, last_name=""), BERLIN).name == "ada"  # no name: the username
    vendor = person_view(_person(role="vendor", is_vendor_approved=True, agent_count=3), BERLIN)
    assert vendor.approved and vendor.agent_count == 3


def test_agent_row_labels_vendor_category_status_and_price():
    row = agent_view(_agent(), ZoneInfo("UTC"))
    assert (row.vendor, row.category, row.status_label, row.price, row.rating) == (
        "Unknown", "Uncategorized", "Pending", "$29.99/month", "4.2")
    assert agent_view(_agent(price_cents=4900, pricing_model="one_time"), ZoneInfo("UTC")).price == "$49.00 one-time"
    assert row.description == "Short"  # no long description: the short one
    live = agent_view(_agent(status="approved", is_approved=True, vendor_username="vendor", price_cents=0,
                             category_name="Productivity", tags=["mail"]), ZoneInfo("UTC"))
    assert (live.status_label, live.vendor, live.price, live.category, live.tags) == (
        "Approved", "vendor", "Free", "Productivity", ["mail"])
    assert agent_view(_agent(status="rejected"), ZoneInfo("UTC")).status_label == "Rejected"


def test_commission_entry_labels_the_split_with_the_orders_own_rate():
    split = _commission_view(_commission(), ZoneInfo("UTC"))
    assert (split.payment_type, split.commission, split.vendor_payout) == ("Split (80/20)", "$6.00", "$23.99")
    assert _commission_view(_commission(commission_rate=Decimal("12.5")), ZoneInfo("UTC")).payment_type == (
        "Split (87.5/12.5)")
    direct = _commission_view(_commission(commission_split_enabled=False, vendor_amount_cents=0), ZoneInfo("UTC"))
    assert (direct.payment_type, direct.vendor_payout) == ("Direct", "N/A")
    assert split.date == "Jan 5, 2025 • 11:30 PM"


def test_commission_entry_says_the_code_and_what_it_took_off_as_the_buyer_and_vendor_read_it():
    coded = _commission(sale_amount_cents=2249, charged_amount_cents=2249, promotion_code="TRIAL25",
                        discount_cents=750)
    entry = _commission_view(coded, ZoneInfo("UTC"))
    assert (entry.sale_amount, entry.discount) == ("$22.49", "Code TRIAL25: -$7.50")
    # The discount is what the buyer saw taken off, in the currency charged (the sale amount is the USD figure).
    euros = _commission(sale_amount_cents=2445, currency="eur", charged_amount_cents=2249, promotion_code="TRIAL25",
                        discount_cents=750)
    assert _commission_view(euros, ZoneInfo("UTC")).discount == "Code TRIAL25: -€7.50"
    assert _commission_view(_commission(), ZoneInfo("UTC")).discount == ""
    # A renewal after the code's months snapshots the code without a discount: no line.
    assert _commission_view(_commission(promotion_code="TRIAL25", discount_cents=0), ZoneInfo("UTC")).discount == ""


def test_audit_details_read_as_text_without_empty_values():
    assert _details({"status": "rejected", "reason": None, "username": "ada", "note": ""}) == (
        "status: rejected · username: ada")
    assert _details({}) == ""
