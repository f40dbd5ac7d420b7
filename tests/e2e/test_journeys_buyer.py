"""The buyer's money journeys as people meet them (issue 34), in a real browser: back to the checkout after
signing in or up (and never to another site), what the success page says was bought, and a failed 3-D Secure
check in words the buyer can act on, in view at 1280x800.

Demo data relied on: live agents 'BlogSmith' (monthly) with a price.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import (
    PASSWORD,
    expect_toast,
    live_agent_id,
    open_page,
    pay_with_test_card,
    shot,
    sign_up,
    unique,
)

pytestmark = pytest.mark.e2e

THREE_D_SECURE_CARD = "4000 0025 0000 3155"  # the stand-in (like Stripe) asks for 3-D Secure with it
AUTHENTICATION_FAILED = "Your bank could not confirm this payment. Try again or use another card."


def test_a_signed_out_buyer_comes_back_to_the_checkout_after_signing_in(page: Page) -> None:
    agent_id = live_agent_id(page, "BlogSmith")
    username = sign_up(page, "returner")
    page.context.clear_cookies()
    page.goto(f"/checkout/{agent_id}")
    expect(page).to_have_url(re.compile(rf"/login\?next=/checkout/{agent_id}$"))
    expect(page.locator("#sign-in-google")).to_have_attribute("href", f"/api/auth/google?next=/checkout/{agent_id}")
    expect(page.locator("#create-new-account")).to_have_attribute("href", f"/signup?next=/checkout/{agent_id}")
    shot(page, "journeys-login-next")
    page.locator("#hydrated").wait_for(state="attached")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("#sign-in")
    expect(page).to_have_url(re.compile(rf"/checkout/{agent_id}$"))
    expect(page.locator("#submit-payment")).to_be_enabled()


def test_a_new_buyer_signs_up_from_the_checkout_and_comes_back(page: Page) -> None:
    agent_id = live_agent_id(page, "BlogSmith")
    open_page(page, f"/signup?next=/checkout/{agent_id}")
    expect(page.locator("#sign-in-instead")).to_have_attribute("href", f"/login?next=/checkout/{agent_id}")
    page.fill("#username", username := unique("newbuyer"))
    page.fill("#email", f"{username}@example.com")
    page.fill("#password", PASSWORD)
    page.fill("#confirm_password", PASSWORD)
    page.click("#create-account")
    expect(page).to_have_url(re.compile(rf"/checkout/{agent_id}$"))
    expect(page.locator("#submit-payment")).to_be_enabled()


@pytest.mark.parametrize("elsewhere", ["https://evil.example/phish", "//evil.example/phish"])
def test_a_next_address_off_this_site_is_refused(page: Page, elsewhere: str) -> None:
    username = sign_up(page, "nextcheck")
    page.context.clear_cookies()
    open_page(page, f"/login?next={elsewhere}")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("#sign-in")
    expect_toast(page, "Welcome back!", "You have successfully logged in.")
    expect(page).to_have_url(re.compile(r"^http://localhost:\d+/$"))  # home, not the other site


def test_the_signed_in_success_page_says_what_was_bought(page: Page) -> None:
    sign_up(page, "successful")
    agent_id = live_agent_id(page, "BlogSmith")
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))
    [purchase] = page.request.get("/api/user/purchases").json()
    [order] = page.request.get("/api/user/orders").json()
    [sub] = page.request.get("/api/user/subscriptions").json()
    card = page.locator("#buyer-order")
    expect(card.locator("#order-agent")).to_have_text("BlogSmith")
    expect(card.locator("#order-total")).to_have_text("$29.99")
    expect(card.locator("#order-number")).to_have_text(order["id"][-8:])
    expect(card.locator("#order-license-key")).to_have_text(purchase["licenseKey"])
    expect(card.locator("#order-renews")).to_have_text(re.compile(r"^Renews on [A-Z][a-z]{2} \d{1,2}, \d{4}$"))
    assert sub["currentPeriodEnd"]
    expect(page.locator("#contact-support")).to_have_attribute("href", "/contact")
    shot(page, "journeys-success-order")
    page.set_viewport_size({"width": 390, "height": 844})
    expect(card.locator("#order-license-key")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "journeys-success-order-phone")


def test_a_failed_3d_secure_check_says_what_to_do_in_view(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    sign_up(page, "threeds")
    agent_id = live_agent_id(page, "BlogSmith")
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    page.get_by_label("Card number").fill(THREE_D_SECURE_CARD)
    page.get_by_label("Expiration date").fill("12 / 34")
    page.get_by_label("Security code").fill("123")
    page.click("#submit-payment")
    page.get_by_role("button", name="Fail authentication").click()
    error = page.locator("#payment-error")
    expect(error).to_have_text(f"Payment Error {AUTHENTICATION_FAILED}")
    expect(error).to_be_in_viewport(ratio=1)
    box = error.bounding_box()
    assert box and box["y"] + box["height"] <= 800 - 40, f"the error sits at the window's bottom edge: {box}"
    shot(page, "journeys-3ds-failed")
