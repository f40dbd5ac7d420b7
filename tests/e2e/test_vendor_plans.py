"""Vendor plans in a real browser: a Free vendor at its limit is told so in the wizard, upgrades to Pro on
/vendor/plans with the test card and may list more; a fee an admin changes on /admin/settings shows on the
landing page; the admin sees each vendor's plan and the plan revenue; /vendor/plans at phone width.

The commission rate (the Free plan's fee) is shared by every browser test: the test that changes it puts 20% back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import new_context
from tests.e2e.helpers import (
    DEMO_ADMIN,
    api_context,
    expect_fits_phone,
    expect_toast,
    open_page,
    pay_with_test_card,
    same_origin,
    shot,
    sign_in,
    sign_up,
)

LIMIT_MESSAGE = "Your Free plan allows 3 agents. Upgrade to list more."


@pytest.fixture
def commission_back(browser: Browser, app_server: str) -> Iterator[None]:
    """The commission rate (the Free plan's fee) is 20% again afterwards, whatever the test did."""
    yield
    context = api_context(browser, app_server)
    try:
        assert context.request.post("/api/login", data={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]}).ok
        assert context.request.put("/api/admin/settings/commissionRate", data={"value": "20%"}).ok
    finally:
        context.close()


def _vendor_with_three_agents(page: Page, admin: httpx.Client) -> None:
    """A new vendor (applied, approved) with three pending agents: the Free plan's limit; signed in on `page`."""
    username = sign_up(page, "planner")
    origin = same_origin(page)
    applied = page.request.post("/api/vendor/apply", headers=origin, data={
        "businessName": f"{username} Ltd", "businessDescription": "Agents for the plans test.",
        "website": "https://planner.example"})
    assert applied.status == 201, applied.text()
    user_id = page.request.get("/api/auth/user").json()["id"]
    assert admin.post(f"/api/admin/vendor/{user_id}/approve").status_code == 200
    category = page.request.get("/api/categories").json()[0]["id"]
    for number in range(3):
        created = page.request.post("/api/vendor/agents", headers=origin, data={
            "name": f"Planner {number}", "shortDescription": "An agent for the plans test", "price": "12.00",
            "categoryId": category, "description": "Sorts and answers. Built for the vendor plans browser test.",
            "tags": ["e2e"]})
        assert created.status == 201, created.text()


def test_free_vendor_at_its_limit_upgrades_to_pro_then_cancels_and_keeps_it(page: Page, admin: httpx.Client) -> None:
    _vendor_with_three_agents(page, admin)

    # The wizard says the limit before step 1, with the way to the plans.
    open_page(page, "/vendor/add-agent")
    expect(page.locator("#wizard-limit-message")).to_have_text(LIMIT_MESSAGE)
    expect(page.locator("#wizard-heading")).to_have_count(0)
    shot(page, "vendor-plans-wizard-limit")
    page.click("#limit-plans-link")
    expect(page).to_have_url(re.compile(r"/vendor/plans/?$"))

    # The three plans as stored, Free marked.
    expect(page.locator("#plans-current")).to_have_text("You are on the Free plan · 20% fee · 3 of 3 agents")
    expect(page.locator("#plans-limit")).to_have_text(LIMIT_MESSAGE)
    expect(page.locator("#plan-free #current-plan-badge")).to_be_visible()
    expect(page.locator("#plan-pro")).to_contain_text("10% transaction fee")
    expect(page.locator("#plan-enterprise")).to_contain_text("$99")
    shot(page, "vendor-plans-desktop")

    # Pro with the test card in the Payment Element.
    page.click("#choose-pro")
    expect(page.locator("#plan-payment-message")).to_have_text(re.compile(  # and when it next charges (issue 34)
        r"^Pay \$29\.00/month to start your Pro plan\. The next charge of \$29\.00 is on \w+ \d{1,2}, \d{4}\.$"))
    expect(page.locator("#plan-payment #test-mode-note")).to_contain_text("4242 4242 4242 4242")
    expect(page.locator("#submit-payment")).to_be_enabled()
    shot(page, "vendor-plans-payment")
    pay_with_test_card(page)
    expect_toast(page, "Plan updated", "You are now on the Pro plan.")
    expect(page.locator("#plan-pro #current-plan-badge")).to_be_visible()
    expect(page.locator("#plans-current")).to_have_text("You are on the Pro plan · 10% fee · 3 agents (unlimited)")
    expect(page.locator("#plans-period")).to_contain_text("Renews on ")
    expect(page.locator("#plans-limit")).to_have_count(0)

    # Cancelling asks first and says when; the plan stays until then, and Keep Pro undoes it.
    page.click("#choose-free")
    expect(page.locator("#plan-confirm-text")).to_contain_text("Your Pro plan stays until ")
    expect(page.locator("#plan-confirm-text")).to_contain_text("You will then be on the Free plan.")
    shot(page, "vendor-plans-cancel-confirm")
    page.click("#plan-confirm")
    expect_toast(page, "Plan updated")
    expect(page.locator("#plans-period")).to_contain_text("Ends on ")
    expect(page.locator("#plan-pro #current-plan-badge")).to_be_visible()
    expect(page.locator("#choose-pro")).to_have_text("Keep Pro")
    page.click("#choose-pro")
    expect_toast(page, "Plan updated")
    expect(page.locator("#plans-period")).to_contain_text("Renews on ")

    # The dashboard's card shows Pro; the wizard opens at step 1.
    open_page(page, "/vendor")
    expect(page.locator("#plan-card-name")).to_have_text("Pro")
    expect(page.locator("#plan-card-fee")).to_have_text("10%")
    expect(page.locator("#plan-card-agents")).to_have_text("3 agents (unlimited)")
    expect(page.locator("#plan-card-period")).to_contain_text("Renews on ")
    shot(page, "vendor-plans-dashboard-card")
    page.click("#change-plan")
    expect(page).to_have_url(re.compile(r"/vendor/plans/?$"))
    open_page(page, "/vendor/add-agent")
    expect(page.locator("#wizard-heading")).to_have_text("Create New AI Agent")
    expect(page.locator("#wizard-limit")).to_have_count(0)

    # The Pro payment's receipt, issued by the marketplace, is linked from the plan page.
    open_page(page, "/vendor/plans")
    receipt = page.locator("#plan-payments .plan-receipt")
    expect(receipt).to_have_text(re.compile(r"^Receipt R-\d{6}$"))
    shown = page.request.get(receipt.get_attribute("href") or "")
    assert shown.status == 200 and "Pro plan: monthly" in shown.text() and "$29.00" in shown.text()
    expect_fits_phone(page, "#plan-options", "vendor-plans-phone")


