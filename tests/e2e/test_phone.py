"""At 390 px: the top bar's menu, browsing, an agent's page, checkout, and the purchase confirmation that shows
only after a purchase (the tab bars and tables: test_phone_lists.py).

Each test that buys or signs in signs up its own user (the app and its demo data are shared by the session).
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import (
    PHONE,
    expect_fits_phone,
    live_agent_id,
    open_page,
    pay_with_test_card,
    phone,
    shot,
    sign_up,
)

CELEBRATION_WATCH = """window.__celebrated = false; new MutationObserver(() => {
  if (document.getElementById('purchase-success-title')) { window.__celebrated = true; }
}).observe(document, {subtree: true, childList: true});"""


def _top(page: Page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} has no box"
    return box["y"]


def test_top_bar_menu_opens_the_links_by_touch_and_keyboard(page: Page) -> None:
    phone(page)
    open_page(page, "/")
    top_bar_links = page.locator(".top-bar-link")
    expect(top_bar_links.first).to_be_hidden()  # no room in the bar: the menu holds them
    expect(top_bar_links.last).to_be_hidden()
    menu_button = page.get_by_role("button", name="Menu", exact=True)
    expect(menu_button).to_be_visible()
    expect_fits_phone(page, "#nav-menu", "phone-top-bar")

    menu_button.click()
    items = page.locator(".nav-menu-item")
    expect(items).to_have_text(["Browse Agents", "Categories"])
    shot(page, "phone-top-bar-menu-open")
    page.get_by_role("menuitem", name="Browse Agents").click()
    expect(page).to_have_url(re.compile(r"/agents/?$"))
    expect(page.locator("#nav-menu-content")).to_have_count(0)  # closed on navigation

    # Keyboard only: focus the button, open with Enter, move with the arrows, choose with Enter.
    menu_button.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("menuitem", name="Browse Agents")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("menuitem", name="Categories")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/categories/?$"))
    expect(page.locator("#nav-menu-content")).to_have_count(0)
    menu_button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#nav-menu-content")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#nav-menu-content")).to_have_count(0)

    # Signed in, the avatar menu (dashboard, log out) is still in the bar beside it.
    sign_up(page, "phonemenu")
    open_page(page, "/")
    page.click("#avatar-menu")
    expect(page.get_by_role("menuitem", name="Dashboard")).to_be_visible()
    expect(page.get_by_role("menuitem", name="Log out")).to_be_visible()

    # At desktop width the links are in the bar and the menu button is gone.
    page.set_viewport_size({"width": 1280, "height": 900})
    page.keyboard.press("Escape")
    expect(top_bar_links).to_have_text(["Browse Agents", "Categories"])
    expect(top_bar_links.first).to_be_visible()
    expect(menu_button).to_be_hidden()


def test_landing_page_on_a_phone(page: Page) -> None:
    phone(page)
    open_page(page, "/")
    expect(page.locator("#stat-agents")).not_to_have_text("")
    # The four figures two by two, not three and one.
    rows: dict[int, int] = {}
    for stat in ("#stat-agents", "#stat-categories", "#stat-users", "#stat-uptime"):
        top = round(_top(page, stat))
        rows[top] = rows.get(top, 0) + 1
    assert sorted(rows.values()) == [2, 2], rows
    # Category cards side by side are equally tall, whatever the length of their names.
    tiles = page.locator("#home-categories .category-tile")
    expect(tiles).to_have_count(8)
    boxes = [tiles.nth(i).bounding_box() for i in range(8)]
    for left, right in zip(boxes[::2], boxes[1::2], strict=True):
        assert left["y"] == right["y"] and left["height"] == right["height"], (left, right)
    # 'View all agents ->' keeps its arrow on its line.
    for link in page.locator(".section-link").all():
        box, icon = link.bounding_box(), link.locator("svg").bounding_box()
        assert box["height"] < 2 * icon["height"] + 8 and icon["y"] >= box["y"], (box, icon)
    # The closing call to action is centred throughout.
    closing = page.locator("#closing-cta")
    for part in (closing.get_by_role("heading"), closing.locator("p")):
        assert part.evaluate("el => getComputedStyle(el).textAlign") == "center"
    expect_fits_phone(page, "#closing-cta", "phone-landing")


def test_browse_fits_the_phone(page: Page) -> None:
    phone(page)
    open_page(page, "/agents")
    expect(page.locator("#agents-grid .agent-card").first).to_be_visible()
    expect_fits_phone(page, "#agents-grid", "phone-browse")
    open_page(page, "/categories")
    expect(page.locator("#categories-grid .category-card").first).to_be_visible()
    expect_fits_phone(page, "#categories-grid", "phone-categories")


def test_agent_page_shows_price_and_buy_button_first(page: Page) -> None:
    phone(page)
    open_page(page, f"/agents/{live_agent_id(page, 'BlogSmith')}")
    expect(page.locator(".review-item").first).to_be_visible()
    # On the first screen, without scrolling: the price and Get This Agent, before the description and reviews.
    expect(page.locator("#agent-price")).to_be_in_viewport()
    expect(page.locator("#get-agent")).to_be_in_viewport()
    assert page.evaluate("window.scrollY") == 0
    assert _top(page, "#get-agent") < _top(page, "#agent-description") < _top(page, "#reviews-heading")
    assert _top(page, "#favorite") < _top(page, "#reviews-heading")
    expect_fits_phone(page, "#agent-detail", "phone-agent")

    # At desktop width the buying card stays in its side column, level with the header.
    page.set_viewport_size({"width": 1280, "height": 900})
    assert abs(_top(page, "#agent-price") - _top(page, "#agent-name")) < 120
    assert page.locator("#get-agent").bounding_box()["x"] > page.locator("#agent-name").bounding_box()["x"] + 400


def test_checkout_and_purchase_on_a_phone(page: Page) -> None:
    sign_up(page, "phonebuyer")
    phone(page)
    page.add_init_script(CELEBRATION_WATCH)
    open_page(page, f"/checkout/{live_agent_id(page, 'Meeting Minutes')}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    # The payment form says the spec's test-mode words, not the name of a developer tool.
    expect(page.get_by_test_id("stripe-standin-note")).to_have_text("Test mode: no real charges will be made.")
    expect(page.get_by_text(re.compile("stand-in", re.IGNORECASE))).to_have_count(0)
    numbers = page.locator(".test-card-number")
    expect(numbers).to_have_text(["4242 4242 4242 4242", "4000 0000 0000 0002", "4000 0000 0000 9995"])
    for index in range(3):
        # One line each: a single box no taller than one line of its text.
        lines = numbers.nth(index).evaluate(
            "el => [el.getClientRects().length, el.getBoundingClientRect().height,"
            " parseFloat(getComputedStyle(el).lineHeight)]")
        assert lines[0] == 1 and lines[1] < 1.5 * lines[2], lines
    expect_fits_phone(page, "#payment-card", "phone-checkout")
    assert _top(page, "#payment-card") < 2 * PHONE["height"]  # the card form on the second screen (issue 34)

    pay_with_test_card(page)
    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))  # the order id leaves the address bar
    expect_fits_phone(page, "#whats-next", "phone-purchase-success")

    # The same address again (a reload, a bookmark) follows no new purchase: to the dashboard, no confetti.
    page.evaluate("window.__celebrated = false")
    page.reload()
    expect(page).to_have_url(re.compile(r"/dashboard/?$"))
    expect(page.locator(".purchase-card", has_text="Meeting Minutes")).to_be_visible()
    assert page.evaluate("window.__celebrated") is False
    assert _top(page, ".purchase-card") < PHONE["height"]  # My Agents starts on the first screen (issue 34)


def test_purchase_success_opened_directly_goes_to_the_dashboard(page: Page) -> None:
    sign_up(page, "nopurchase")
    page.add_init_script(CELEBRATION_WATCH)
    for address in ("/purchase-success", "/purchase-success?order=0123456789abcdef0123456789abcdef",
                    "/purchase-success?order=../admin"):
        page.goto(address)
        expect(page).to_have_url(re.compile(r"/dashboard/?$"))
        expect(page.locator("#dashboard")).to_be_visible()
        assert page.evaluate("window.__celebrated") is False, address
    expect(page.locator("[data-confetti-piece]")).to_have_count(0)
