"""The admin panel in a real browser: who may enter, the cards and tabs, deleting a customer with an order,
the commission rate, search and paging, the CSV export, and phone width.

Demo data relied on (marketplace/services/demo.py): 'admin' / 'admin123' is the only admin; the demo has
completed sales (so Sales & Commissions has rows) and approved agents with a price.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import (
    buy,
    dollars,
    expect_toast,
    open_page,
    phone,
    same_origin,
    sent_to_sign_in,
    shot,
    sign_in,
    sign_up,
    unique,
)

ADMIN_ONLY = "Admin access required. Redirecting..."
TAB_LABELS = ["Overview", "Customers", "Vendors", "Agents", "Applications", "Approvals", "Reports", "Refunds",
              "License Keys", "Analytics", "Stats", "Sales & Commissions", "Audit Log"]


def _admin_panel(page: Page, query: str = "") -> None:
    open_page(page, f"/admin{query}")
    expect(page.locator("#admin-area")).to_be_visible()


def _total(page: Page, path: str, **params: object) -> int:
    answer = page.request.get(path, params={"limit": 1, **params})
    assert answer.ok, answer.text()
    return int(answer.headers["x-total-count"])


def _origin(page: Page) -> str:
    return page.evaluate("location.origin")


def _set_rate(page: Page, value: str) -> None:
    """Through the API (test set-up and clean-up only)."""
    answer = page.request.put("/api/admin/settings/commissionRate", headers={"Origin": _origin(page)},
                              data={"value": value, "description": "Platform commission rate on each sale"})
    assert answer.ok, answer.text()


def test_signed_out_visitor_and_customer_are_sent_to_sign_in(page: Page) -> None:
    with sent_to_sign_in(page):
        open_page(page, "/admin")
        expect_toast(page, "Unauthorized", ADMIN_ONLY)
        expect(page.locator("#admin-denied")).to_be_visible()
        expect(page.locator("#admin-area")).to_have_count(0)
        shot(page, "admin-signed-out")
    expect(page).to_have_url(re.compile(r"/login/?$"))

    sign_up(page, "nosy")
    with sent_to_sign_in(page):
        open_page(page, "/admin?tab=customers")
        expect_toast(page, "Unauthorized", ADMIN_ONLY)
        expect(page.locator("#customers-table")).to_have_count(0)


def test_admin_sees_the_cards_and_every_tab_by_address_and_back(page: Page) -> None:
    sign_in(page, "admin", "admin123")
    customers = _total(page, "/api/admin/customers")
    vendors = page.request.get("/api/admin/vendors", params={"limit": 100}).json()
    agents = _total(page, "/api/admin/agents")
    sales = page.request.get("/api/admin/sales").json()
    applications = _total(page, "/api/admin/vendor-applications")
    pending = _total(page, "/api/admin/agents/pending")

    # The avatar menu leads here.
    open_page(page, "/")
    page.click("#avatar-menu")
    page.get_by_role("menuitem", name="Admin Panel").click()
    expect(page).to_have_url(re.compile(r"/admin/?$"))
    expect(page.get_by_role("heading", name="Admin Panel")).to_be_visible()
    expect(page.get_by_text("Manage customers, vendors, agents, and platform operations")).to_be_visible()

    expect(page.locator("#summary-customers-value")).to_have_text(str(customers))
    expect(page.locator("#summary-vendors-value")).to_have_text(str(sum(v["isVendorApproved"] for v in vendors)))
    expect(page.locator("#summary-agents-value")).to_have_text(str(agents))
    expect(page.locator("#summary-earnings-value")).to_have_text(dollars(sales['adminEarnings']))
    triggers = page.get_by_role("tab")
    expect(triggers).to_have_count(len(TAB_LABELS))
    for index, label in enumerate(TAB_LABELS):
        expect(triggers.nth(index)).to_contain_text(label)
    if applications:
        expect(page.locator("#tab-vendor-applications .tab-count").first).to_have_text(str(applications))
    if pending:
        expect(page.locator("#tab-agent-approvals .tab-count").first).to_have_text(str(pending))

    # Overview: the figures of the sales summary and the pending actions, red above zero.
    expect(page.locator("#overview-total-revenue")).to_have_text(dollars(sales['totalRevenue']))
    expect(page.locator("#overview-admin-commission")).to_have_text(dollars(sales['adminEarnings']))
    expect(page.locator("#overview-vendor-earnings")).to_have_text(dollars(sales['vendorEarnings']))
    expect(page.locator("#commission-rate")).to_have_text(sales["commissionRate"])
    expect(page.locator("#overview-total-sales")).to_have_text(f"{sales['totalSales']:,}")
    expect(page.locator("#overview-active-subscriptions")).to_have_text(f"{sales['activeSubscriptions']:,}")
    expect(page.locator("#overview-trialing-subscriptions")).to_have_text(f"{sales['trialingSubscriptions']:,}")
    expect(page.locator("#overview-mrr")).to_have_text(dollars(sales["monthlyRecurringRevenue"]))
    rows = page.locator(".pending-action")
    expect(rows).to_have_count(3)
    first_count = rows.first.locator(".pending-count")
    expect(first_count).to_have_text(str(applications))
    expect(first_count).to_have_attribute("data-red", "true" if applications else "false")
    shot(page, "admin-overview")

    # Cards and pending rows switch tabs; each switch is a history entry.
    page.click("#summary-customers")
    expect(page).to_have_url(re.compile(r"/admin/?\?tab=customers$"))
    expect(page.locator("#customers-table")).to_be_visible()
    page.click("#summary-earnings")
    expect(page).to_have_url(re.compile(r"\?tab=sales$"))
    expect(page.locator("#sales-overview")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(re.compile(r"\?tab=customers$"))
    expect(page.locator("#tab-customers")).to_have_attribute("data-state", "active")
    expect(page.locator("#customers-table")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(re.compile(r"/admin/?$"))
    expect(page.locator("#tab-overview")).to_have_attribute("data-state", "active")
    expect(page.locator("#platform-statistics")).to_be_visible()
    rows.nth(1).click()
    expect(page).to_have_url(re.compile(r"\?tab=agent-approvals$"))

    # Every tab has an address.
    for tab, marker in [("vendors", "#vendors-card"), ("agents", "#agents-table"), ("sales", "#recent-commissions"),
                        ("audit", "#audit-card"), ("vendor-applications", "#panel-vendor-applications"),
                        ("analytics", "#panel-analytics"), ("stats", "#panel-stats")]:
        _admin_panel(page, f"?tab={tab}")
        expect(page.locator(f"#tab-{tab}")).to_have_attribute("data-state", "active")
        expect(page.locator(marker)).to_be_visible()
    shot(page, "admin-stats")

    # Vendor and agent details.
    _admin_panel(page, "?tab=vendors")
    page.locator(".vendor-row[data-username=vendor] .view-vendor").click()
    dialog = page.locator("#vendor-details")
    expect(dialog.get_by_text("Vendor Details")).to_be_visible()
    expect(dialog.get_by_text("Approved", exact=True)).to_be_visible()
    expect(page.locator("#approve-vendor-now")).to_have_count(0)
    shot(page, "admin-vendor-details")
    dialog.get_by_role("button", name="Close").click()
    _admin_panel(page, "?tab=agents")
    page.locator(".agent-row .view-agent").first.click()
    expect(page.locator("#agent-details").get_by_text("Agent Details")).to_be_visible()
    expect(page.locator("#agent-details-price")).to_have_text(re.compile(r"(/month| one-time)$|^Free$"))
    shot(page, "admin-agent-details")


def test_admin_deletes_a_customer_with_an_order_and_the_commission_stays(page: Page) -> None:
    sign_in(page, "admin", "admin123", api=True)
    agent = next(a for a in page.request.get("/api/admin/agents", params={"limit": 50, "status": "approved"}).json()
                 if float(a["price"]) > 0)
    page.context.clear_cookies()
    buyer = sign_up(page, "leaver")
    buy(page, agent["id"])

    page.context.clear_cookies()
    sign_in(page, "admin", "admin123")
    _admin_panel(page, "?tab=customers")
    page.fill("#customers-search", buyer)
    row = page.locator(f".customer-row[data-username={buyer}]")
    expect(row).to_have_count(1)
    expect(page.locator(".customer-row")).to_have_count(1)
    row.locator(".view-customer").click()
    details = page.locator("#customer-details")
    expect(details.get_by_text(f"{buyer}@example.com")).to_be_visible()
    details.get_by_role("button", name="Close").click()

    row.locator(".delete-customer").click()
    confirm = page.locator("#delete-customer-dialog")
    expect(confirm.get_by_text("Are you sure you want to delete this customer? This action cannot be undone.",
                               exact=False)).to_be_visible()
    shot(page, "admin-delete-customer")
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_have_count(0)
    expect(row).to_have_count(1)
    row.locator(".delete-customer").click()
    page.click("#delete-customer-dialog-confirm")
    expect_toast(page, "User deleted", "The user has been successfully deleted.")
    expect(row).to_have_count(0)
    expect(page.locator("#customers-empty").get_by_text("No customers match your search")).to_be_visible()

    # The sale and its commission stay.
    _admin_panel(page, "?tab=sales")
    entry = page.locator(".commission-row").filter(has=page.get_by_text(f"{buyer}@example.com", exact=True))
    expect(entry).to_have_count(1)
    expect(entry.get_by_text(agent["name"], exact=True)).to_be_visible()
    [listed] = page.request.get("/api/admin/commissions", params={"search": buyer}).json()
    kinds = {"purchase": "Purchase", "subscription": "Subscription", "renewal": "Renewal"}
    expect(entry.locator(".order-kind")).to_have_text(kinds[listed["kind"]])  # what the charge was for
    expect(entry.locator(".order-refunded")).to_have_count(0)
    shot(page, "admin-sales")

    # The audit log has the deletion.
    _admin_panel(page, "?tab=audit")
    expect(page.locator(".audit-row").first).to_be_visible()
    expect(page.locator(".audit-row").filter(has_text=re.compile("delete", re.I)).first).to_be_visible()
    shot(page, "admin-audit-log")


def test_admin_edits_the_commission_rate_inline(page: Page) -> None:
    sign_in(page, "admin", "admin123")
    before = page.request.get("/api/admin/sales").json()["commissionRate"]
    try:
        _admin_panel(page, "?tab=overview")
        expect(page.locator("#commission-rate")).to_have_text(before)
        page.click("#edit-commission-rate")
        rate_input = page.locator("#commission-rate-input")
        expect(rate_input).to_have_value(before.rstrip("%"))
        expect(rate_input).to_have_attribute("min", "0")
        expect(rate_input).to_have_attribute("max", "100")

        page.click("#cancel-commission-rate")  # cancel discards
        expect(page.locator("#commission-rate")).to_have_text(before)

        page.click("#edit-commission-rate")
        rate_input.fill("")
        page.click("#confirm-commission-rate")
        expect_toast(page, "Invalid value", "Please enter a valid number for commission rate")
        expect(rate_input).to_be_visible()  # still editing
        shot(page, "admin-commission-invalid")

        rate_input.fill("15")
        page.click("#confirm-commission-rate")
        expect_toast(page, "Commission rate updated", "The commission rate has been successfully updated.")
        expect(page.locator("#commission-rate")).to_have_text("15%")
        assert page.request.get("/api/admin/sales").json()["commissionRate"] == "15%"

        # The same setting on the Sales tab, editable there too.
        _admin_panel(page, "?tab=sales")
        expect(page.locator("#commission-settings #commission-rate")).to_have_text("15%")
        expect(page.get_by_text("Platform commission on each sale", exact=True)).to_be_visible()
        page.click("#edit-commission-rate")
        page.locator("#commission-rate-input").fill("17.5")
        page.locator("#commission-rate-input").press("Enter")
        expect_toast(page, "Commission rate updated", "The commission rate has been successfully updated.")
        expect(page.locator("#commission-rate")).to_have_text("17.5%")
    finally:
        _set_rate(page, before)


def test_admin_searches_and_pages_the_customers(page: Page) -> None:
    prefix = unique("pg")
    for index in range(22):
        answer = page.request.post("/api/register", data={
            "username": f"{prefix}{index:02d}", "email": f"{prefix}{index:02d}@example.com", "password": "secret123"},
            headers=same_origin(page))
        assert answer.status == 201, answer.text()
    page.context.clear_cookies()
    sign_in(page, "admin", "admin123")
    _admin_panel(page, "?tab=customers")
    expect(page.locator(".customer-row").first).to_be_visible()
    page.fill("#customers-search", prefix)
    expect(page.locator("#customers-pager-range")).to_have_text("Showing 1-20 of 22")
    expect(page.locator(".customer-row")).to_have_count(20)
    expect(page.locator("#customers-pager-previous")).to_be_disabled()
    expect(page.locator(".customer-row").first).to_have_attribute("data-username", f"{prefix}21")  # newest first
    page.click("#customers-pager-next")
    expect(page.locator("#customers-pager-range")).to_have_text("Showing 21-22 of 22")
    expect(page.locator(".customer-row")).to_have_count(2)
    expect(page.locator("#customers-pager-next")).to_be_disabled()
    shot(page, "admin-customers-page-2")
    page.click("#customers-pager-previous")
    expect(page.locator("#customers-pager-range")).to_have_text("Showing 1-20 of 22")
    page.fill("#customers-search", f"{prefix}07")
    expect(page.locator("#customers-pager-range")).to_have_text("Showing 1-1 of 1")
    page.fill("#customers-search", unique("nobody"))
    expect(page.locator("#customers-empty")).to_be_visible()


def test_admin_exports_the_commissions_as_csv(page: Page) -> None:
    sign_in(page, "admin", "admin123")
    _admin_panel(page, "?tab=sales")
    expect(page.locator(".commission-row").first).to_be_visible()
    total = _total(page, "/api/admin/commissions")
    shown = min(10, total)
    expect(page.locator(".commission-row")).to_have_count(shown)
    if total > 10:
        expect(page.locator("#more-commissions")).to_have_text(f"And {total - 10} more commission entries...")
    link = page.locator("#export-commissions")
    expect(link).to_have_attribute("href", "/api/admin/commissions.csv")
    answer = page.request.get(link.get_attribute("href") or "")
    assert answer.ok, answer.text()
    assert answer.headers["content-type"].startswith("text/csv"), answer.headers
    lines = answer.text().strip().splitlines()
    assert len(lines) == total + 1, (len(lines), total)  # a header line, then one line per entry
    with page.expect_download() as download:
        link.click()
    assert download.value.suggested_filename.endswith(".csv")


def test_admin_panel_at_phone_width(page: Page) -> None:
    sign_in(page, "admin", "admin123")
    phone(page)
    for tab in ("overview", "customers", "agents", "sales"):
        _admin_panel(page, f"?tab={tab}")
        expect(page.locator(f"#panel-{tab}")).to_be_visible()
        if tab == "overview":
            expect(page.locator("#platform-statistics")).to_be_visible()
        else:
            expect(page.locator(f"#panel-{tab} table").first).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"/admin?tab={tab} scrolls sideways at phone width ({width}px)"
        shot(page, f"admin-{tab}-phone")
    # The tabs are one select on a phone: the last tab is in it and opens (tests/e2e/test_phone_lists.py by touch).
    page.click("#tab-select")
    page.get_by_role("option", name="Audit Log").click()
    expect(page).to_have_url(re.compile(r"\?tab=audit$"))
    expect(page.locator("#audit-card")).to_be_visible()
    shot(page, "admin-audit-phone")
