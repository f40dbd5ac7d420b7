"""Seller webhooks in the browser: the demo vendor adds an endpoint on a local receiver started by the test
(demo mode allows plain http to this machine), copies the secret shown once, a customer buys one of its agents,
the receiver gets the signed `sale.completed` (the test checks the signature with that secret) and the vendor
sees the delivery succeed in the endpoint's log; then deletes the endpoint."""

from __future__ import annotations

import json
import time

from playwright.sync_api import Browser, Page, expect

from marketplace.services.webhooks import signing
from tests.e2e.conftest import new_context
from tests.e2e.helpers import (
    buy,
    check_accessibility,
    expect_fits_phone,
    expect_toast,
    live_agent_id,
    open_page,
    shot,
    sign_in,
    sign_up,
)
from tests.webhook_receiver import WebhookReceiver


def test_a_vendor_hears_about_a_sale_and_sees_it_delivered(page: Page, browser: Browser, app_server: str) -> None:
    receiver = WebhookReceiver()
    try:
        sign_in(page, "vendor", "vendor123", api=True)
        open_page(page, "/vendor?tab=webhooks")
        expect(page.locator("#webhook-form")).to_be_visible()
        expect(page.locator("#webhooks-empty")).to_be_visible()
        page.fill("#webhook-url", receiver.url)
        page.get_by_label("sale.completed").check()
        page.click("#webhook-add")
        expect_toast(page, "Endpoint added", "Copy its signing secret now: it is shown only once.")
        secret = page.locator("#webhook-secret").inner_text()
        assert secret.startswith("whsec_"), secret
        row = page.locator(".webhook-endpoint", has_text=receiver.url)
        expect(row).to_have_count(1)
        expect(row.locator(".webhook-events")).to_have_text("sale.completed")
        shot(page, "webhooks-added")
        expect(page.locator("[data-sonner-toast]")).to_have_count(0)  # axe checks the tab, not the toaster's colours
        check_accessibility(page, "/vendor?tab=webhooks")

        customer = new_context(browser, base_url=app_server)
        buyer = customer.new_page()
        try:
            sign_up(buyer, "hooked")
            buy(buyer, live_agent_id(buyer, "BlogSmith"))
        finally:
            customer.close()

        (got,) = receiver.wait_for(1)
        event = json.loads(got.body)
        assert event["type"] == "sale.completed" and event["data"]["object"]["agentName"] == "BlogSmith"
        assert signing.verify(secret=secret, header=got.headers[signing.HEADER], body=got.body, now=int(time.time()))

        row.get_by_role("button", name="Delivery log").click()
        delivery = page.locator(".webhook-delivery")
        expect(delivery).to_have_count(1)
        expect(delivery).to_have_attribute("data-status", "succeeded")
        expect(delivery.locator(".delivery-status")).to_have_text("succeeded")
        expect(delivery.locator(".delivery-response")).to_have_text("200")
        expect(delivery.locator(".delivery-attempts")).to_have_text("1")
        shot(page, "webhooks-delivery-log")
        expect_fits_phone(page, ".webhook-delivery", "webhooks-delivery-log-phone")  # the endpoint and its log, 390 px

        row.get_by_role("button", name="Delete").click()
        expect_toast(page, "Endpoint deleted")
        expect(page.locator("#webhooks-empty")).to_be_visible()
    finally:
        receiver.close()
