"""License keys for vendors and admins in a real browser: the vendor sets an agent's activation limit in the
wizard (a refused value says why), a customer buys one of the vendor's agents, the vendor sees that sale's key
masked with its buyer, status and activations and disables it (with the reason the buyer reads and gets by mail)
and enables it; an admin finds the key in the License Keys tab by its whole value and disables it with a reason,
which the buyer reads in My Agents; the vendor's key list at 390 px."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from marketplace.services import licenses
from tests.e2e.helpers import (
    DEMO_ADMIN,
    PASSWORD,
    buy,
    expect_fits_phone,
    expect_toast,
    mail_text,
    open_page,
    shot,
    sign_in,
    sign_up,
    unique,
)

pytestmark = pytest.mark.e2e

MASKED = re.compile(r"^XXXXX-XXXXX-XXXXX-[0-9A-HJKMNP-TV-Z]{5}$")
LIMIT_INVALID = "Activation limit must be a whole number from 1 to 100, or unlimited"


def _wizard_with_a_limit(page: Page, tmp_path: Path) -> None:
    """Steps 1-4 with one small file; 0 is refused on the Pricing step, 7 is saved with the agent."""
    name = unique("Key Keeper ")
    agent_file = tmp_path / "agent.py"
    agent_file.write_text("def run() -> str:\n    return 'ok'\n")
    open_page(page, "/vendor/add-agent")
    page.fill("#name", name)
    page.fill("#shortDescription", "Keeps its keys")
    page.fill("#description", "An agent that checks its license key.")
    page.click("#wizard-next")
    page.locator(".uppy-Dashboard-input").first.set_input_files(str(agent_file))
    expect(page.locator(".uppy-Dashboard-Item.is-complete")).to_have_count(1, timeout=30_000)
    page.click("#wizard-next")
    expect(page.locator("#step-title")).to_have_text("Pricing")
    expect(page.locator("#activationLimit")).to_have_value("3")  # the default
    page.fill("#price", "15")
    page.click("#categoryId")
    page.get_by_role("option", name=re.compile("Productivity")).click()
    page.fill("#activationLimit", "0")
    page.click("#wizard-next")
    expect_toast(page, "Invalid activation limit", LIMIT_INVALID)
    expect(page.locator("#activationLimit-error")).to_have_text(LIMIT_INVALID)
    expect(page.locator("#step-title")).to_have_text("Pricing")
    shot(page, "wizard-activation-limit-refused")
    page.click("#unlimitedActivations")
    expect(page.locator("#activationLimit")).to_be_disabled()
    expect(page.locator("#activationLimit-error")).to_have_count(0)
    page.click("#unlimitedActivations")
    page.fill("#activationLimit", "7")
    page.click("#wizard-next")
    expect(page.locator("#summary-activation-limit")).to_have_text("7")
    page.click("#wizard-submit")
    expect_toast(page, "Agent submitted for review")
    expect(page).to_have_url(re.compile(r"/vendor/?$"))
    agent = next(a for a in page.request.get("/api/vendor/agents").json() if a["name"] == name)
    assert page.request.get(f"/api/vendor/agents/{agent['id']}").json()["activationLimit"] == 7


def _keys_of(page: Page, agent_name: str) -> None:
    page.locator(f".vendor-agent[data-agent='{agent_name}'] .agent-keys").click()
    dialog = page.locator("#vendor-keys-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#vendor-keys-agent")).to_have_text(agent_name)


def test_vendor_and_admin_manage_license_keys(page: Page, tmp_path: Path) -> None:
    sign_in(page, "vendor", "vendor123", api=True)
    _wizard_with_a_limit(page, tmp_path)

    # A customer buys one of the vendor's live agents.
    own = [a for a in page.request.get("/api/vendor/agents").json()
           if a["status"] == "approved" and float(a["price"]) > 0]
    agent = own[0]
    page.context.clear_cookies()
    buyer = sign_up(page, "keybuyer")
    buy(page, agent["id"])
    whole_key = next(p["licenseKey"] for p in page.request.get("/api/user/purchases").json()
                     if p["agent"]["id"] == agent["id"])

    # The vendor sees the sale's key, masked, and disables and enables it.
    page.context.clear_cookies()
    sign_in(page, "vendor", "vendor123", api=True)
    open_page(page, "/vendor")
    _keys_of(page, agent["name"])
    row = page.locator(f"#vendor-keys-table .key-row[data-buyer='{buyer}']")
    expect(row).to_be_visible()
    expect(row.locator(".key-value")).to_have_text(MASKED)
    expect(row.locator(".key-status")).to_have_text("Active")
    expect(row.locator(".key-usage")).to_have_text(re.compile(r"^0 of (\d+|unlimited)$"))
    shot(page, "vendor-license-keys")
    # Disable asks for the reason the buyer reads; without one it is refused and the form stays.
    row.locator(".disable-key").click()
    expect(page.locator("#vendor-disable-key-name")).to_have_text(MASKED)
    page.click("#vendor-disable-confirm")
    expect_toast(page, "Failed to disable license key", licenses.REASON_REQUIRED)
    expect(row.locator(".key-status")).to_have_text("Active")
    page.fill("#vendor-disable-reason", "Posted on a public forum")
    shot(page, "vendor-license-key-reason")
    page.click("#vendor-disable-confirm")
    expect_toast(page, "License key disabled", "The buyer's agent can no longer activate or validate it.")
    expect(row.locator(".key-status")).to_have_text("Disabled")
    expect(row.locator(".key-disabled-reason")).to_have_text("Posted on a public forum")
    expect(page.locator("#vendor-disable-form")).to_have_count(0)
    assert "Reason: Posted on a public forum" in mail_text(
        page, f"{buyer}@example.com", f"Your license key for {agent['name']} was disabled")
    row.locator(".enable-key").click()
    expect_toast(page, "License key enabled", "The key works again.")
    expect(row.locator(".key-status")).to_have_text("Active")
    expect(row.locator(".disable-key")).to_be_visible()
    expect_fits_phone(page, f"#vendor-keys-table .key-row[data-buyer='{buyer}']", "vendor-license-keys-phone")
    expect(row.locator(".disable-key")).to_be_in_viewport()
    page.set_viewport_size({"width": 1280, "height": 900})

    # The admin finds it among all keys and disables it.
    page.context.clear_cookies()
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin?tab=license-keys")
    expect(page.locator("#licenses-table .key-row").first).to_be_visible()
    # The whole key the customer quotes finds it (shown masked still).
    page.fill("#licenses-search", whole_key)
    admin_row = page.locator(f"#licenses-table .key-row[data-buyer='{buyer}']")
    expect(page.locator("#licenses-table .key-row")).to_have_count(1)
    expect(admin_row.locator(".key-value")).to_have_text(MASKED)
    expect(page.locator("#licenses-table")).not_to_contain_text(whole_key)
    expect(admin_row.locator(".key-agent")).to_have_text(agent["name"])
    admin_row.locator(".disable-key").click()
    dialog = page.locator("#disable-key-dialog")
    expect(dialog).to_contain_text("The buyer's agent will stop validating this key")
    dialog.locator("#disable-key-dialog-confirm").click()  # no reason: refused, the dialog stays
    expect_toast(page, "Error", f"Failed to disable license key. {licenses.REASON_REQUIRED}.")
    expect(dialog).to_be_visible()
    page.fill("#disable-key-reason", "Chargeback: the card was stolen")
    shot(page, "admin-license-key-reason")
    dialog.locator("#disable-key-dialog-confirm").click()
    expect_toast(page, "License key disabled")
    expect(admin_row.locator(".key-status")).to_have_text("Disabled")
    expect(admin_row.locator(".key-disabled-reason")).to_have_text("Chargeback: the card was stolen")
    expect(admin_row.locator(".enable-key")).to_be_visible()
    shot(page, "admin-license-keys")

    # The buyer reads why in My Agents (at 1280 and 390 px).
    page.context.clear_cookies()
    sign_in(page, buyer, PASSWORD, api=True)
    open_page(page, "/dashboard")
    card = page.locator(".purchase-card", has_text=agent["name"])
    expect(card.locator(".license-disabled-reason")).to_have_text("Key disabled: Chargeback: the card was stolen")
    card.scroll_into_view_if_needed()
    shot(page, "buyer-license-key-disabled")
    page.set_viewport_size({"width": 390, "height": 844})
    expect(card.locator(".license-disabled-reason")).to_be_visible()
    card.locator(".license-disabled-reason").scroll_into_view_if_needed()
    shot(page, "buyer-license-key-disabled-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.context.clear_cookies()
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin?tab=license-keys")
    page.fill("#licenses-search", unique("nobody"))
    expect(page.locator("#licenses-empty")).to_contain_text("No license keys match your search")
