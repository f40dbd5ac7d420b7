"""Receipts in a real browser: a customer fills the profile's receipt details (a bad tax ID is refused first),
buys an agent with the test card, opens Order History, opens the order's receipt (its number, total, business
details and 'Paid'), and downloads the PDF, whose text holds the same number and total; at 1280 px and 390 px."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import PHONE, buy, charged_agents, dollars, expect_toast, open_page, phone, shot, sign_up
from tests.unit.test_receipts import pdf_text

pytestmark = pytest.mark.e2e


def _paid_agent(page: Page, skip: int) -> dict:
    return charged_agents(page)[skip]


def _receipt_details(page: Page) -> None:
    open_page(page, "/dashboard?tab=profile")
    card = page.locator("#receipt-details-card")
    expect(card.locator("#receipt-business-name")).to_have_text("Not set")
    card.locator("#edit-receipt-details").click()
    page.fill("#receipt-business-name-input", "Receipts Test GmbH")
    page.fill("#receipt-billing-address-input", "Hauptstr. 1\n10115 Berlin")
    page.fill("#receipt-tax-id-input", "DE<123>")
    page.click("#save-receipt-details")
    expect(page.locator("#receipt-tax-id-input-error")).to_have_text(
        "Tax ID may contain only letters, digits, spaces, dots, dashes and slashes")
    page.fill("#receipt-tax-id-input", "DE 123456789")
    page.click("#save-receipt-details")
    expect_toast(page, "Receipt Details Updated")
    expect(card.locator("#receipt-business-name")).to_have_text("Receipts Test GmbH")
    expect(card.locator("#receipt-tax-id")).to_have_text("DE 123456789")


@pytest.mark.parametrize("small", [False, True], ids=["desktop", "phone"])
def test_a_customer_opens_and_downloads_a_receipt(page: Page, small: bool) -> None:
    agent = _paid_agent(page, 5 if small else 6)
    sign_up(page, "receipts")
    if small:
        phone(page)
    _receipt_details(page)
    buy(page, agent["id"])
    open_page(page, "/dashboard?tab=orders")
    row = page.locator(".order-row", has_text=agent["name"])
    expect(row.locator(".order-receipt-number")).to_have_text(re.compile(r"^R-\d{6}$"))
    number = row.locator(".order-receipt-number").inner_text()
    total = dollars(agent["price"])
    if small:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the orders tab scrolls sideways at phone width ({width}px)"
    shot(page, "receipt-orders-phone" if small else "receipt-orders")

    with page.context.expect_page() as opened:
        row.locator(".order-receipt").click()
    receipt = opened.value
    if small:
        receipt.set_viewport_size(PHONE)
    expect(receipt.locator("#receipt .number")).to_have_text(number)
    expect(receipt.locator("#receipt .total")).to_have_text(total)
    expect(receipt.locator("#receipt .status")).to_have_text("Paid")
    # Demo agents are mostly monthly: the line names the paid month, else the one-time license.
    what = (r"monthly subscription, \d{2} \w{3} \d{4} to \d{2} \w{3} \d{4}"
            if agent["pricingModel"] == "monthly" else "one-time license")
    expect(receipt.locator("#receipt .line")).to_have_text(re.compile(f"^{re.escape(agent['name'])}: {what}$"))
    expect(receipt.locator("#receipt .buyer")).to_contain_text("Receipts Test GmbH")
    expect(receipt.locator("#receipt .buyer")).to_contain_text("Tax ID: DE 123456789")
    expect(receipt.locator("#receipt .seller")).not_to_be_empty()
    if small:
        width = receipt.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the receipt scrolls sideways at phone width ({width}px)"
    shot(receipt, "receipt-page-phone" if small else "receipt-page")

    with receipt.expect_download() as fetched:
        receipt.click("#receipt-pdf")
    download = fetched.value
    assert download.suggested_filename == f"receipt-{number}.pdf"
    text = pdf_text(Path(download.path()).read_bytes())
    assert f"Receipt {number}" in text and total in text and "Receipts Test GmbH" in text