def test_the_landing_page_shows_the_fee_an_admin_set(page: Page, browser: Browser, app_server: str,
                                                     commission_back: None) -> None:
    visitor = new_context(browser, base_url=app_server)
    try:
        landing = visitor.new_page()
        open_page(landing, "/")
        expect(landing.locator("#plan-free")).to_contain_text("20% transaction fee")  # the commission rate
        expect(landing.locator("#plan-free")).to_contain_text("Up to 3 agents")
        expect(landing.locator("#plan-pro")).to_contain_text("$29")
        expect(landing.locator("#plan-free-start")).to_have_attribute("href", "/vendor/plans")

        sign_in(page, *DEMO_ADMIN, api=True)
        open_page(page, "/admin/settings")
        page.fill("#plan-free-feePercent", "150")
        page.click("#save-plan-free")
        # The message names the fee and stands under its input (a toast named the commission rate, over it).
        error = page.locator("#plan-free-feePercent-error")
        expect(error).to_have_text("Fee must be a number from 0 to 100 with at most 2 decimals")
        expect(page.locator("#plan-free-feePercent")).to_be_focused()
        field_box, error_box = page.locator("#plan-free-feePercent").bounding_box(), error.bounding_box()
        assert field_box and error_box and error_box["y"] >= field_box["y"] + field_box["height"]
        shot(page, "plan-fee-error")
        page.set_viewport_size({"width": 390, "height": 844})
        expect(error).to_be_visible()
        shot(page, "plan-fee-error-phone")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.fill("#plan-free-feePercent", "17.5")
        page.click("#save-plan-free")
        expect_toast(page, "Plan updated", "The Free plan has been saved.")
        expect(page.locator("#commission-now")).to_contain_text("Now: 17.5% to the platform")  # one number
        shot(page, "vendor-plans-admin-settings")

        open_page(landing, "/")
        expect(landing.locator("#plan-free")).to_contain_text("17.5% transaction fee")
        landing.locator("#pricing-plans").scroll_into_view_if_needed()
        shot(landing, "vendor-plans-landing")
    finally:
        visitor.close()

    # Each vendor's plan in the Vendors table and its dialog (demo data: vendor on Pro, nova_labs on Free), and
    # what vendors paid for their plans in Sales & Commissions.
    open_page(page, "/admin?tab=vendors")
    page.fill("#vendors-search", "nova_labs")
    expect(page.locator(".vendor-row[data-username=nova_labs] .vendor-plan")).to_have_text("Free")
    page.fill("#vendors-search", "vendor")
    expect(page.locator(".vendor-row[data-username=vendor] .vendor-plan")).to_have_text("Pro")
    page.locator(".vendor-row[data-username=vendor] .view-vendor").click()
    expect(page.locator("#vendor-plan")).to_have_text("Pro")
    open_page(page, "/admin?tab=sales")
    expect(page.locator("#sales-plan-revenue")).not_to_have_text("$0.00")
    expect(page.locator("#plan-revenue-list")).to_contain_text("Pro")
    shot(page, "vendor-plans-admin-sales")
