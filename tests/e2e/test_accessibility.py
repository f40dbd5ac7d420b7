"""Accessibility in a real browser: axe-core (WCAG 2.1 A/AA) finds nothing serious on the eleven pages people use
most, each has one `main` and one `h1`; the skip link, focus after a refused form and after a declined card.

One test per role visits that role's pages in one tab, so the whole file costs a dozen page loads.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import DEMO_ADMIN, check_accessibility, live_agent_id, open_page, shot, sign_in, sign_up

DECLINED_CARD = "4000000000000002"  # the stand-in (as Stripe) declines it: 'Your card was declined.'


def _focused_id(page: Page) -> str:
    return page.evaluate("document.activeElement ? document.activeElement.id : ''")


def test_visitor_pages_skip_link_and_refused_forms(page: Page) -> None:
    open_page(page, "/")
    expect(page.locator("#featured-agents")).to_be_visible()
    # The skip link is the first stop of the keyboard, unseen until then, and leads into `main`.
    skip = page.locator("#skip-link")
    assert skip.bounding_box()["y"] + skip.bounding_box()["height"] <= 0, "the skip link shows before it is focused"
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    shot(page, "a11y-skip-link")
    page.keyboard.press("Enter")
    expect(page.locator("main#main-content")).to_be_focused()
    check_accessibility(page, "/")

    open_page(page, "/agents")
    expect(page.locator("#agents-grid .agent-name").first).to_be_visible()
    check_accessibility(page, "/agents")

    open_page(page, f"/agents/{live_agent_id(page, 'InvoiceFlow')}")
    expect(page.locator("#agent-name")).to_have_text("InvoiceFlow")
    check_accessibility(page, "/agents/{id}")

    open_page(page, "/categories")
    expect(page.locator(".category-name").first).to_be_visible()
    check_accessibility(page, "/categories")

    # A refused sign-in puts the focus on the first field in error, which its error line describes.
    open_page(page, "/login")
    check_accessibility(page, "/login")
    page.fill("#password", "whatever")
    page.click("#sign-in")
    expect(page.locator("#username-error")).to_have_text("Username or email is required")
    expect(page.locator("#username")).to_be_focused()
    expect(page.locator("#username")).to_have_attribute("aria-describedby", "username-error")
    expect(page.locator("#username")).to_have_attribute("aria-invalid", "true")

    open_page(page, "/signup")
    check_accessibility(page, "/signup")
    page.fill("#username", "someone")
    page.fill("#email", "not an address")
    page.keyboard.press("Enter")  # submitted from the keyboard, in the last field typed in
    expect(page.locator("#email-error")).to_be_visible()
    expect(page.locator("#email")).to_be_focused()


def test_customer_dashboard(page: Page) -> None:
    sign_in(page, "customer", "customer123", api=True)
    open_page(page, "/dashboard")
    expect(page.locator("#panel-purchases")).to_be_visible()
    expect(page.locator("#tab-purchases")).to_have_attribute("aria-controls", "panel-purchases")
    check_accessibility(page, "/dashboard")


def test_keyboard_checkout_focuses_the_payment_error(page: Page) -> None:
    sign_up(page, "keyboard")
    open_page(page, f"/checkout/{live_agent_id(page, 'InvoiceFlow')}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    check_accessibility(page, "/checkout/{id}")

    card = page.get_by_label("Card number")
    for _ in range(40):  # Tab from the top of the page to the card number, as a keyboard user would
        page.keyboard.press("Tab")
        if card.evaluate("field => field === document.activeElement"):
            break
    expect(card).to_be_focused()
    page.keyboard.type(DECLINED_CARD)
    page.keyboard.press("Tab")
    expect(page.get_by_label("Expiration date")).to_be_focused()
    page.keyboard.type("1234")
    page.keyboard.press("Tab")
    expect(page.get_by_label("Security code")).to_be_focused()
    page.keyboard.type("123")
    page.keyboard.press("Enter")

    error = page.locator("#payment-error")
    expect(error).to_have_text("Payment Error Your card was declined.")
    expect(error).to_be_focused()
    shot(page, "a11y-payment-error-focused")


def test_vendor_pages_and_the_wizards_refused_step(page: Page) -> None:
    sign_in(page, "vendor", "vendor123", api=True)
    open_page(page, "/vendor")
    expect(page.locator("#vendor-share")).to_be_visible()
    check_accessibility(page, "/vendor")

    open_page(page, "/vendor/add-agent")
    expect(page.locator("#wizard-heading")).to_have_text("Create New AI Agent")
    check_accessibility(page, "/vendor/add-agent")
    page.fill("#name", "Focus Finder")
    page.locator("#wizard-next").click(force=True)  # the step is incomplete: refused
    expect(page.locator("#shortDescription")).to_be_focused()
    expect(page.locator("#step-title")).to_have_text("Agent Info")


def test_admin_panel(page: Page) -> None:
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin")
    expect(page.locator("#panel-overview")).to_be_visible()
    expect(page.locator("#panel-overview")).to_have_attribute("aria-labelledby", "tab-overview")
    check_accessibility(page, "/admin")
    expect(page).to_have_url(re.compile(r"/admin"))
