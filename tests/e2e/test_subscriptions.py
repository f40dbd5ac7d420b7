"""Subscriptions in a real browser against the Stripe stand-in: subscribe to a monthly agent with the test card
through the checkout, see it in My Agents ('Renews on'), cancel it (with its confirmation) and resume it, at
desktop width and at 390 px; and the update-card page with the Payment Element confirming a SetupIntent.

Every test signs up its own user (the app and its demo data are shared by the whole session).
"""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.conftest import new_context, open_page
from tests.e2e.helpers import (
    advance_demo_clock,
    buy,
    expect_fits_phone,
    expect_toast,
    live_agent_id,
    phone,
    same_origin,
    shot,
    sign_in,
    sign_up,
)

RENEWS = re.compile(r"^Renews on [A-Z][a-z]{2} \d{1,2}, \d{4}$")
ENDS = re.compile(r"^Ends on [A-Z][a-z]{2} \d{1,2}, \d{4}$")


def _subscribe_and_manage(page: Page, agent_name: str, shots: str) -> None:
    sign_up(page, "subscriber")
    agent_id = live_agent_id(page, agent_name)
    buy(page, agent_id)
    [subscription] = page.request.get("/api/user/subscriptions").json()
    assert (subscription["agentName"], subscription["status"]) == (agent_name, "active")

    open_page(page, "/dashboard")
    card = page.locator(f".purchase-card[data-agent='{agent_name}']")
    expect(card.locator(".subscription-status")).to_have_text("Active")
    expect(card.locator(".subscription-renewal")).to_have_text(RENEWS)
    day = card.locator(".subscription-renewal").inner_text().removeprefix("Renews on ")
    shot(page, f"{shots}-active")

    card.locator(".cancel-subscription").click()
    dialog = page.locator("#cancel-dialog")
    expect(dialog).to_contain_text(f"You keep access until {day}.")
    shot(page, f"{shots}-confirm")
    page.click("#confirm-cancel")
    expect_toast(page, "Subscription cancelled", f"You keep access until {day}.")
    expect(dialog).to_have_count(0)
    expect(card.locator(".subscription-renewal")).to_have_text(f"Ends on {day}")
    expect(card.locator(".cancel-subscription")).to_have_count(0)
    assert page.request.get("/api/user/subscriptions").json()[0]["cancelAtPeriodEnd"] is True

    card.locator(".resume-subscription").click()
    expect_toast(page, "Subscription resumed", f"Renews on {day}.")
    expect(card.locator(".subscription-renewal")).to_have_text(f"Renews on {day}")
    expect(card.locator(".resume-subscription")).to_have_count(0)
    assert page.request.get("/api/user/subscriptions").json()[0]["cancelAtPeriodEnd"] is False

    # Keeping it from the dialog changes nothing.
    card.locator(".cancel-subscription").click()
    page.get_by_role("button", name="Keep subscription").click()
    expect(dialog).to_have_count(0)
    expect(card.locator(".subscription-renewal")).to_have_text(RENEWS)

    # The Orders tab lists the charge.
    open_page(page, "/dashboard?tab=orders")
    expect(page.locator(".order-row").filter(has_text=agent_name)).to_have_count(1)


def test_subscribe_see_it_cancel_and_resume(page: Page) -> None:
    _subscribe_and_manage(page, "Report Robot", "subscription")


def test_subscribe_cancel_and_resume_on_a_phone(page: Page) -> None:
    phone(page)
    _subscribe_and_manage(page, "Zap Weaver", "subscription-phone")
    open_page(page, "/dashboard")
    expect_fits_phone(page, ".subscription-box", "subscription-phone-my-agents")


def test_update_card_page_saves_a_new_card(page: Page) -> None:
    sign_up(page, "cardholder")
    buy(page, live_agent_id(page, "Meeting Minutes"))
    [subscription] = page.request.get("/api/user/subscriptions").json()
    open_page(page, f"/dashboard/billing/{subscription['id']}")
    expect(page.locator("#card-update-agent")).to_have_text("Subscription: Meeting Minutes")
    expect(page.locator("#submit-payment")).to_have_text("Save card")
    expect(page.locator("#submit-payment")).to_be_enabled()
    page.get_by_label("Card number").fill("4242 4242 4242 4242")
    page.get_by_label("Expiration date").fill("12 / 34")
    page.get_by_label("Security code").fill("123")
    page.click("#submit-payment")
    expect_toast(page, "Card updated", "Your subscription to Meeting Minutes uses the new card.")
    expect(page).to_have_url(re.compile(r"/dashboard\?tab=purchases$"))
    open_page(page, f"/dashboard/billing/{subscription['id']}")
    expect_fits_phone(page, "#card-update-title", "card-update-phone")

    # Someone else's subscription: the page says why and offers the way back.
    page.context.clear_cookies()
    sign_up(page, "stranger")
    open_page(page, f"/dashboard/billing/{subscription['id']}")
    expect(page.locator("#card-update-failed")).to_contain_text("This subscription belongs to another account")


