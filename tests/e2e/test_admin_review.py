"""The admin reviewing what it decides on, in a real browser: where the overview's rows lead, the counts on the
tabs, one row of tabs at 1280 px, the live agents a vendor has published, commission rows that fit, the files
and field changes of a submission (with an admin download), and customer reports in a list of their own.

Each test makes its own vendor agents, sales and reports through the API; demo data relied on: the 'admin' and
'vendor' accounts, categories, live agents with a price.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import (
    PASSWORD,
    admin_client,
    api_client,
    buy,
    expect_toast,
    open_page,
    same_origin,
    shot,
    sign_in,
    unique,
    wait_for_scans,
)


@pytest.fixture
def vendor(app_server: str) -> Iterator[httpx.Client]:
    """The demo vendor, signed in through the API."""
    with api_client(app_server) as client:
        client.post("/api/login", json={"username": "vendor", "password": "vendor123"}).raise_for_status()
        yield client


def _attach(vendor: httpx.Client, agent_id: str, filename: str, content: bytes, kind: str) -> None:
    url = vendor.post("/api/objects/upload", params={"filename": filename, "type": kind}).json()["uploadURL"]
    assert vendor.put(url, content=content, headers={"Content-Type": kind}).status_code == 200
    attached = vendor.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": url})
    assert attached.status_code == 200, attached.text


def _create_agent(vendor: httpx.Client, name: str, *, price: str = "19.00") -> str:
    """A pending agent of the demo vendor with one small Python file."""
    category = vendor.get("/api/categories").json()[0]["id"]
    answer = vendor.post("/api/vendor/agents", json={
        "name": name, "shortDescription": f"{name} for the admin review test", "price": price,
        "categoryId": category, "description": f"{name} reads, sorts and answers.",
        "demoUrl": "https://example.com/demo/review", "tags": ["e2e"]})
    assert answer.status_code == 201, answer.text
    _attach(vendor, answer.json()["id"], "agent.py", b"def run(task: str) -> str:\n    return task\n",
            "text/x-python")
    return answer.json()["id"]


def _total(page: Page, path: str) -> int:
    answer = page.request.get(path, params={"limit": 1})
    assert answer.ok, answer.text()
    return int(answer.headers["x-total-count"])


def _fits_sideways(page: Page, selector: str) -> None:
    """Nothing in `selector` is cut off or scrolls sideways at this width."""
    overflow = page.locator(selector).evaluate("box => box.scrollWidth - box.clientWidth")
    assert overflow <= 0, f"{selector} scrolls sideways by {overflow}px"


# --- item: the overview, the tab bar, vendor details, the commissions table --------------------------------------


def test_overview_rows_tab_counts_one_tab_row_and_published_agents(page: Page, vendor: httpx.Client) -> None:
    _create_agent(vendor, unique("Not Yet Published "))  # pending: not published
    mine = vendor.get("/api/vendor/agents").json()
    live = sum(agent["status"] == "approved" for agent in mine)
    assert 0 < live < len(mine)

    # A sale to a customer with a long address: the newest commission row.
    sign_in(page, "admin", "admin123", api=True)
    agent = next(a for a in page.request.get("/api/admin/agents", params={"limit": 50, "status": "approved"}).json()
                 if float(a["price"]) > 0)
    page.context.clear_cookies()
    buyer = unique("longmail")
    email = f"{buyer}.with-a-rather-long-mailbox-name@subdomain.example.com"
    registered = page.request.post("/api/register", headers=same_origin(page),
                                   data={"username": buyer, "email": email, "password": PASSWORD})
    assert registered.status == 201, registered.text()
    buy(page, agent["id"])
    page.context.clear_cookies()

    sign_in(page, "admin", "admin123", api=True)
    counts = {"customers": _total(page, "/api/admin/customers"), "vendors": _total(page, "/api/admin/vendors"),
              "agents": _total(page, "/api/admin/agents")}
    open_page(page, "/admin")
    expect(page.locator("#admin-area")).to_be_visible()
    for tab, count in counts.items():
        expect(page.locator(f"#tab-{tab} .tab-count").first).to_have_text(str(count))
    tops = page.get_by_role("tab").evaluate_all("tabs => tabs.map(t => Math.round(t.getBoundingClientRect().top))")
    assert len(tops) == 13 and len(set(tops)) == 1, f"the tabs wrap onto {len(set(tops))} rows at 1280 px"
    shot(page, "admin-review-overview")

    # Each pending row opens the sub-tab it counts.
    page.locator("#pending-agent-approvals-approved-agents").click()
    expect(page).to_have_url(re.compile(r"\?tab=agent-approvals$"))
    expect(page.locator("#tab-approved")).to_have_attribute("data-state", "active")
    expect(page.locator(".approved-agent").first).to_be_visible()
    open_page(page, "/admin")
    page.locator("#pending-agent-approvals-agent-approvals").click()
    expect(page.locator("#tab-pending")).to_have_attribute("data-state", "active")

    # Vendor Details: the live agents only (the table's column counts every agent).
    open_page(page, "/admin?tab=vendors")
    row = page.locator(".vendor-row[data-username=vendor]")
    expect(row.locator("td").nth(4)).to_have_text(str(len(mine)))
    row.locator(".view-vendor").click()
    expect(page.locator("#vendor-agent-count")).to_have_text(str(live))

    # Recent Commission Earnings: every column shows whole at 1280 px, the long address is shortened.
    open_page(page, "/admin?tab=sales")
    newest = page.locator(".commission-row").first
    expect(newest.locator(".commission-customer")).to_have_attribute("title", email)
    _fits_sideways(page, "#commissions-table")
    date = newest.locator("td").last
    assert date.evaluate("cell => cell.scrollWidth <= cell.clientWidth"), "the date is cut off"
    shot(page, "admin-review-commissions")


# --- item: approving with eyes open: the files and every changed field ------------------------------------------


def test_admin_sees_and_downloads_the_files_and_every_changed_field(page: Page, vendor: httpx.Client,
                                                                   app_server: str) -> None:
    name = unique("Files In View ")
    agent_id = _create_agent(vendor, name)
    _attach(vendor, agent_id, "README.md", b"# Read me\n\nHow to run it.\n" * 40, "text/markdown")

    sign_in(page, "admin", "admin123", api=True)
    open_page(page, "/admin?tab=agent-approvals")
    card = page.locator(f".pending-agent[data-id='{agent_id}']")
    card.locator(".view-agent").click()
    files = page.locator("#agent-details #review-files")
    expect(files.locator(".review-file-name")).to_have_text(["agent.py", "README.md"])
    expect(files.locator(".review-file-size")).to_have_text(["43 B", "1.0 KB"])
    expect(files.locator(".review-file-type")).to_have_text(["Checked: text/x-python", "Checked: text/markdown"])
    shot(page, "admin-review-files")
    with page.expect_download() as fetched:
        files.locator(".review-file-download").nth(1).click()
    download = fetched.value
    assert download.suggested_filename == "README.md"
    assert Path(download.path()).read_bytes() == b"# Read me\n\nHow to run it.\n" * 40
    page.set_viewport_size({"width": 390, "height": 844})
    files.locator(".review-file-download").first.scroll_into_view_if_needed()  # below the details on a phone
    expect(files.locator(".review-file-download").first).to_be_in_viewport()
    _fits_sideways(page, "#agent-details")
    shot(page, "admin-review-files-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.keyboard.press("Escape")

    # Once live, a change waits as a revision that shows each field's live and proposed value.
    with admin_client(app_server) as admin:
        wait_for_scans(admin, agent_id)
    card.locator(".approve-agent").click()
    expect(card).to_have_count(0)
    draft = vendor.get(f"/api/vendor/agents/{agent_id}").json()
    changed = vendor.put(f"/api/vendor/agents/{agent_id}", json={**draft, "price": "24.50", "name": f"{name} Pro",
                                                                  "tags": ["e2e", "files"]})
    assert changed.status_code == 200, changed.text
    open_page(page, "/admin?tab=agent-approvals")
    revision = page.locator(f".pending-agent[data-id='{agent_id}']")
    expect(revision.locator(".changed-field")).to_have_text([
        f"Name: {name} → {name} Pro", "Price: $19.00/month → $24.50/month", "Tags: e2e → e2e, files"])
    revision.locator(".view-agent").click()
    expect(page.locator("#agent-details .changed-field")).to_have_count(3)
    expect(page.locator("#agent-details .review-file-name")).to_have_text(["agent.py", "README.md"])
    shot(page, "admin-review-revision")
    assert httpx.get(f"{app_server}/api/agents/{agent_id}").json()["name"] == name  # the live listing stays


# --- item: reports in a list of their own, by status, with both moves --------------------------------------------


def test_reports_have_their_own_list_with_status_filters_and_both_moves(page: Page, app_server: str) -> None:
    agent = httpx.get(f"{app_server}/api/agents", params={"limit": 1}).json()[0]
    reason = unique("Asks for my password ")
    with api_client(app_server) as reporter:
        name = unique("reporter")
        assert reporter.post("/api/register", json={"username": name, "email": f"{name}@example.com",
                                                    "password": PASSWORD}).status_code == 201
        answer = reporter.post(f"/api/agents/{agent['id']}/report", json={
            "reportType": "inappropriate", "reason": reason, "description": "It opens a login form."})
        assert answer.status_code == 201, answer.text

    sign_in(page, "admin", "admin123", api=True)
    open_page(page, "/admin?tab=analytics")
    page.click("#all-reports")  # the analytics card leads to the whole list
    expect(page).to_have_url(re.compile(r"\?tab=reports$"))
    expect(page.locator("#tab-reports .tab-count").first).to_have_text(re.compile(r"^[1-9]\d*$"))
    row = page.locator(".report-row").filter(has_text=reason)
    expect(row.locator(".report-status")).to_have_text("Pending")
    expect(row.get_by_text("It opens a login form.")).to_be_visible()
    expect(row.get_by_role("link", name=agent["name"])).to_have_attribute("href", f"/agents/{agent['id']}")
    shot(page, "admin-reports-pending")

    row.locator(".mark-reviewed").click()
    expect_toast(page, "Report updated", "The report has been marked as reviewed.")
    expect(row).to_have_count(0)  # it left the Pending list...
    page.get_by_role("radio", name="Reviewed").click()
    expect(row.locator(".report-status")).to_have_text("Reviewed")  # ...for the Reviewed one
    expect(row.locator(".mark-reviewed")).to_have_count(0)
    shot(page, "admin-reports-reviewed")

    row.locator(".resolve-report").click()
    expect_toast(page, "Report updated", "The report has been resolved.")
    expect(row).to_have_count(0)
    page.get_by_role("radio", name="Resolved").click()
    expect(row.locator(".report-status")).to_have_text("Resolved")
    expect(row.locator("button")).to_have_count(0)  # nothing moves a resolved report
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#reports-status")).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the page scrolls sideways"
    shot(page, "admin-reports-phone")
