"""Saved cards in a real browser against the Stripe stand-in: a customer with a subscription opens the Payment
tab, sees the checkout's card as the default and the charge in the history, cannot remove the card the
subscription is charged with, adds a second card through the Payment Element (a SetupIntent) and makes it the
default, then removes the first; at desktop width and at 390 px.

Every test signs up its own user (the app and its demo data are shared by the whole session).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page
from tests.e2e.helpers import buy, expect_fits_phone, expect_toast, live_agent_id, phone, shot, sign_up

NEEDED = "This card pays an active subscription. Make another card the default first."


def _add_a_card_and_make_it_default(page: Page, agent_name: str, shots: str) -> None:
    sign_up(page, "cardsaver")
    buy(page, live_agent_id(page, agent_name))
    open_page(page, "/dashboard?tab=payment")
    cards = page.locator(".saved-card")
    expect(cards).to_have_count(1)
    first = cards.filter(has_text="Expires 12/2034")
    expect(first.locator(".card-label")).to_have_text("Visa •••• 4242")
    expect(first.locator(".card-default")).to_have_text("Default")
    expect(page.locator("#payment-history .payment-history-row").filter(has_text=agent_name)).to_have_count(1)
    expect(page.get_by_text("No payment methods saved")).to_have_count(0)
    expect(page.get_by_text("No payment history")).to_have_count(0)

    first.locator(".remove-card").click()
    expect_toast(page, "Card not removed", NEEDED)
    expect(cards).to_have_count(1)

    page.click("#add-payment-method")
    expect(page.locator("#submit-payment")).to_have_text("Save card")
    expect(page.locator("#submit-payment")).to_be_enabled()
    page.get_by_label("Card number").fill("4242 4242 4242 4242")
    page.get_by_label("Expiration date").fill("10 / 31")
    page.get_by_label("Security code").fill("123")
    shot(page, f"{shots}-adding")
    page.click("#submit-payment")
    expect_toast(page, "Card added")
    expect(cards).to_have_count(2)
    second = cards.filter(has_text="Expires 10/2031")
    expect(second.locator(".card-default")).to_have_count(0)

    second.locator(".make-default").click()
    expect_toast(page, "Default card changed", "Your subscriptions are charged to Visa •••• 4242 from now on.")
    expect(second.locator(".card-default")).to_have_text("Default")
    expect(first.locator(".card-default")).to_have_count(0)
    listed = page.request.get("/api/user/payment-methods").json()
    assert [(c["expYear"], c["isDefault"]) for c in listed] == [(2031, True), (2034, False)]
    shot(page, f"{shots}-default")

    first.locator(".remove-card").click()  # no subscription needs it any more
    expect_toast(page, "Card removed")
    expect(cards).to_have_count(1)
    expect(cards.first).to_contain_text("Expires 10/2031")


def test_add_a_second_card_and_make_it_the_default(page: Page) -> None:
    _add_a_card_and_make_it_default(page, "Meeting Minutes", "saved-cards")


def test_add_a_second_card_and_make_it_the_default_on_a_phone(page: Page) -> None:
    phone(page)
    _add_a_card_and_make_it_default(page, "Report Robot", "saved-cards-phone")
    expect_fits_phone(page, "#payment-methods", "saved-cards-phone-tab")
