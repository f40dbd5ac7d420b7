"""Promotion codes in a real browser against the Stripe stand-in: the demo vendor makes a code for one of its
one-time agents on its dashboard; customers apply it at checkout at 1280 and 390 px, see the code, the discount
and the new total (a refused code says why under the field and leaves the checkout as it was), and pay the
discounted amount; the order carries the code and the discount, and the admin's commissions say both at 1280 and
390 px."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page
from tests.e2e.helpers import (
    DEMO_ADMIN,
    expect_fits_phone,
    expect_toast,
    pay_with_test_card,
    phone,
    shot,
    sign_in,
    sign_up,
    unique,
)


def _vendor_makes_a_code(page: Page) -> tuple[str, str, str]:
    """The demo vendor's dashboard: 20% off one of its live one-time agents. Returns (code, agent id, name)."""
    sign_in(page, "vendor", "vendor123", api=True)
    agents = page.request.get("/api/vendor/agents").json()
    agent = next(a for a in agents if a["pricingModel"] == "one_time" and a["status"] == "approved")
    code = unique("SAVE").upper()[:32]
    open_page(page, "/vendor")
    section = page.locator("#vendor-promotion-codes")
    expect(section.get_by_text("Promotion codes", exact=True)).to_be_visible()
    page.fill("#promo-code", code)
    page.fill("#promo-value", "20")
    section.locator(f".promo-agent[data-agent='{agent['name']}']").click()
    page.click("#promo-create")
    expect_toast(page, "Promotion code created", f"{code} can be used at checkout now.")
    row = page.locator(f".promo-row[data-code='{code}']")
    expect(row).to_contain_text("20% off, first payment")
    expect(row).to_contain_text("1 agent")
    shot(page, "promotion-codes-vendor")
    phone(page)
    expect(page.locator(f".promo-card[data-code='{code}']")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "promotion-codes-vendor-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    return code, agent["id"], agent["name"]


def _apply_and_pay(page: Page, code: str, agent_id: str, *, full: str, discounted: str, off: str, name: str) -> str:
    """A new customer pays with the code; returns the order's id."""
    sign_up(page, "coder")
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#submit-payment")).to_have_text(f"Complete Payment • {full}")
    # A refused code: its reason under the field; the price and the payment form stay as they were.
    page.fill("#promotionCode", "NOT-A-REAL-CODE")
    page.click("#apply-promotion-code")
    expect(page.locator("#promotionCode-error")).to_have_text("This code is not valid for this agent.")
    expect(page.locator("#summary-total")).to_have_text(full)
    expect(page.locator("#submit-payment")).to_have_text(f"Complete Payment • {full}")
    page.fill("#promotionCode", code.lower())
    page.click("#apply-promotion-code")
    expect(page.locator("#promotion-code-applied")).to_have_text(f"Code {code} applied")
    expect(page.locator("#summary-code")).to_have_text(code)
    expect(page.locator("#summary-discount")).to_have_text(off)
    expect(page.locator("#summary-subtotal")).to_have_text(full)
    expect(page.locator("#summary-total")).to_have_text(discounted)
    expect(page.locator("#submit-payment")).to_have_text(f"Complete Payment • {discounted}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    shot(page, f"promotion-code-checkout-{name}")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))
    [order] = page.request.get("/api/user/orders").json()
    assert (f"${order['totalAmount']}", order["promotionCode"], f"-${order['discountAmount']}") == (
        discounted,
        code,
        off,
    )
    return order["id"]


def _admin_sees_the_codes(page: Page, orders: list[str], line: str) -> None:
    """The admin's Recent Commission Earnings: each sale paid with the code says it under the sale amount, in the
    words of the buyer's Orders, in the table at 1280 px and on the sale's card at 390 px."""
    page.context.clear_cookies()
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin?tab=sales")
    for order in orders:
        expect(page.locator(f".commission-row[data-order='{order}'] .commission-discount")).to_have_text(line)
    shot(page, "promotion-code-admin-commissions")
    marker = f".commission-row[data-order='{orders[-1]}'] .commission-discount"
    expect_fits_phone(page, marker, "promotion-code-admin-commissions-phone")
    expect(page.locator(marker)).to_have_text(line)


def test_a_vendors_code_is_applied_and_paid_at_desktop_and_phone_width(page: Page) -> None:
    code, agent_id, _name = _vendor_makes_a_code(page)
    price = page.request.get(f"/api/agents/{agent_id}").json()["price"]
    cents = round(float(price) * 100)
    off_cents = (cents * 20 + 50) // 100
    full, discounted, off = (f"${cents / 100:,.2f}", f"${(cents - off_cents) / 100:,.2f}", f"-${off_cents / 100:,.2f}")
    paid = [_apply_and_pay(page, code, agent_id, full=full, discounted=discounted, off=off, name="desktop")]
    page.context.clear_cookies()
    phone(page)
    paid.append(_apply_and_pay(page, code, agent_id, full=full, discounted=discounted, off=off, name="phone"))
    _admin_sees_the_codes(page, paid, f"Code {code}: {off}")
