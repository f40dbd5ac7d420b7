"""A signed-out guest applies the demo data's promotion code at checkout (1280 and 390 px): the field appears once
their e-mail and name opened the payment, a refused code says why under it, the applied code lowers the total,
and at 1280 px the guest pays the discounted amount. A guest also gets the demo's free trial: the card is saved,
nothing is paid, and the success page says the trial started."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import open_page, shot
from tests.e2e.helpers import (
    DEMO_ADMIN,
    api_context,
    live_agent_id,
    mail_link,
    pay_with_test_card,
    phone,
    unique,
)

AGENT = "Test Writer"  # one of the demo vendor's one-time agents that the demo code WELCOME20 applies to
CODE = "WELCOME20"
TRIAL_AGENT = "Research Assistant"  # the demo's monthly agent with a 7-day trial
SETTING = "/api/admin/settings/allowGuestCheckout"


@pytest.fixture
def guest_checkout_on(browser: Browser, app_server: str) -> Iterator[None]:
    """Guest checkout on for the test, off again afterwards (other tests expect signed-out checkouts to sign in)."""
    context = api_context(browser, app_server)
    try:
        assert context.request.post("/api/login", data={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]}).ok
        assert context.request.put(SETTING, data={"value": "true"}).ok
        yield
    finally:
        assert context.request.put(SETTING, data={"value": "false"}).ok
        context.close()


def _guest_applies_the_code(page: Page, agent_id: str, name: str) -> None:
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#guest-details")).to_be_visible()
    expect(page.locator("#promotion-code")).to_have_count(0)  # checked for the guest's account: details first
    page.fill("#guestEmail", f"{unique('guestcode')}@example.com")
    page.fill("#guestName", "Gus Guest")
    page.click("#continue-to-payment")
    full = page.locator("#summary-total").inner_text()
    expect(page.locator("#submit-payment")).to_have_text(f"Complete Payment • {full}")
    page.fill("#promotionCode", "NOT-A-REAL-CODE")
    page.click("#apply-promotion-code")
    expect(page.locator("#promotionCode-error")).to_have_text("This code is not valid for this agent.")
    expect(page.locator("#summary-total")).to_have_text(full)
    page.fill("#promotionCode", CODE.lower())
    page.click("#apply-promotion-code")
    expect(page.locator("#promotion-code-applied")).to_have_text(f"Code {CODE} applied")
    expect(page.locator("#summary-subtotal")).to_have_text(full)
    expect(page.locator("#summary-total")).not_to_have_text(full)
    discounted = page.locator("#summary-total").inner_text()
    expect(page.locator("#submit-payment")).to_have_text(f"Complete Payment • {discounted}")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shot(page, f"guest-promotion-code-{name}")


def test_a_guest_applies_a_code_at_desktop_and_phone_width(page: Page, guest_checkout_on: None) -> None:
    agent_id = live_agent_id(page, AGENT)
    _guest_applies_the_code(page, agent_id, "desktop")
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))
    expect(page.locator("#guest-order-agent")).to_have_text(AGENT)
    page.context.clear_cookies()
    phone(page)
    _guest_applies_the_code(page, agent_id, "phone")


def test_a_guest_starts_the_demo_trial(page: Page, guest_checkout_on: None) -> None:
    open_page(page, f"/checkout/{live_agent_id(page, TRIAL_AGENT)}")
    email = f"{unique('guesttrial')}@example.com"
    page.fill("#guestEmail", email)
    page.fill("#guestName", "Tia Trial")
    page.click("#continue-to-payment")
    expect(page.locator("#summary-trial")).to_contain_text("Free for 7 days")
    expect(page.locator("#submit-payment")).to_have_text("Start Free Trial")
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))
    expect(page.get_by_role("heading", name="Free Trial Started!", exact=True)).to_be_visible()
    expect(page.locator("#guest-order-agent")).to_have_text(TRIAL_AGENT)
    expect(page.locator("#check-your-email")).to_contain_text(email)
    assert "/set-password" in mail_link(page, email, f"Your free trial: {TRIAL_AGENT}", "/set-password")
