"""The vendor area in a real browser: apply, the demo vendor's dashboard, Stripe onboarding, notifications, a sale.

Demo data relied on (marketplace/services/demo.py, scripts/run.sh): 'vendor' has a connected, ready Stripe
account with payouts in the stand-in (paid, pending, in_transit, failed), past split and direct sales, agents
approved, pending and rejected (with a reason), and at least two unread notifications; 'nova_labs' has no
Stripe account.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.helpers import (
    api_client,
    buy,
    dollars,
    expect_fits_phone,
    expect_toast,
    open_page,
    phone,
    same_origin,
    sent_to_sign_in,
    shot,
    sign_in,
    sign_up,
    unique,
    wait_for_scans,
)

LOGGED_OUT = "You are logged out. Logging in again..."
AGENT_FILE = b"def run(task: str) -> str:\n    return task\n"


def _vendor_dashboard(page: Page, query: str = "") -> None:
    open_page(page, f"/vendor{query}")
    expect(page.locator("#vendor-area")).to_be_visible()
    expect(page.locator("#stat-total-earnings")).to_be_visible()  # figures loaded


def test_signed_out_visitor_is_told_and_sent_to_sign_in(page: Page) -> None:
    with sent_to_sign_in(page):
        open_page(page, "/vendor")
        expect_toast(page, "Unauthorized", LOGGED_OUT)
        expect(page.locator("#vendor-signed-out")).to_be_visible()
        shot(page, "vendor-signed-out")
    expect(page).to_have_url(re.compile(r"/login/?$"))
    expect(page.locator("#sign-in")).to_be_visible()


def test_customer_applies_and_sees_the_pending_application(page: Page) -> None:
    sign_up(page, "applicant")
    open_page(page, "/vendor")
    form = page.locator("#vendor-application")
    expect(form.get_by_role("heading", name="Become a Vendor")).to_be_visible()
    expect(page.locator("#website")).to_have_attribute("type", "url")
    shot(page, "vendor-apply-form")

    page.click("#submit-application")
    expect(page.locator("#businessName-error")).to_have_text("Business name is required")
    page.fill("#businessName", "Tiny Robots Ltd")
    page.fill("#website", "not a url")
    page.click("#submit-application")
    expect(page.locator("#website-error")).to_have_text("Website must be a valid http(s) URL")
    expect(page.locator("#businessName-error")).to_have_count(0)
    shot(page, "vendor-apply-errors")

    page.fill("#businessDescription", "Agents that sort your inbox.")
    page.fill("#website", "https://tiny-robots.example")
    page.click("#submit-application")
    expect_toast(page, "Application submitted", "We will review your application within 24 hours.")
    pending = page.locator("#application-pending")
    expect(pending.get_by_text("Pending review")).to_be_visible()
    expect(page.locator("#application-business")).to_have_text("Tiny Robots Ltd")
    expect(page.locator("#application-date")).to_have_text(re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4}$"))
    expect(pending.get_by_text(re.compile("within 24 hours"))).to_be_visible()
    shot(page, "vendor-apply-pending")

    # The same view on /vendor/apply and on a later visit; the form is gone while the application waits.
    open_page(page, "/vendor/apply")
    expect(page.locator("#application-business")).to_have_text("Tiny Robots Ltd")
    expect(page.locator("#vendor-application")).to_have_count(0)
    phone(page)
    shot(page, "vendor-apply-pending-phone")
    application = page.request.get("/api/vendor/application").json()
    assert application["status"] == "pending" and application["businessName"] == "Tiny Robots Ltd"


def test_application_filed_meanwhile_is_refused_with_the_servers_message(page: Page) -> None:
    sign_up(page, "twice")
    open_page(page, "/vendor/apply")
    expect(page.locator("#vendor-application")).to_be_visible()
    origin = page.evaluate("location.origin")
    first = page.request.post("/api/vendor/apply", data={"businessName": "First Try"}, headers={"Origin": origin})
    assert first.ok, first.text()
    page.fill("#businessName", "Second Try")
    page.click("#submit-application")
    expect_toast(page, "Error", "You already have a pending vendor application")
    open_page(page, "/vendor/apply")
    expect(page.locator("#application-business")).to_have_text("First Try")


def test_demo_vendor_dashboard_shows_figures_chart_payouts_sales_and_agents(page: Page) -> None:
    sign_in(page, "vendor", "vendor123")
    figures = page.request.get("/api/vendor/analytics").json()
    sales = page.request.get("/api/vendor/sales", params={"limit": 8})
    total_sales = int(sales.headers["x-total-count"])
    _vendor_dashboard(page)

    expect(page.locator("#stat-total-earnings")).to_have_text(dollars(figures['totalVendorEarnings']))
    expect(page.locator("#stat-total-revenue")).to_have_text(dollars(figures['totalRevenue']))
    expect(page.locator("#stat-month-earnings")).to_have_text(dollars(figures['thisMonthEarnings']))
    expect(page.locator("#stat-month-revenue")).to_have_text(dollars(figures['thisMonthRevenue']))
    expect(page.locator("#stat-total-sales")).to_have_text(f"{figures['totalSales']:,}")
    expect(page.locator("#stat-approved-agents")).to_have_text(str(figures["approvedAgents"]))
    expect(page.locator("#stat-approved-agents-caption")).to_contain_text(f"of {figures['totalAgents']} total")
    vendor_share = 100 - float(figures["commissionRate"])
    expect(page.locator("#vendor-share")).to_have_text(f"Vendor share {vendor_share:g}%")
    expect(page.locator("#platform-fee")).to_have_text(f"Platform fee {float(figures['commissionRate']):g}%")
    expect(page.locator("#add-agent")).to_have_attribute("href", "/vendor/add-agent")
    with page.expect_download() as download:  # the browser fetches the file, not a client-side route
        page.click("#download-csv")
    assert Path(download.value.path()).read_text().startswith("order_id,created_at,agent,")

    # Chart: bars for the last 30 days, then by month.
    chart = page.locator("#earnings-chart")
    expect(chart.locator(".recharts-bar-rectangle").first).to_be_attached()
    expect(chart.get_by_text("Vendor share ($)")).to_be_visible()
    expect(chart.get_by_text("Platform fee ($)")).to_be_visible()
    page.click("#period-month")
    expect(page.locator("#period-month")).to_have_class(re.compile("rt-variant-solid"))
    expect(chart.locator(".recharts-xAxis .recharts-cartesian-axis-tick")).not_to_have_count(0)
    expect(page.locator("#chart-sales")).to_have_text(re.compile(r"^\d+ sales in this period$"))
    # The tooltip names amounts as money ('$6.00'), never as the bare numbers the bars are drawn from.
    chart.locator(".recharts-wrapper").hover()  # any point of the plot shows its period's amounts
    values = chart.locator(".recharts-tooltip-wrapper .recharts-tooltip-item-value")
    expect(values).to_have_count(2)
    for i in range(2):
        expect(values.nth(i)).to_have_text(re.compile(r"^\$\d[\d,]*\.\d\d$"))
    shot(page, "vendor-chart-tooltip")

    # Payment setup and payouts from the stand-in.
    expect(page.locator("#payment-state")).to_have_text("Ready")
    rows = page.locator(".payout-row")
    expect(rows.first).to_be_visible()
    assert rows.count() <= 5
    statuses = {rows.nth(i).get_attribute("data-status") for i in range(rows.count())}
    assert {"paid", "pending", "in_transit", "failed"} <= statuses, statuses
    expect(rows.first.get_by_text("Bank Transfer")).to_be_visible()
    expect(page.locator(".payout-row[data-status=failed] td").last).not_to_be_empty()  # the failure message

    # Recent sales: 8 rows and the total.
    expect(page.locator(".sale-row")).to_have_count(min(8, total_sales))
    expect(page.locator("#sales-count")).to_have_text(f"Showing {min(8, total_sales)} of {total_sales} sales")
    newest = sales.json()[0]
    first = page.locator(".sale-row").first
    expect(first).to_have_attribute("data-order", newest["orderId"])
    expect(first.get_by_text(newest["customerEmail"])).to_be_visible()
    expect(first.get_by_text(re.compile(r"^(Split \d+(\.\d+)?/\d+(\.\d+)?|Direct)$"))).to_be_visible()

    # Own agents with their status badges, the rejected one with its reason.
    agents = page.locator(".vendor-agent")
    for status in ("approved", "pending", "rejected"):
        expect(agents.and_(page.locator(f"[data-status={status}]")).first).to_be_visible()
    rejected = page.locator(".vendor-agent[data-status=rejected]").first
    expect(rejected.locator(".rejection-reason")).to_have_text(re.compile(r"^Reason: .+"))

    # Track record.
    record = page.locator("#track-record")
    expect(record.get_by_text("Loading vendor stats...")).to_have_count(0)
    expect(page.locator("#approval-rate")).to_have_text(re.compile(r"^\d{1,3}%$"))
    expect(page.locator("#quality-score")).to_have_text(re.compile(r"^[01]\.\d\d$"))
    expect(page.locator("#verified")).to_be_visible()
    expect(page.locator("#payouts-enabled")).to_have_text("Payouts enabled")  # Stripe's say, not the record's
    shot(page, "vendor-dashboard")

    expect_fits_phone(page, "#vendor-area", "vendor-dashboard-phone")


def test_second_vendor_connects_stripe_through_the_onboarding_page(page: Page) -> None:
    sign_in(page, "nova_labs", "vendor123")
    _vendor_dashboard(page)
    expect(page.locator("#payment-state")).to_have_text("Not connected")
    expect(page.locator("#payouts-empty").get_by_text("No payouts yet")).to_be_visible()
    shot(page, "vendor-stripe-not-connected")
    page.get_by_role("button", name="Connect Stripe").click()
    expect(page.get_by_role("heading", name="Set up payouts")).to_be_visible()
    shot(page, "vendor-stripe-onboarding")
    page.get_by_role("button", name="Complete onboarding").click()
    expect(page).to_have_url(re.compile(r"/vendor/?\?stripe=return$"))
    page.locator("#hydrated").wait_for(state="attached")
    expect(page.locator("#payment-state")).to_have_text("Ready")
    shot(page, "vendor-stripe-ready")
    status = page.request.get("/api/vendor/stripe/account-status").json()
    assert status["connected"] and not status["requiresAction"], status


def test_notifications_mark_read_and_delete(page: Page) -> None:
    sign_in(page, "vendor", "vendor123")
    _vendor_dashboard(page)
    page.click("#tab-notifications")
    expect(page).to_have_url(re.compile(r"/vendor/?\?tab=notifications$"))
    items = page.locator(".notification")
    expect(items.first).to_be_visible()
    unread = page.locator(".notification[data-read=false]")
    expect(unread.first).to_be_visible()
    # The tab counts every unread one; the list shows the newest 50 (the demo vendor has more than that).
    every = page.request.get("/api/notifications", params={"limit": 200}).json()
    count = sum(1 for n in every if not n["isRead"])
    assert count >= 2, "the demo vendor needs two unread notifications"
    tab_count = page.locator("#tab-notifications .tab-count").first
    expect(tab_count).to_have_text(str(count))
    first = unread.first
    expect(first.locator(".new-badge")).to_have_text("New")
    expect(page.locator(".notification[data-read=true] .mark-read")).to_have_count(0)
    shot(page, "vendor-notifications")

    # Gone on the server (another tab deleted it): both actions say they failed.
    gone_id = first.get_attribute("data-id")
    origin = page.evaluate("location.origin")
    assert page.request.delete(f"/api/notifications/{gone_id}", headers={"Origin": origin}).ok
    gone = page.locator(f".notification[data-id='{gone_id}']")
    gone.locator(".mark-read").click()
    expect_toast(page, "Error", "Failed to mark notification as read")
    gone.locator(".delete-notification").click()
    expect_toast(page, "Error", "Failed to delete notification")

    target = page.locator(".notification[data-read=false]").nth(1)
    target_id = target.get_attribute("data-id")
    row = page.locator(f".notification[data-id='{target_id}']")
    row.locator(".mark-read").click()
    expect(row).to_have_attribute("data-read", "true")
    expect(row.locator(".new-badge")).to_have_count(0)
    expect(row.locator(".mark-read")).to_have_count(0)
    expect(tab_count).to_have_text(str(count - 1))  # the failed attempts on the vanished one changed nothing
    row.locator(".delete-notification").click()
    expect(row).to_have_count(0)

    # A fresh visit by address shows the tab with what is left.
    open_page(page, "/vendor?tab=notifications")
    expect(page.locator(f".notification[data-id='{target_id}']")).to_have_count(0)
    expect(page.locator(f".notification[data-id='{gone_id}']")).to_have_count(0)
    expect_fits_phone(page, "#vendor-area", "vendor-notifications-phone")


def test_a_customers_purchase_appears_in_the_vendors_recent_sales(page: Page) -> None:
    sign_in(page, "vendor", "vendor123")
    agent = next(a for a in page.request.get("/api/vendor/agents").json() if a["status"] == "approved"
                 and float(a["price"]) > 0)
    before = int(page.request.get("/api/vendor/sales", params={"limit": 1}).headers["x-total-count"])
    _vendor_dashboard(page)
    chart_before = int(page.locator("#chart-sales").inner_text().split()[0])

    page.context.clear_cookies()
    buyer = sign_up(page, "fan")
    buy(page, agent["id"])

    page.context.clear_cookies()
    sign_in(page, "vendor", "vendor123")
    _vendor_dashboard(page)
    first = page.locator(".sale-row").first
    expect(first.get_by_text(agent["name"], exact=True)).to_be_visible()
    expect(first.get_by_text(f"{buyer}@example.com")).to_be_visible()
    expect(page.locator("#sales-count")).to_have_text(f"Showing 8 of {before + 1} sales")
    expect(page.locator("#chart-sales")).to_have_text(f"{chart_before + 1} sales in this period")
    shot(page, "vendor-new-sale")
    expect_fits_phone(page, "#vendor-area", "vendor-new-sale-phone")


def _fresh_vendor(page: Page, admin: httpx.Client) -> str:
    """A new customer who applied and was approved as a vendor; the page's context is signed in as them."""
    username = sign_up(page, "seller")
    applied = page.request.post("/api/vendor/apply", headers=same_origin(page), data={
        "businessName": f"{username} Ltd", "businessDescription": "Agents for the payment-card test.",
        "website": "https://seller.example"})
    assert applied.status == 201, applied.text()
    user_id = page.request.get("/api/auth/user").json()["id"]
    assert admin.post(f"/api/admin/vendor/{user_id}/approve").status_code == 200
    return username


