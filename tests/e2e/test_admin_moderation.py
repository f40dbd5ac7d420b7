"""The admin's moderation tabs in a real browser: vendor applications, agent approvals, analytics and stats.

Each test makes its own applicants, agents and reports through the API (the app is shared with other browser
tests, which may decide the demo's pending application or agent first), then decides them in /admin as an
admin would, and checks what the other side sees. Demo data relied on: the 'admin' and 'vendor' accounts,
categories, live agents with past sales.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import (
    PASSWORD,
    admin_client,
    api_client,
    expect_toast,
    open_page,
    phone,
    shot,
    sign_in,
    unique,
    wait_for_scans,
)

REJECT_PROMPT = "Are you sure you want to reject this vendor application?"
REJECT_NOTE = "This message will be sent to the vendor as a notification"


# --- helpers --------------------------------------------------------------------------------------------------


@pytest.fixture
def vendor(app_server: str) -> Iterator[httpx.Client]:
    """The demo vendor, signed in through the API."""
    with api_client(app_server) as client:
        client.post("/api/login", json={"username": "vendor", "password": "vendor123"}).raise_for_status()
        yield client


def _customer(app_server: str, prefix: str) -> tuple[httpx.Client, str]:
    """A fresh customer, signed in (the caller closes the client)."""
    client = api_client(app_server)
    username = unique(prefix)
    answer = client.post("/api/register", json={"username": username, "email": f"{username}@example.com",
                                                 "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return client, username


def _apply(client: httpx.Client, business: str) -> None:
    answer = client.post("/api/vendor/apply", json={
        "businessName": business, "businessDescription": "Agents that keep the books tidy.",
        "website": "https://ledger-bots.example"})
    assert answer.status_code == 201, answer.text


def _create_agent(vendor: httpx.Client, name: str, *, with_file: bool = True, price: str = "19.00") -> str:
    """A pending agent of the demo vendor, with one small file attached unless `with_file` is False."""
    category = vendor.get("/api/categories").json()[0]["id"]
    answer = vendor.post("/api/vendor/agents", json={
        "name": name, "shortDescription": f"{name} for the admin test", "price": price, "categoryId": category,
        "description": f"{name} files, sorts and answers. Built for the admin moderation browser test.",
        "demoUrl": "https://example.com/demo/admin-test", "tags": ["e2e", "admin"]})
    assert answer.status_code == 201, answer.text
    agent_id = answer.json()["id"]
    if with_file:
        url = vendor.post("/api/objects/upload", params={"filename": "agent.py", "type": "text/x-python"}).json()[
            "uploadURL"]
        put = vendor.put(url, content=b"def run(task: str) -> str:\n    return task\n",
                         headers={"Content-Type": "text/x-python"})
        assert put.status_code == 200, put.text
        attached = vendor.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": url})
        assert attached.status_code == 200, attached.text
    return agent_id


def _shot(page: Page, name: str) -> None:
    """From the top: a full-page shot of a scrolled page draws the sticky top bar mid-page."""
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, name)


def _admin(page: Page, tab: str) -> None:
    sign_in(page, "admin", "admin123", api=True)
    open_page(page, f"/admin?tab={tab}")


def _fits_phone(page: Page, name: str, ready: str) -> None:
    """At 390 px the tab is usable: nothing makes the page scroll sideways."""
    phone(page)
    expect(page.locator(ready).first).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at phone width ({width}px)"
    _shot(page, name)


# --- vendor applications ---------------------------------------------------------------------------------------


def test_admin_approves_and_rejects_vendor_applications(page: Page, app_server: str) -> None:
    approved_client, approved_user = _customer(app_server, "ledger")
    rejected_client, _ = _customer(app_server, "spam")
    try:
        approved_business, rejected_business = unique("Ledger Bots "), unique("Totally Legit ")
        _apply(approved_client, approved_business)
        _apply(rejected_client, rejected_business)
        _admin(page, "vendor-applications")
        expect(page.get_by_role("heading", name="Pending Vendor Applications")).to_be_visible()
        card = page.locator(f".application-card[data-business='{approved_business}']")
        expect(card).to_be_visible()
        expect(card.locator(".business-description")).to_have_text("Agents that keep the books tidy.")
        expect(card.locator(".business-website")).to_have_attribute("href", "https://ledger-bots.example")
        expect(card.get_by_text("Pending", exact=True)).to_be_visible()
        expect(card.get_by_text(re.compile(r"^Applied [A-Z][a-z]{2} \d{1,2}, \d{4}$"))).to_be_visible()
        shot(page, "admin-applications")

        # The details dialog: applicant e-mail and name, date, status, and the decision buttons.
        card.locator(".view-application").click()
        details = page.locator("#application-details")
        expect(details.locator(".applicant-email")).to_have_text(f"{approved_user}@example.com")
        expect(details.locator(".applicant-name")).to_have_text(approved_user)  # no first/last name given
        expect(details.locator(".application-date")).to_have_text(re.compile(r"\d{4} • \d{1,2}:\d\d [AP]M$"))
        expect(details.get_by_role("button", name="Reject Application")).to_be_visible()
        shot(page, "admin-application-details")
        details.get_by_role("button", name="Approve Application").click()
        expect_toast(page, "Vendor approved", "The vendor application has been approved.")
        expect(details).to_have_count(0)
        expect(card).to_have_count(0)
        me = approved_client.get("/api/auth/user").json()
        assert me["role"] == "vendor" and me["isVendorApproved"] is True, me
        assert approved_client.get("/api/vendor/analytics").status_code == 200  # the vendor area opens

        # Reject asks first; Cancel keeps the application, Reject decides it.
        other = page.locator(f".application-card[data-business='{rejected_business}']")
        other.locator(".reject-application").click()
        expect(page.get_by_text(REJECT_PROMPT)).to_be_visible()
        shot(page, "admin-application-reject-prompt")
        page.get_by_role("button", name="Cancel").click()
        expect(page.get_by_text(REJECT_PROMPT)).to_have_count(0)
        expect(other).to_be_visible()
        other.locator(".reject-application").click()
        page.click("#confirm-reject-application")
        expect_toast(page, "Vendor rejected", "The vendor application has been rejected.")
        expect(other).to_have_count(0)
        application = rejected_client.get("/api/vendor/application").json()
        assert application["status"] == "rejected", application
        assert rejected_client.get("/api/auth/user").json()["role"] == "user"

        # Deciding an application decided meanwhile (another admin) says it failed, and the list follows.
        third_client, _ = _customer(app_server, "late")
        try:
            late = unique("Late Co ")
            _apply(third_client, late)
            open_page(page, "/admin?tab=vendor-applications")
            late_card = page.locator(f".application-card[data-business='{late}']")
            expect(late_card).to_be_visible()
            user_id = late_card.get_attribute("data-user")
            origin = page.evaluate("location.origin")
            assert page.request.post(f"/api/admin/vendor/{user_id}/approve",
                                     headers={"Origin": origin}).ok
            late_card.locator(".approve-application").click()
            expect_toast(page, "Error", "Failed to approve vendor. This application has already been decided. "
                                        "Reload to see its current status.")
            expect(late_card).to_have_count(0)
        finally:
            third_client.close()
        _fits_phone(page, "admin-applications-phone", "#admin-applications")
    finally:
        approved_client.close()
        rejected_client.close()


# --- agent approvals ---------------------------------------------------------------------------------------------


def test_admin_approves_one_agent_and_rejects_another_with_a_reason(page: Page, vendor: httpx.Client,
                                                                     app_server: str) -> None:
    good, bad, empty = unique("Ledger Pilot "), unique("Spam Cannon "), unique("Hollow Agent ")
    good_id = _create_agent(vendor, good)
    bad_id = _create_agent(vendor, bad)
    _create_agent(vendor, empty, with_file=False)
    _admin(page, "agent-approvals")
    pending = page.locator(f".pending-agent[data-agent='{good}']")
    expect(pending).to_be_visible()
    expect(pending.locator(".agent-price")).to_have_text("$19.00/month")
    expect(pending.get_by_text(re.compile(r"^Submitted [A-Z][a-z]{2} \d{1,2}, \d{4}$"))).to_be_visible()
    expect(pending.locator(".agent-demo")).to_have_attribute("href", "https://example.com/demo/admin-test")
    expect(page.locator("#tab-pending .tab-count").first).to_have_text(re.compile(r"^\d+$"))
    shot(page, "admin-approvals")

    # Full details, with the vendor information block.
    pending.locator(".view-agent").click()
    details = page.locator("#agent-details")
    expect(details.locator("#vendor-information .vendor-username")).to_have_text("vendor")
    expect(details.locator(".review-file-name")).to_have_text(["agent.py"])
    shot(page, "admin-agent-details")
    page.keyboard.press("Escape")
    expect(details).to_have_count(0)

    # An agent without files is not put in the queue at all (approving it stays refused: the API tests).
    expect(page.locator(f".pending-agent[data-agent='{empty}']")).to_have_count(0)

    with admin_client(app_server) as admin:
        wait_for_scans(admin, good_id)
    pending.locator(".approve-agent").click()
    expect_toast(page, "Agent approved", "The agent has been approved and is now live.")
    expect(pending).to_have_count(0)
    assert httpx.get(f"{app_server}/api/agents/{good_id}").status_code == 200  # live
    page.click("#tab-approved")
    approved = page.locator(f".approved-agent[data-agent='{good}']")
    expect(approved).to_be_visible()
    expect(approved.locator(".agent-vendor")).to_have_text("vendor")
    expect(approved.locator(".decision-date")).to_have_text(re.compile(r"^Approved [A-Z][a-z]{2} \d{1,2}, \d{4}$"))

    # Reject Agent: the dialog names the agent; the reason is trimmed and reaches the vendor.
    page.click("#tab-pending")
    page.locator(f".pending-agent[data-agent='{bad}'] .reject-agent").click()
    dialog = page.locator("#reject-agent-dialog")
    expect(dialog.locator("#reject-agent-name")).to_have_text(bad)
    expect(dialog.locator("#rejection-reason")).to_have_attribute("rows", "4")
    expect(dialog.get_by_text(REJECT_NOTE)).to_be_visible()
    expect(dialog.get_by_text("Rejection Reason", exact=True)).to_be_visible()
    dialog.locator("#rejection-reason").fill("   Please explain what data it sends where.  ")
    shot(page, "admin-reject-agent-dialog")
    dialog.get_by_role("button", name="Reject Agent").click()
    expect_toast(page, "Agent rejected", "The agent has been rejected and vendor has been notified.")
    expect(dialog).to_have_count(0)
    expect(page.locator(f".pending-agent[data-agent='{bad}']")).to_have_count(0)
    page.click("#tab-rejected")
    rejected = page.locator(f".rejected-agent[data-agent='{bad}']")
    expect(rejected.locator(".rejection-reason")).to_have_text(
        "Rejection Reason: Please explain what data it sends where.")
    shot(page, "admin-rejected-agents")
    assert httpx.get(f"{app_server}/api/agents/{bad_id}").status_code == 404

    # A change to the live agent waits as a revision that says what changed.
    draft = vendor.get(f"/api/vendor/agents/{good_id}").json()
    changed = vendor.put(f"/api/vendor/agents/{good_id}", json={**draft, "price": "24.00"})
    assert changed.status_code == 200, changed.text
    page.click("#tab-pending")
    open_page(page, "/admin?tab=agent-approvals")
    revision = page.locator(f".pending-agent[data-id='{good_id}']")
    expect(revision).to_have_attribute("data-kind", "revision")
    expect(revision.locator(".changed-field")).to_have_text(["Price: $19.00/month → $24.00/month"])
    expect(revision.locator(".agent-price")).to_have_text("$24.00/month")
    shot(page, "admin-approvals-revision")
    revision.locator(".reject-agent").click()
    page.locator("#reject-agent-dialog").get_by_role("button", name="Reject Agent").click()  # no reason
    expect_toast(page, "Agent rejected", "The agent has been rejected and vendor has been notified.")
    assert httpx.get(f"{app_server}/api/agents/{good_id}").json()["price"] == "19.00"  # the live listing stays
    _fits_phone(page, "admin-approvals-phone", "#admin-approvals")

    # The vendor reads the rejection, with the reason, on its Notifications tab.
    page.context.clear_cookies()
    sign_in(page, "vendor", "vendor123", api=True)
    open_page(page, "/vendor?tab=notifications")
    note = page.locator(".notification").filter(has_text=bad)
    expect(note).to_contain_text("Reason: Please explain what data it sends where.")
    expect(note.get_by_text("rejection", exact=True)).to_be_visible()
    shot(page, "admin-rejection-seen-by-vendor")


# --- analytics and stats ---------------------------------------------------------------------------------------


def test_analytics_and_stats_tabs_render_and_reports_move_along(page: Page, app_server: str) -> None:
    agent = httpx.get(f"{app_server}/api/agents", params={"limit": 1}).json()[0]
    reporter, _ = _customer(app_server, "reporter")
    reason = unique("Download link is broken ")
    try:
        answer = reporter.post(f"/api/agents/{agent['id']}/report", json={
            "reportType": "broken", "reason": reason, "description": "The zip will not open."})
        assert answer.status_code == 201, answer.text
    finally:
        reporter.close()
    # A page view (counted on a worker thread, once per visitor per day) puts the agent in Most Viewed.
    sign_in(page, "admin", "admin123", api=True)
    open_page(page, f"/agents/{agent['id']}")
    expect(page.get_by_role("heading", name=agent["name"]).first).to_be_visible()
    for _ in range(50):
        viewed = page.request.get("/api/admin/analytics/most-viewed", params={"limit": 50}).json()
        if any(row["id"] == agent["id"] for row in viewed):
            break
        page.wait_for_timeout(200)
    else:
        raise AssertionError("the page view was not counted")
    open_page(page, "/admin?tab=analytics")
    for card in ("Vendor Applications", "Agent Quality", "Customer Reports"):
        expect(page.get_by_role("heading", name=card, exact=True)).to_be_visible()
    expect(page.locator("#figure-agents-total")).to_contain_text(re.compile(r"\d+"))
    expect(page.locator("#figure-average-rating")).to_contain_text(re.compile(r"\d\.\d"))
    expect(page.locator("#figure-reports-pending")).to_have_text(re.compile(r"[1-9]\d*$"))
    report = page.locator(".report").filter(has_text=reason)
    expect(report.get_by_text("Broken", exact=True)).to_be_visible()
    expect(report.get_by_text("The zip will not open.")).to_be_visible()
    expect(report.get_by_text("Agent Report", exact=True)).to_be_visible()
    expect(report.get_by_text("Pending", exact=True)).to_be_visible()

    # Rankings open in a new tab: an agent's page, or the browse page filtered by the category.
    bought = page.locator("#ranking-bought .rank-item").first
    expect(bought).to_have_attribute("target", "_blank")
    expect(bought).to_have_attribute("href", re.compile(r"^/agents/[0-9a-f]+$"))
    expect(bought.locator(".rank-count")).to_have_text(re.compile(r"^\d+ sales?$"))
    seen = page.locator("#ranking-viewed .rank-item").first
    expect(seen.locator(".rank-count")).to_have_text(re.compile(r"^\d+ reviews?$"))
    expect(seen.locator(".rank-extra")).to_have_text(re.compile(r"^\d+ views?$"))
    category = page.locator("#ranking-category .rank-item").first
    expect(category).to_have_attribute("href", re.compile(r"^/agents\?category=[a-z][a-z0-9-]*$"))  # the slug
    with page.context.expect_page() as opened:
        category.click()
    browse = opened.value
    browse.wait_for_load_state()
    expect(browse).to_have_url(re.compile(r"/agents/?\?category=[a-z][a-z0-9-]*$"))
    expect(browse.get_by_role("combobox", name="Category")).not_to_have_text("All categories")
    browse.close()
    _shot(page, "admin-analytics")

    report.locator(".mark-reviewed").click()
    expect_toast(page, "Report updated", "The report has been marked as reviewed.")
    expect(page.locator(".report").filter(has_text=reason)).to_have_count(0)
    _fits_phone(page, "admin-analytics-phone", "#admin-analytics")

    page.set_viewport_size({"width": 1280, "height": 900})
    open_page(page, "/admin?tab=stats")
    expect(page.locator("#stats-sales")).to_have_text(re.compile(r"^\d+$"))
    expect(page.locator("#stats-revenue")).to_have_text(re.compile(r"^\$[\d,]+\.\d\d$"))
    expect(page.locator("#daily-chart .recharts-bar-rectangle").first).to_be_attached()  # demo sales in 30 days
    expect(page.locator("#daily-chart").get_by_text("Revenue ($)")).to_be_visible()
    expect(page.locator("#weekly-chart .recharts-bar-rectangle").first).to_be_attached()  # sign-ups above
    expect(page.locator("#weekly-chart").get_by_text("New users")).to_be_visible()
    shot(page, "admin-stats")
    _fits_phone(page, "admin-stats-phone", "#admin-stats")