def test_advancing_the_demo_clock_shows_the_renewal_in_orders_and_in_the_vendors_sales(page: Page) -> None:
    """The demo's test clock: an admin moves it a month ahead; once that answers, the renewal is an order of
    the customer and a sale of the vendor."""
    buyer = sign_up(page, "renewer")
    agent_id = live_agent_id(page, "Newsletter Navigator")
    assert page.request.get(f"/api/agents/{agent_id}").json()["vendor"]["username"] == "vendor"
    buy(page, agent_id)
    advance_demo_clock(page, 32)  # past a 31-day month's renewal and the hour before it is charged
    assert page.context.browser is not None
    vendor = new_context(page.context.browser, base_url=same_origin(page)["Origin"])
    try:
        vendor_page = vendor.new_page()
        sign_in(vendor_page, "vendor", "vendor123", api=True)
        sales = vendor_page.request.get("/api/vendor/sales", params={"limit": 100}).json()
        mine = [s for s in sales if s["customerEmail"] == f"{buyer}@example.com"]
        assert len(mine) == 2 and {s["agentName"] for s in mine} == {"Newsletter Navigator"}
    finally:
        vendor.close()
    open_page(page, "/dashboard?tab=orders")
    expect(page.locator(".order-row").filter(has_text="Newsletter Navigator")).to_have_count(2)
    shot(page, "subscription-renewal-orders")
    open_page(page, "/dashboard")
    card = page.locator(".purchase-card[data-agent='Newsletter Navigator']")
    expect(card.locator(".subscription-status")).to_have_text("Active")
    expect(card.locator(".subscription-renewal")).to_have_text(RENEWS)


def test_a_failed_renewal_shows_the_update_card_link_and_a_new_card_recovers_it(page: Page) -> None:
    buyer = sign_up(page, "declined")
    buy(page, live_agent_id(page, "Refund Resolver"))
    # The saved card starts declining (the stand-in's switch for a card that fails later), as a real one may.
    standin = page.request.get("/api/stripe/config").json()["stripeJsUrl"].removesuffix("/js.stripe.com/v3/")
    secret = {"Authorization": "Bearer sk_test_standin"}
    customer = httpx.get(f"{standin}/v1/customers", params={"email": f"{buyer}@example.com"}, headers=secret)
    [sub] = httpx.get(f"{standin}/v1/subscriptions", params={"customer": customer.json()["data"][0]["id"]},
                      headers=secret).json()["data"]
    httpx.post(f"{standin}/_standin/payment_methods/{sub['default_payment_method']}/decline_later",
               json={"decline_code": "insufficient_funds"}).raise_for_status()
    advance_demo_clock(page, 32)

    open_page(page, "/dashboard")
    card = page.locator(".purchase-card[data-agent='Refund Resolver']")
    expect(card.locator(".subscription-status")).to_have_text("Payment failed")
    expect(card.locator(".subscription-renewal")).to_have_text("")
    shot(page, "subscription-past-due")
    card.locator(".update-card-link").click()
    expect(page.locator("#card-update-past-due")).to_be_visible()
    expect(page.locator("#submit-payment")).to_be_enabled()
    page.get_by_label("Card number").fill("4242 4242 4242 4242")
    page.get_by_label("Expiration date").fill("12 / 34")
    page.get_by_label("Security code").fill("123")
    page.click("#submit-payment")
    expect_toast(page, "Card updated", "Your subscription to Refund Resolver uses the new card.")
    expect(card.locator(".subscription-status")).to_have_text("Active")
    expect(card.locator(".subscription-renewal")).to_have_text(RENEWS)
    expect(card.locator(".update-card-link")).to_have_count(0)
    open_page(page, "/dashboard?tab=orders")
    expect(page.locator(".order-row").filter(has_text="Refund Resolver")).to_have_count(2)