def _live_agent(page: Page, admin: httpx.Client, name: str) -> str:
    """An agent of the page's vendor with one file, approved by the admin."""
    origin = same_origin(page)
    category = page.request.get("/api/categories").json()[0]["id"]
    draft = {"name": name, "shortDescription": f"{name} for the dashboard test", "price": "12.00",
             "categoryId": category, "description": f"{name} sorts and answers. Built for the dashboard test.",
             "tags": ["e2e"]}
    created = page.request.post("/api/vendor/agents", headers=origin, data=draft)
    assert created.status == 201, created.text()
    agent_id = created.json()["id"]
    url = page.request.post("/api/objects/upload", headers=origin,
                            params={"filename": "agent.py", "type": "text/x-python"}).json()["uploadURL"]
    assert page.request.put(url, data=AGENT_FILE, headers={**origin, "Content-Type": "text/x-python"}).ok
    assert page.request.put("/api/agent-files", headers=origin,
                            data={"agentId": agent_id, "agentFileURL": url}).ok
    wait_for_scans(admin, agent_id)
    assert admin.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
    return agent_id


def test_new_vendor_sees_no_grade_then_what_stripe_needs_then_pending_verification(page: Page,
                                                                                   app_server: str) -> None:
    with api_client(app_server) as admin:
        admin.post("/api/login", json={"username": "admin", "password": "admin123"}).raise_for_status()
        _fresh_vendor(page, admin)
        _vendor_dashboard(page)

        # Nothing submitted: no failing grade, no red score.
        record = page.locator("#track-record")
        expect(record.locator("#no-submissions").get_by_text("No submissions yet")).to_be_visible()
        expect(record.locator("#quality-score")).to_have_count(0)
        expect(record.locator("#approval-rate")).to_have_count(0)
        shot(page, "vendor-new-no-submissions")
        expect_fits_phone(page, "#track-record", "vendor-new-no-submissions-phone")
        page.set_viewport_size({"width": 1280, "height": 800})

        # Onboarding left unfinished: the card names what Stripe still needs.
        page.get_by_role("button", name="Connect Stripe").click()
        page.get_by_role("button", name="Save and exit without finishing").click()
        expect(page).to_have_url(re.compile(r"/vendor/?\?stripe=return$"))
        expect(page.locator("#payment-state")).to_have_text("Action required")
        expect(page.locator("#requirements-due").get_by_text("Bank account for payouts", exact=True)).to_be_visible()
        expect(page.locator("#payouts-enabled")).to_have_text("Payouts not enabled yet")
        shot(page, "vendor-stripe-needs-action")

        # Details sent, the bank account still being verified: nothing to do, and how long it takes.
        page.get_by_role("button", name="Complete setup").click()
        page.get_by_role("button", name="Submit details (payouts pending verification)").click()
        expect(page).to_have_url(re.compile(r"/vendor/?\?stripe=return$"))
        card = page.locator("#payment-setup")
        expect(card.locator("#payment-state")).to_have_text("Pending verification")
        expect(card.locator("#verification-note")).to_contain_text("1-2 business days")
        expect(card.locator("#verification-note")).to_contain_text("nothing you need to do")
        expect(card.get_by_text("Action required")).to_have_count(0)
        expect(card.locator("#requirements-due")).to_have_count(0)
        expect(card.get_by_role("button", name="Complete setup")).to_have_count(0)
        expect(card.locator("#charges-enabled")).to_have_text("Charges enabled")
        expect(card.locator("#payouts-enabled")).to_have_text("Payouts pending verification")
        # The track record's 'Verified' is another thing, and says what it rests on.
        expect(page.locator("#verified")).to_have_text("Not verified yet")
        expect(page.locator("#verified-rule")).to_contain_text("Payouts are a separate step")
        shot(page, "vendor-stripe-pending-verification")
        expect_fits_phone(page, "#payment-setup", "vendor-stripe-pending-verification-phone")
        page.set_viewport_size({"width": 1280, "height": 800})

        # A live agent whose edits were rejected says so on its own row, not only in a notification.
        name = unique("Ledger ")
        agent_id = _live_agent(page, admin, name)
        edited = page.request.put(f"/api/vendor/agents/{agent_id}", headers=same_origin(page), data={
            "name": f"{name} Pro", "shortDescription": f"{name} for the dashboard test", "price": "15.00",
            "categoryId": page.request.get("/api/categories").json()[0]["id"],
            "description": f"{name} sorts and answers. Built for the dashboard test.", "tags": ["e2e"]})
        assert edited.ok, edited.text()
        rejected = admin.post(f"/api/admin/agents/{agent_id}/reject", json={"rejectionReason": "Price not justified"})
        assert rejected.status_code == 200, rejected.text
        _vendor_dashboard(page)
        row = page.locator(f".vendor-agent[data-agent='{name}']")
        expect(row).to_have_attribute("data-status", "approved")
        expect(row.locator(".revision-rejected-badge")).to_have_text("changes rejected")
        expect(row.locator(".revision-rejection")).to_have_text(
            "Your latest changes were rejected; the live listing is unchanged. Reason: Price not justified")
        expect(page.locator("#quality-score")).to_be_visible()  # one submission: now there is a record
        shot(page, "vendor-revision-rejected")
        expect_fits_phone(page, f".vendor-agent[data-agent='{name}']", "vendor-revision-rejected-phone")
