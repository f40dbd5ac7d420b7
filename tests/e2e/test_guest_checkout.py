"""Guest checkout in a real browser: the admin turns it on in /admin/settings; a signed-out visitor buys from the
agent page with an e-mail and a name, reads the receipt in the dev mailbox, follows its link, sets a password and
finds the agent in My Agents; an e-mail with an account is told to sign in (at 390 px); with the setting off,
'Get This Agent' leads to sign-in."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import new_context, open_page, shot
from tests.e2e.helpers import (
    DEMO_ADMIN,
    PASSWORD,
    api_context,
    expect_fits_phone,
    expect_toast,
    live_agent_id,
    mail_link,
    pay_with_test_card,
    sign_in,
    unique,
)

AGENT = "Meeting Minutes"
SETTING = "/api/admin/settings/allowGuestCheckout"


@pytest.fixture
def guest_checkout_off_after(browser: Browser, app_server: str) -> Iterator[None]:
    """The setting is off again afterwards (other tests expect signed-out checkouts to go to sign-in)."""
    yield
    context = api_context(browser, app_server)
    try:
        assert context.request.post("/api/login", data={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]}).ok
        assert context.request.put(SETTING, data={"value": "false"}).ok
    finally:
        context.close()


def _get_this_agent(page: Page, agent_id: str) -> None:
    open_page(page, f"/agents/{agent_id}")
    page.click("#get-agent")


def test_admin_turns_guest_checkout_on_and_a_guest_buys_end_to_end(page: Page, browser: Browser, app_server: str,
                                                                   guest_checkout_off_after: None) -> None:
    admin = new_context(browser, base_url=app_server, viewport={"width": 1280, "height": 900})
    try:
        settings = admin.new_page()
        sign_in(settings, *DEMO_ADMIN, api=True)
        open_page(settings, "/admin/settings")
        expect(settings.locator("#guest-now")).to_have_text("Off: visitors must sign in to buy.")
        settings.click("#allowGuestCheckout")
        expect_toast(settings, "Guest checkout turned on",
                     "Signed-out visitors can now buy with their e-mail address.")
        expect(settings.locator("#guest-now")).to_have_text("On: visitors can buy without signing in.")
        expect(settings.locator("#allowGuestCheckout")).to_have_attribute("data-state", "checked")
        shot(settings, "guest-checkout-setting")
    finally:
        admin.close()

    agent_id = live_agent_id(page, AGENT)
    _get_this_agent(page, agent_id)
    expect(page).to_have_url(re.compile(rf"/checkout/{agent_id}$"))
    expect(page.locator("#guest-details")).to_be_visible()
    expect(page.locator("#submit-payment")).to_have_count(0)  # the payment opens once the details are in
    page.click("#continue-to-payment")
    expect(page.locator("#guestEmail-error")).to_have_text("Please enter a valid email address")
    expect(page.locator("#guestName-error")).to_have_text("Please enter your name")

    email = f"{unique('guest')}@example.com"
    page.fill("#guestEmail", email)
    page.fill("#guestName", "Gina Guest")
    page.click("#continue-to-payment")
    expect(page.locator("#billing-email")).to_have_text(email)
    expect(page.locator("#submit-payment")).to_be_enabled()
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))
    expect(page.locator("#guest-order-agent")).to_have_text(AGENT)
    expect(page.locator("#guest-order-number")).to_have_text(re.compile(r"^[0-9a-f]{8}$"))
    expect(page.get_by_text("Check your e-mail", exact=True)).to_be_visible()
    expect(page.locator("#check-your-email")).to_contain_text(email)
    shot(page, "guest-purchase-success")

    link = mail_link(page, email, f"Your receipt: {AGENT}", "/set-password", shot_as="guest-receipt-mail")
    page.goto(link)
    page.fill("#guest-password", PASSWORD)
    page.fill("#guest-confirm-password", PASSWORD)
    page.click("#set-guest-password")
    expect(page).to_have_url(re.compile(r"/dashboard/?$"))
    expect_toast(page, "Password set", "You are signed in. Your agents are in My Agents.")
    expect(page.locator(f".purchase-card[data-agent='{AGENT}']")).to_be_visible()
    shot(page, "guest-my-agents")

    # The link worked once.
    page.goto(link)
    expect(page.locator("#guest-link-invalid")).to_have_text(
        "This link is invalid or has expired. Please request a new one.")


def test_an_email_with_an_account_is_asked_to_sign_in_on_a_phone_then_off_leads_to_sign_in(
        page: Page, browser: Browser, app_server: str, guest_checkout_off_after: None) -> None:
    admin = api_context(browser, app_server)
    try:
        assert admin.request.post("/api/login", data={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]}).ok
        assert admin.request.put(SETTING, data={"value": "true"}).ok
        agent_id = live_agent_id(page, AGENT)
        open_page(page, f"/checkout/{agent_id}")
        expect_fits_phone(page, "#guest-details", "guest-checkout-phone")
        page.fill("#guestEmail", "customer@agentmarket.test")
        page.fill("#guestName", "Someone Else")
        page.click("#continue-to-payment")
        expect(page.locator("#guest-error")).to_have_text("Please sign in to buy with this e-mail")
        expect(page.locator("#submit-payment")).to_have_count(0)
        expect_fits_phone(page, "#guest-error", "guest-checkout-phone-409")

        assert admin.request.put(SETTING, data={"value": "false"}).ok
    finally:
        admin.close()
    _get_this_agent(page, agent_id)
    expect(page).to_have_url(re.compile(rf"/login/?\?next=/checkout/{agent_id}$"))  # back to it after signing in
    expect_toast(page, "Login Required", "Please log in to purchase agents")
