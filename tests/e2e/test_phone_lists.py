"""At 390x844 by touch: every tab bar is one select showing the open tab (also when opened by its address), and
every table shows its rows as cards whose key figures and actions fit the screen (no sideways scrolling); at
1280 px the same pages keep their one row of tabs and their tables.

The tables come from one builder (components/data_table.py): the cards are checked on the customer dashboard's
tabs, the admin's tables (customers, vendors, agents, commissions, reports, audit log) and the vendor's sales and
payouts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.conftest import new_context
from tests.e2e.helpers import PASSWORD, PHONE, api_client, expect_toast, open_page, shot, sign_in, sign_up, unique


@pytest.fixture
def touch(browser: Browser, app_server: str) -> Iterator[Page]:
    """A phone: 390x844, touch events, a mobile viewport."""
    context = new_context(browser, base_url=app_server, viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def _within_screen(locator: Locator, what: str) -> None:
    box = locator.bounding_box()
    assert box is not None, f"{what} has no box"
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], f"{what} leaves the screen: {box}"


def _no_sideways_scroll(page: Page, name: str) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name}: the page scrolls sideways ({width}px)"


def _pick_tab(page: Page, select: str, label: str) -> None:
    """Open the tab select by touch and choose `label`."""
    page.locator(select).tap()
    page.get_by_role("option", name=re.compile(rf"^{re.escape(label)}")).tap()


def _expect_tab_select(page: Page, select: str, label: str) -> None:
    """The select names the open tab; the row of tab triggers is not shown on a phone."""
    expect(page.locator(select)).to_be_visible()
    expect(page.locator(select)).to_contain_text(label)
    _within_screen(page.locator(select), select)
    expect(page.get_by_role("tablist").first).to_be_hidden()


def _expect_cards(page: Page, table: str, figures: list[str], actions: str | None, name: str) -> Locator:
    """The first row of `table` is a card within the screen: its title, each of `figures` (column headers) with
    its label, and its `actions`; the header row and the columns marked extra are not shown."""
    row = page.locator(f"{table} tbody tr").first
    expect(row).to_be_visible()
    expect(page.locator(f"{table} thead")).to_be_hidden()
    _within_screen(row, f"{table}'s first card")
    title = row.locator("[data-cell=title]")
    expect(title).to_be_visible()
    _within_screen(title, f"{table}'s card title")
    for label in figures:
        cell = row.locator(f"td[data-label='{label}']")
        expect(cell).to_be_visible()
        _within_screen(cell, f"{table}'s {label}")
        # The label is shown beside the value (the cell's ::before), as the header row is not.
        assert cell.evaluate("el => getComputedStyle(el, '::before').content") == f'"{label}"'
    for extra in row.locator("[data-cell=extra]").all():
        expect(extra).to_be_hidden()
    if actions is not None:
        for button in row.locator(actions).all():
            expect(button).to_be_visible()
            _within_screen(button, f"{table}'s action")
    _no_sideways_scroll(page, name)
    shot(page, name)
    return row


def test_customer_dashboard_tabs_on_a_phone(touch: Page) -> None:
    sign_up(touch, "phonetabs")
    # Opened by its address, the Account tab is the one the select shows.
    open_page(touch, "/dashboard?tab=account")
    expect(touch.locator("#panel-account")).to_be_visible()
    _expect_tab_select(touch, "#tab-select", "Account")
    _no_sideways_scroll(touch, "phone-dashboard-account")
    shot(touch, "phone-dashboard-account")
    # Every tab is in the list, and choosing one opens it.
    touch.locator("#tab-select").tap()
    expect(touch.get_by_role("option")).to_have_text(
        ["My Agents", "Favorites", "Order History", "Profile", "Payment", "Account"])
    touch.get_by_role("option", name="Order History").tap()
    expect(touch.locator("#panel-orders")).to_be_visible()
    expect(touch.locator("#panel-account")).to_be_hidden()
    _expect_tab_select(touch, "#tab-select", "Order History")

    # At desktop width: the one row of tabs, the open one selected, and no select.
    touch.set_viewport_size({"width": 1280, "height": 800})
    expect(touch.locator("#tab-select")).to_be_hidden()
    tabs = touch.get_by_role("tab")
    expect(tabs).to_have_count(6)
    assert len({round(tabs.nth(i).bounding_box()["y"]) for i in range(6)}) == 1, "the tabs wrap"
    expect(touch.locator("#tab-orders")).to_have_attribute("aria-selected", "true")


def test_admin_tabs_and_tables_on_a_phone(touch: Page, app_server: str) -> None:
    # A report to review by touch (its move leaves an entry in the audit log).
    agent = touch.request.get("/api/agents", params={"limit": 1}).json()[0]
    reason = unique("Phone report ")
    with api_client(app_server) as reporter:
        name = unique("phonereporter")
        assert reporter.post("/api/register", json={"username": name, "email": f"{name}@example.com",
                                                    "password": PASSWORD}).status_code == 201
        assert reporter.post(f"/api/agents/{agent['id']}/report", json={
            "reportType": "spam", "reason": reason, "description": "Seen on a phone."}).status_code == 201
    sign_in(touch, "admin", "admin123", api=True)

    open_page(touch, "/admin?tab=customers")
    _expect_tab_select(touch, "#tab-select", "Customers")
    _expect_cards(touch, "#customers-table", ["Email", "Role", "Joined"], ".view-customer, .delete-customer",
                  "phone-admin-customers")
    # A card's action works by touch: View opens the person's details.
    touch.locator("#customers-table .view-customer").first.tap()
    expect(touch.locator("#customer-details")).to_be_visible()
    touch.get_by_role("button", name="Close").tap()
    expect(touch.locator("#customer-details")).to_have_count(0)

    # Switching tabs by the select goes to the tab's address.
    _pick_tab(touch, "#tab-select", "Vendors")
    expect(touch).to_have_url(re.compile(r"\?tab=vendors$"))
    _expect_tab_select(touch, "#tab-select", "Vendors")
    _expect_cards(touch, "#vendors-table", ["Email", "Status", "Agents", "Joined"], ".view-vendor, .delete-vendor",
                  "phone-admin-vendors")

    _pick_tab(touch, "#tab-select", "Agents")
    expect(touch).to_have_url(re.compile(r"\?tab=agents$"))
    _expect_cards(touch, "#agents-table", ["Vendor", "Price", "Status", "Created"], ".view-agent, .delete-agent",
                  "phone-admin-agents")

    _pick_tab(touch, "#tab-select", "Sales & Commissions")
    _expect_cards(touch, "#commissions-table", ["Sale Amount", "Your Commission", "Vendor Payout", "Date"], None,
                  "phone-admin-commissions")

    _pick_tab(touch, "#tab-select", "Reports")
    expect(touch).to_have_url(re.compile(r"\?tab=reports$"))
    expect(touch.locator(".report-row").filter(has_text=reason)).to_be_visible()
    _expect_cards(touch, "#reports-table", ["Agent", "Status", "Reported"], ".mark-reviewed, .resolve-report",
                  "phone-admin-reports")
    touch.locator(".report-row").filter(has_text=reason).locator(".mark-reviewed").tap()
    expect_toast(touch, "Report updated", "The report has been marked as reviewed.")

    # The last tab, opened by its address, is the one the select shows.
    open_page(touch, "/admin?tab=audit")
    _expect_tab_select(touch, "#tab-select", "Audit Log")
    row = _expect_cards(touch, "#audit-table", ["Time", "Actor"], None, "phone-admin-audit")
    expect(row.locator("[data-cell=title]")).to_contain_text("report")

    # The approvals' sub-tabs are a select too.
    _pick_tab(touch, "#tab-select", "Approvals")
    _expect_tab_select(touch, "#approvals-subtab-select", "Pending")
    _pick_tab(touch, "#approvals-subtab-select", "Rejected")
    _expect_tab_select(touch, "#approvals-subtab-select", "Rejected")
    _no_sideways_scroll(touch, "phone-admin-approvals")

    # At desktop width the admin's thirteen tabs are one row and the tables are tables again.
    touch.set_viewport_size({"width": 1280, "height": 800})
    open_page(touch, "/admin?tab=customers")
    expect(touch.locator("#tab-select")).to_be_hidden()
    tabs = touch.get_by_role("tablist").first.get_by_role("tab")
    expect(tabs).to_have_count(13)
    assert len({round(tabs.nth(i).bounding_box()["y"]) for i in range(13)}) == 1, "the admin tabs wrap at 1280"
    expect(touch.locator("#tab-customers")).to_have_attribute("aria-selected", "true")
    expect(touch.locator("#customers-table thead")).to_be_visible()
    row = touch.locator("#customers-table tbody tr").first
    assert row.evaluate("el => getComputedStyle(el).display") == "table-row"
    expect(row.locator("[data-cell=extra]")).to_be_visible()  # Username, a column on a wide screen


def test_vendor_tabs_sales_and_payouts_on_a_phone(touch: Page) -> None:
    sign_in(touch, "vendor", "vendor123", api=True)
    open_page(touch, "/vendor?tab=notifications")
    _expect_tab_select(touch, "#tab-select", "Notifications")
    _pick_tab(touch, "#tab-select", "Dashboard")
    expect(touch).to_have_url(re.compile(r"\?tab=dashboard$"))
    _expect_tab_select(touch, "#tab-select", "Dashboard")
    # The earnings show on every sale's card.
    row = _expect_cards(touch, "#sales-table", ["Customer", "Date", "Total", "Your earnings"], None,
                        "phone-vendor-sales")
    expect(row.locator("td[data-label='Your earnings']")).to_contain_text(re.compile(r"\d+\.\d\d"))
    _expect_cards(touch, "#payouts-table", ["Status", "Arrival", "Created"], None, "phone-vendor-payouts")

    touch.set_viewport_size({"width": 1280, "height": 800})
    expect(touch.locator("#sales-table thead")).to_be_visible()
    expect(touch.get_by_role("tab")).to_have_count(3)  # Dashboard, Notifications, Webhooks
    expect(touch.locator("#tab-dashboard")).to_have_attribute("aria-selected", "true")
