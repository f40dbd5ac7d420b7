"""Versions with release notes (issue 33) in the browser: the vendor submits a new version of a live agent with its
label and release notes in the wizard (refused first without notes) and sees both versions in the agent list,
the admin sees both in Approvals and approves
it once its files are scanned, and the notes reach the buyer: the agent page's Changelog (where the buyer also
downloads the version before), My Agents' 'New' and the 'Update available' mail; on a desktop and at 390 px.

Demo data relied on: the 'vendor' and 'admin' accounts and the categories. The agent is the test's own, free, so
the buyer claims it without paying."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import new_context
from tests.e2e.helpers import (
    admin_client,
    api_client,
    expect_fits_phone,
    expect_toast,
    mail_text,
    open_page,
    same_origin,
    shot,
    sign_in,
    sign_up,
    unique,
    wait_for_scans,
)

NOTES = "Replies **twice as fast**.\n\n- Drafts kept between runs\n- <script>window.__hacked = 1</script>"


@pytest.fixture
def vendor(app_server: str) -> Iterator[httpx.Client]:
    with api_client(app_server) as client:
        client.post("/api/login", json={"username": "vendor", "password": "vendor123"}).raise_for_status()
        yield client


def _attach(vendor: httpx.Client, agent_id: str, filename: str, content: bytes) -> None:
    url = vendor.post("/api/objects/upload", params={"filename": filename, "type": "text/x-python"}).json()["uploadURL"]
    assert vendor.put(url, content=content, headers={"Content-Type": "text/x-python"}).status_code == 200
    attached = vendor.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": url})
    assert attached.status_code == 200, attached.text


def _live_free_agent(vendor: httpx.Client, admin: httpx.Client, name: str) -> str:
    category = vendor.get("/api/categories").json()[0]["id"]
    created = vendor.post(
        "/api/vendor/agents",
        json={
            "name": name,
            "shortDescription": "Answers mail",
            "description": "Reads and answers your mail.",
            "price": "0",
            "categoryId": category,
            "tags": ["e2e"],
        },
    )
    assert created.status_code == 201, created.text
    agent_id = created.json()["id"]
    _attach(vendor, agent_id, "agent.py", b"def run(task):\n    return task\n")
    wait_for_scans(admin, agent_id)
    assert admin.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
    return agent_id


def test_a_new_version_with_release_notes_reaches_the_agent_page_and_the_buyers_mail(
    page: Page, browser: Browser, app_server: str, vendor: httpx.Client
) -> None:
    name = unique("Versioned Mail Bot ")
    with admin_client(app_server) as admin:
        agent_id = _live_free_agent(vendor, admin, name)
        buyer = sign_up(page, "versions")
        claimed = page.request.post("/api/purchase/claim-free", data={"agentId": agent_id}, headers=same_origin(page))
        assert claimed.status == 201, claimed.text()

        # The vendor adds a file to the live agent, then gives the new version its label and notes in the wizard.
        _attach(vendor, agent_id, "drafts.py", b"DRAFTS = {}\n")
        context = new_context(browser, base_url=app_server, viewport={"width": 1280, "height": 900})
        try:
            wizard = context.new_page()
            sign_in(wizard, "vendor", "vendor123", api=True)
            open_page(wizard, f"/vendor/agents/{agent_id}/edit")
            expect(wizard.locator("#name")).to_have_value(name)
            for _ in range(3):
                wizard.click("#wizard-next")
            expect(wizard.locator("#current-version")).to_contain_text("Current version: 1.0.0.")
            wizard.fill("#versionLabel", "1.1.0")
            wizard.click("#wizard-submit")
            expect_toast(wizard, "Error", "Release notes are required when the files change")
            wizard.fill("#releaseNotes", NOTES)
            shot(wizard, "versions-wizard")
            wizard.click("#wizard-submit")
            expect_toast(wizard, "Changes submitted for review")
            # The vendor's agent list: the live version, and the one waiting for review.
            expect(wizard).to_have_url(re.compile(r"/vendor/?$"))
            row = wizard.locator(f".vendor-agent[data-agent='{name}']")
            expect(row.locator(".agent-version")).to_have_text("Version 1.0.0 · 1.1.0 in review")
            shot(wizard, "versions-vendor-list")
            expect_fits_phone(wizard, f".vendor-agent[data-agent='{name}'] .pending-version",
                              "versions-vendor-list-phone")
        finally:
            context.close()

        # The admin sees the label and the notes (rendered, the script as text) in Approvals, and approves.
        wait_for_scans(admin, agent_id)
        context = new_context(browser, base_url=app_server, viewport={"width": 1280, "height": 900})
        try:
            approvals = context.new_page()
            sign_in(approvals, "admin", "admin123", api=True)
            open_page(approvals, "/admin?tab=agent-approvals")
            card = approvals.locator(f".pending-agent[data-id='{agent_id}']")
            expect(card.locator(".revision-version")).to_have_text("Version: 1.0.0 → 1.1.0")
            # Its details list each file with its security scan.
            card.locator(".view-agent").click()
            details = approvals.locator("#agent-details")
            expect(details.locator(".review-file-scan")).to_have_text(["Scanned: no threats found"] * 2)
            expect(details.locator(".review-file-scan").first).to_have_attribute("data-scan", "clean")
            approvals.keyboard.press("Escape")
            expect(details).to_have_count(0)
            expect(card.locator(".release-notes strong")).to_have_text("twice as fast")
            expect(card.locator(".release-notes")).to_contain_text("<script>window.__hacked = 1</script>")
            shot(approvals, "versions-approvals")
            card.locator(".approve-agent").click()
            expect(card).to_have_count(0)
        finally:
            context.close()

    # The buyer: the scan date, then the Changelog, newest first, the notes as Markdown and never as a script.
    open_page(page, f"/agents/{agent_id}")
    scanned = re.compile(r"^Scanned [A-Z][a-z]+ \d{1,2}, \d{4}: no threats found$")
    expect(page.locator("#info-scanned")).to_have_text(scanned)
    changelog = page.locator("#changelog")
    expect(changelog.locator(".changelog-entry .version-label")).to_have_text(["1.1.0", "1.0.0"])
    expect(changelog.locator(".release-notes strong")).to_have_text("twice as fast")
    expect(changelog.locator(".release-notes li")).to_have_count(2)
    expect(changelog).to_contain_text("drafts.py")
    assert page.evaluate("window.__hacked") is None
    # The buyer downloads the version before from its entry (the current one and the two before it are offered).
    expect(changelog.locator(".download-version")).to_have_text(["Download 1.1.0", "Download 1.0.0"])
    with page.expect_download() as old:
        changelog.locator(".changelog-entry").nth(1).locator(".download-version").click()
    with zipfile.ZipFile(old.value.path()) as archive:
        assert "agent.py" in archive.namelist() and "drafts.py" not in archive.namelist()
    expect_toast(page, "Download started")
    shot(page, "versions-changelog")
    expect_fits_phone(page, "#changelog", "versions-changelog-phone")
    page.set_viewport_size({"width": 1280, "height": 900})

    # My Agents: the current version, 'New' until it is downloaded.
    open_page(page, "/dashboard")
    card = page.locator(f".purchase-card[data-agent='{name}']")
    expect(card.locator(".version-label")).to_have_text("Version 1.1.0")
    expect(card.locator(".new-version")).to_have_text("New")
    expect_fits_phone(page, ".new-version", "versions-my-agents-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    with page.expect_download():
        card.locator(".download-button").click()
    expect(card.locator(".new-version")).to_have_count(0)

    # The 'Update available' mail carries the label and the notes, as readable text (no Markdown marks).
    text = mail_text(page, f"{buyer}@example.com", "Update available", shot_as="versions-mail")
    assert f"Version 1.1.0 of {name} is available" in text
    assert "Replies twice as fast." in text and "- Drafts kept between runs" in text and "**" not in text
