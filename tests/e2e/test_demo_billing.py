"""The demo data's billing as `make run` shows it (dev/stripe_standin/seed_billing.py): the demo customer's
subscriptions in My Agents (renewing, ending, past due), refunded orders, and the admin's waiting refund request."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page
from tests.e2e.helpers import DEMO_ADMIN, shot, sign_in

RENEWS = re.compile(r"^Renews on [A-Z][a-z]{2} \d{1,2}, \d{4}$")
ENDS = re.compile(r"^Ends on [A-Z][a-z]{2} \d{1,2}, \d{4}$")


def test_the_demo_customer_sees_renewing_ending_and_past_due_subscriptions_and_refunds(page: Page) -> None:
    sign_in(page, "customer", "customer123", api=True)
    subs = page.request.get("/api/user/subscriptions").json()
    by_state = {(s["status"], s["cancelAtPeriodEnd"]): s["agentName"] for s in subs}
    assert set(by_state) == {("active", False), ("active", True), ("past_due", False)}, subs

    open_page(page, "/dashboard")
    renewing = page.locator(f".purchase-card[data-agent='{by_state['active', False]}']")
    expect(renewing.locator(".subscription-renewal")).to_have_text(RENEWS)
    ending = page.locator(f".purchase-card[data-agent='{by_state['active', True]}']")
    expect(ending.locator(".subscription-renewal")).to_have_text(ENDS)
    expect(ending.locator(".resume-subscription")).to_be_visible()
    past_due = page.locator(f".purchase-card[data-agent='{by_state['past_due', False]}']")
    expect(past_due.locator(".subscription-status")).to_have_text("Payment failed")
    expect(past_due.locator(".update-card-link")).to_be_visible()
    shot(page, "demo-customer-subscriptions")

    open_page(page, "/dashboard?tab=orders")
    orders = page.locator(".order-row")
    expect(orders.filter(has_text=by_state["active", False])).to_have_count(3)  # the first payment, two renewals
    expect(orders.filter(has_text="Refunded")).to_have_count(2)
    shot(page, "demo-customer-orders")

    page.context.clear_cookies()
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin?tab=refunds")
    waiting = page.locator(".refund-row", has_text="I expected it to connect to our CRM")  # seed_billing's reason
    expect(waiting.locator(".refund-status")).to_have_text("Requested")
    shot(page, "demo-admin-refund-request")
