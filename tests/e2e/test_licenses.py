"""License keys in the browser: a buyer buys an agent, sees and copies its key in My Agents, the agent (HTTP calls
from the test, as a vendor's agent makes them: no cookie, no Origin) activates it, the activation shows in My
Agents once the window regains focus (no reload) and is deactivated there after a confirmation; at 390 px the
key row fits."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.helpers import buy, expect_fits_phone, expect_toast, live_agent_id, open_page, shot, sign_up

KEY = re.compile(r"^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){3}$")


def test_buy_copy_activate_see_and_deactivate_a_license_key(page: Page, app_server: str) -> None:
    sign_up(page, "keys")
    agent_id = live_agent_id(page, "BlogSmith")
    buy(page, agent_id)
    [purchase] = page.request.get("/api/user/purchases").json()
    key = purchase["licenseKey"]
    assert KEY.match(key), key

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_page(page, "/dashboard")
    card = page.locator(".purchase-card", has_text="BlogSmith")
    box = card.locator(".license-box")
    expect(box.locator(".license-key")).to_have_text(key)
    expect(box.locator(".license-status")).to_have_text("Active")
    expect(box.locator(".activation-usage")).to_have_text("0 of 3 activations")
    expect(box.locator(".no-activations")).to_be_visible()
    box.get_by_role("button", name="Copy license key").click()
    expect_toast(page, "License key copied")
    assert page.evaluate("navigator.clipboard.readText()") == key

    with httpx.Client(base_url=app_server, timeout=30) as agent:  # what the vendor's agent sends
        activated = agent.post("/api/licenses/activate", json={"licenseKey": key, "instanceName": "Studio laptop"})
        assert activated.status_code == 200, activated.text
        instance = activated.json()["instance"]
        assert activated.json()["activated"] is True and instance["name"] == "Studio laptop"

        # My Agents, open all along, shows it once the window regains focus: no reload.
        page.evaluate("window.dispatchEvent(new Event('focus'))")
        row = box.locator(".activation-row")
        expect(row).to_have_count(1)
        expect(row.locator(".activation-name")).to_have_text("Studio laptop")
        expect(row).to_contain_text(re.compile(r"Activated [A-Z][a-z]{2} \d{1,2}, \d{4} • \d{1,2}:\d{2} [AP]M"))
        expect(box.locator(".activation-usage")).to_have_text("1 of 3 activations")
        shot(page, "license-key-activated")
        expect_fits_phone(page, ".license-box", "license-key-phone")
        key_box, card_box = box.locator(".license-key").bounding_box(), card.bounding_box()
        assert key_box and card_box and key_box["x"] + key_box["width"] <= card_box["x"] + card_box["width"]
        assert box.locator(".license-key").evaluate("e => e.scrollWidth <= e.clientWidth"), "the key is cut off"
        deactivate = row.get_by_role("button", name="Deactivate")
        assert deactivate.bounding_box()["x"] + deactivate.bounding_box()["width"] <= card_box["x"] + card_box["width"]
        page.set_viewport_size({"width": 1280, "height": 900})

        # Deactivate asks first; keeping it changes nothing.
        deactivate.click()
        dialog = page.locator("#deactivate-dialog")
        expect(dialog.locator("#deactivate-machine")).to_have_text("Studio laptop")
        shot(page, "license-deactivate-confirm")
        dialog.locator("#keep-instance").click()
        expect(dialog).to_be_hidden()
        expect(box.locator(".activation-row")).to_have_count(1)
        deactivate.click()
        page.locator("#confirm-deactivate").click()
        expect_toast(page, "Instance deactivated")
        expect(box.locator(".activation-row")).to_have_count(0)
        expect(box.locator(".activation-usage")).to_have_text("0 of 3 activations")
        checked = agent.post("/api/licenses/validate", json={"licenseKey": key, "instanceId": instance["id"]})
        assert checked.status_code == 404 and checked.json()["error"] == "Instance not found"
        assert agent.post("/api/licenses/validate", json={"licenseKey": key}).json()["valid"] is True
