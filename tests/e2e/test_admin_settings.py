"""/admin/settings in a real browser: admins only; commission rate (invalid value toasts, then success), checkout
currency and the USD to EUR rate; reached from the Demo Testing Center; usable at phone width.

The settings are shared by every browser test, so each test that changes them puts the defaults back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import api_context, expect_toast, open_page, phone, sent_to_sign_in, shot, sign_in, sign_up

ADMIN_ONLY = "Admin access required. Redirecting..."


def _settings(page: Page) -> dict[str, str]:
    return {s["key"]: s["value"] for s in page.request.get("/api/admin/settings").json()}


@pytest.fixture
def defaults_back(browser: Browser, app_server: str) -> Iterator[None]:
    """Commission 20%, dollars and 0.9200 again afterwards, whatever the test did."""
    yield
    context = api_context(browser, app_server)
    try:
        admin = context.request
        assert admin.post("/api/login", data={"username": "admin", "password": "admin123"}).ok
        for key, value in (("commissionRate", "20%"), ("checkoutCurrency", "usd"), ("usdToEurRate", "0.9200")):
            assert admin.put(f"/api/admin/settings/{key}", data={"value": value}).ok
    finally:
        context.close()


def test_signed_out_visitors_are_sent_to_sign_in(page: Page) -> None:
    with sent_to_sign_in(page):
        open_page(page, "/admin/settings")
        expect_toast(page, "Unauthorized", ADMIN_ONLY)
        expect(page.locator("#admin-denied")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/login/?$"))


def test_customers_are_sent_to_sign_in(page: Page) -> None:
    sign_up(page, "notadmin")
    with sent_to_sign_in(page):
        open_page(page, "/admin/settings")
        expect_toast(page, "Unauthorized", ADMIN_ONLY)
        expect(page.locator("#admin-denied")).to_contain_text(ADMIN_ONLY)
        expect(page.locator("#commission-card")).to_have_count(0)
        shot(page, "admin-settings-denied")


def test_admin_changes_commission_and_checkout_currency(page: Page, defaults_back: None) -> None:
    sign_in(page, "admin", "admin123", api=True)
    open_page(page, "/demo-setup")
    page.locator("#quick-links a[href='/admin/settings']").click()
    expect(page).to_have_url(re.compile(r"/admin/settings/?$"))
    expect(page.locator("#settings-heading")).to_have_text("Platform Settings")
    expect(page.locator("#commissionRate")).to_have_value("20")
    expect(page.locator("#commission-now")).to_contain_text("Now: 20% to the platform, 80% to the vendor")
    expect(page.locator("#usdToEurRate")).to_have_value("0.9200")
    expect(page.locator("#currency-usd")).to_have_attribute("data-state", "checked")
    expect(page.locator("#save-commission")).to_be_disabled()  # nothing changed yet
    shot(page, "admin-settings-desktop")

    # Empty is caught by the page; 150 and 12.345 by the server: both read as the spec's invalid value.
    page.fill("#commissionRate", "")
    page.click("#save-commission")
    expect_toast(page, "Invalid value", "Please enter a valid number for commission rate")
    for bad in ("150", "12.345"):
        page.fill("#commissionRate", bad)
        page.click("#save-commission")
        expect_toast(page, "Invalid value", "Please enter a valid number for commission rate")
    assert _settings(page)["commissionRate"] == "20%"

    page.fill("#commissionRate", "15.5")
    page.click("#save-commission")
    expect_toast(page, "Commission rate updated", "The commission rate has been successfully updated.")
    expect(page.locator("#commission-now")).to_contain_text("Now: 15.5% to the platform, 84.5% to the vendor")
    assert _settings(page)["commissionRate"] == "15.5%"
    shot(page, "admin-settings-saved")

    page.click("#currency-eur")
    page.fill("#usdToEurRate", "0.93")
    page.click("#save-payment")
    expect_toast(page, "Payment settings updated", "Checkout currency and exchange rate have been saved.")
    expect(page.locator("#payment-now")).to_contain_text("1 USD = 0.9300 EUR now (4 decimals). Buyers are charged "
                                                         "in EUR.")
    assert _settings(page) == {"commissionRate": "15.5%", "checkoutCurrency": "eur", "usdToEurRate": "0.9300",
                               "allowGuestCheckout": "false"}

    page.fill("#usdToEurRate", "0.12345")
    page.click("#save-payment")
    expect_toast(page, "Invalid value", "Exchange rate must be a number from 0.0001 to 1000 with at most 4 decimals")
    assert _settings(page)["usdToEurRate"] == "0.9300"

    # What is stored is what a fresh visit shows.
    open_page(page, "/admin/settings")
    expect(page.locator("#commissionRate")).to_have_value("15.5")
    expect(page.locator("#currency-eur")).to_have_attribute("data-state", "checked")
    expect(page.locator("#usdToEurRate")).to_have_value("0.9300")
    audit = page.request.get("/api/admin/audit-log", params={"search": "setting"}).json()
    assert [e["details"]["to"] for e in audit[:3]] == ["eur", "0.9300", "15.5%"]


def test_settings_fit_a_phone(page: Page, defaults_back: None) -> None:
    phone(page)
    sign_in(page, "admin", "admin123", api=True)
    open_page(page, "/admin/settings")
    expect(page.locator("#commission-card")).to_be_visible()
    page.fill("#commissionRate", "25")
    page.click("#save-commission")
    expect_toast(page, "Commission rate updated", "The commission rate has been successfully updated.")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"page is {width}px wide at phone width"
    box = page.locator("#save-payment").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.evaluate("window.scrollTo(0, 0)")  # the sticky top bar is drawn where the page was scrolled to
    shot(page, "admin-settings-phone")
