"""Promotion codes on monthly agents in a real browser against the Stripe stand-in (issue 31): the demo vendor's
code takes 25% off one of its monthly agents for its first 3 months; a customer applies it at checkout at 1280
and at 390 px, sees the code, the discount, the new total and which months it covers, and subscribes; advancing
the demo clock a month shows the discounted renewal in Orders, with its code."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page
from tests.e2e.helpers import (
    advance_demo_clock,
    expect_fits_phone,
    pay_with_test_card,
    phone,
    shot,
    sign_in,
    sign_up,
    vendor_code,
)


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _vendor_code(page: Page) -> tuple[str, dict]:
    """The demo vendor's code (through its API): 25% off its first live monthly agent without a trial, for the
    first 3 months. The page's context is signed out again."""
    sign_in(page, "vendor", "vendor123", api=True)
    agents = page.request.get("/api/vendor/agents").json()
    agent = next(a for a in agents if a["pricingModel"] == "monthly" and a["status"] == "approved"
                 and not a.get("trialDays") and a["name"] != "Newsletter Navigator")
    code = vendor_code(page, agent["id"], "MONTHS")
    page.context.clear_cookies()
    return code, agent


def _subscribe_with_code(page: Page, code: str, agent: dict, shots: str) -> tuple[str, str]:
    """Sign up, apply the code at checkout, check what the summary says and subscribe. Returns (total, off)."""
    sign_up(page, "monthcoder")
    cents = round(float(page.request.get(f"/api/agents/{agent['id']}").json()["price"]) * 100)
    off_cents = (cents * 25 + 50) // 100
    total, off = _money(cents - off_cents), f"-{_money(off_cents)}"
    open_page(page, f"/checkout/{agent['id']}")
    expect(page.locator("#submit-payment")).to_have_text(f"Complete Payment • {_money(cents)}")
    page.fill("#promotionCode", code.lower())
    page.click("#apply-promotion-code")
    expect(page.locator("#summary-code")).to_have_text(code)
    expect(page.locator("#summary-discount")).to_have_text(off)
    expect(page.locator("#summary-code-months")).to_have_text(f"First 3 months, then {_money(cents)}/month")
    expect(page.locator("#summary-subtotal")).to_have_text(_money(cents))
    expect(page.locator("#summary-total")).to_have_text(total)
    expect(page.locator("#submit-payment")).to_have_text(f"Complete Payment • {total}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    shot(page, f"{shots}-checkout")
    width = page.viewport_size["width"] if page.viewport_size else 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))
    [order] = page.request.get("/api/user/orders").json()
    assert (f"${order['totalAmount']}", order["promotionCode"], f"-${order['discountAmount']}") == (total, code, off)
    return total, off


def test_a_monthly_code_at_desktop_width_and_its_discounted_renewal_in_orders(page: Page) -> None:
    code, agent = _vendor_code(page)
    total, off = _subscribe_with_code(page, code, agent, "monthly-code")
    advance_demo_clock(page, 32)  # past the renewal and the hour before Stripe charges it
    open_page(page, "/dashboard?tab=orders")
    rows = page.locator(".order-row").filter(has_text=agent["name"])
    expect(rows).to_have_count(2)
    for n in range(2):
        expect(rows.nth(n)).to_contain_text(total)
        expect(rows.nth(n).locator(".order-discount")).to_have_text(f"Code {code}: {off}")
    shot(page, "monthly-code-renewal-orders")


def test_a_monthly_code_on_a_phone(page: Page) -> None:
    code, agent = _vendor_code(page)
    phone(page)
    _subscribe_with_code(page, code, agent, "monthly-code-phone")
    open_page(page, "/dashboard?tab=orders")
    expect_fits_phone(page, ".order-discount", "monthly-code-phone-orders")


