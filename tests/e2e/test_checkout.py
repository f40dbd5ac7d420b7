"""Checkout in a real browser against the Stripe stand-in: pay, decline, sign-in gate, euros, free and owned agents.

Every test that buys signs up its own user (the app and its demo data are shared by the whole session).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import new_context
from tests.e2e.helpers import (
    TOAST,
    expect_toast,
    live_agent_id,
    mail_text,
    open_page,
    phone,
    same_origin,
    shot,
    sign_up,
)

PROGRESS_STEPS = ["Validating payment...", "Processing payment...", "Completing purchase...", "Purchase successful!"]
RECORD_CHANGES = """() => {
  window.__seen = [];
  const note = () => {
    const label = document.getElementById('payment-progress-label');
    const button = document.getElementById('submit-payment');
    const bar = document.getElementById('payment-progress');
    const fill = document.getElementById('payment-progress-fill');
    const width = (element) => element.getBoundingClientRect().width;
    const share = bar && fill ? Math.round(100 * width(fill) / width(bar)) : '';
    const entry = [label ? label.textContent : '', button ? button.textContent : '', share].join(' | ');
    if (window.__seen[window.__seen.length - 1] !== entry) { window.__seen.push(entry); }
  };
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _fill_card(page: Page, number: str) -> None:
    page.get_by_label("Card number").fill(number)
    page.get_by_label("Expiration date").fill("12 / 34")
    page.get_by_label("Security code").fill("123")


def _open_checkout(page: Page, agent_id: str, label: str) -> None:
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#submit-payment")).to_have_text(label)
    expect(page.locator("#submit-payment")).to_be_enabled()


def _expect_payment_error(page: Page, message: str) -> None:
    """The refusal shows above 'Complete Payment', clear of it, and not as a toast that could cover it."""
    error = page.locator("#payment-error")
    expect(error).to_have_text(f"Payment Error {message}")
    expect(page.locator(TOAST)).to_have_count(0)
    button = page.locator("#submit-payment")
    expect(button).to_be_visible()
    box, button_box = error.bounding_box(), button.bounding_box()
    assert box and button_box and box["y"] + box["height"] <= button_box["y"], (box, button_box)


def _purchased(page: Page) -> list[str]:
    return [p["agent"]["name"] for p in page.request.get("/api/user/purchases").json()]


def test_checkout_paints_its_own_loading_view_first(page: Page) -> None:
    """Until the app's state answers, the checkout shows the spec's loading text (not a blank page or a
    generic spinner). A fast server may answer before that paint, so the state socket is held silent here."""
    agent_id = live_agent_id(page, "BlogSmith")
    page.route_web_socket(re.compile(r"/_event"), lambda socket: None)  # mocked: open, never answers
    page.goto(f"/checkout/{agent_id}")
    expect(page.locator("#checkout-loading")).to_contain_text("Initializing secure checkout...")
    expect(page.locator("#order-summary")).to_have_count(0)


def test_buy_an_agent_end_to_end(page: Page) -> None:
    sign_up(page, "buyer")
    agent_id = live_agent_id(page, "BlogSmith")
    open_page(page, f"/checkout/{agent_id}")
    summary = page.locator("#order-summary")
    expect(summary.get_by_text("BlogSmith")).to_be_visible()
    expect(page.locator("#summary-price")).to_have_text("$29.99/month")  # BlogSmith is a monthly subscription
    expect(page.locator("#summary-kind")).to_have_text(re.compile(
        r"^Monthly subscription - renews on [A-Z][a-z]{2} \d{1,2}, \d{4}, cancel anytime$"))
    expect(page.locator("#summary-subtotal")).to_have_text("$29.99")
    expect(page.locator("#summary-fees")).to_have_text("$0.00")
    expect(page.locator("#summary-total")).to_have_text("$29.99")
    expect(page.locator("#summary-usd-price")).to_have_count(0)
    for item in ("Full access to the AI agent", "Installation instructions", "30-day money-back guarantee",
                 "Free updates for 1 year"):
        expect(page.locator("#what-you-get").get_by_text(item)).to_be_visible()
    expect(page.locator("#billing-name")).to_have_text("Customer")
    expect(page.locator("#billing-email")).to_have_text(re.compile(r"^buyer[0-9a-f]{8}@example\.com$"))
    note = page.locator("#test-mode-note")
    expect(note.get_by_text("Test mode: no real charges will be made.")).to_be_visible()
    for card in ("4242 4242 4242 4242", "4000 0000 0000 0002", "4000 0000 0000 9995"):
        expect(note.get_by_text(card)).to_be_visible()
    expect(page.locator("#submit-payment")).to_have_text("Complete Payment • $29.99")
    expect(page.locator("#submit-payment")).to_be_enabled()
    shot(page, "checkout-ready")

    page.evaluate(RECORD_CHANGES)
    _fill_card(page, "4242 4242 4242 4242")
    page.click("#submit-payment")
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))
    seen = page.evaluate("window.__seen")
    labels = [entry.split(" | ")[0] for entry in seen if entry.split(" | ")[0]]
    assert [step for step in PROGRESS_STEPS if step in labels] == PROGRESS_STEPS, seen
    assert labels == sorted(labels, key=PROGRESS_STEPS.index), seen
    buttons = [entry.split(" | ")[1] for entry in seen]
    assert "Processing..." in buttons and "Redirecting..." in buttons, seen
    # The bar is as full as its label says, the moment the label shows ('Purchase successful!' = full).
    fills = {entry.split(" | ")[0]: entry.split(" | ")[2] for entry in seen if entry.split(" | ")[0]}
    assert fills == {"Validating payment...": "25", "Processing payment...": "50", "Completing purchase...": "75",
                     "Purchase successful!": "100"}, seen

    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()
    expect(page.locator("[data-confetti-piece]")).to_have_count(50)
    expect(page.locator("#test-notice")).to_contain_text("test transaction")
    for item in ("Email confirmation", "Dashboard access", "Free updates for 1 year", "Contact support"):
        expect(page.locator("#whats-next").get_by_text(item, exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="View Dashboard")).to_have_attribute("href", "/dashboard")
    expect(page.get_by_role("link", name="View My Purchases")).to_have_attribute("href", "/dashboard")
    expect(page.get_by_role("link", name="Browse More Agents")).to_have_attribute("href", "/")
    shot(page, "purchase-success")
    expect(page.locator("#confetti")).to_have_count(0, timeout=5_000)  # gone after its 3 seconds
    assert _purchased(page) == ["BlogSmith"]

    # The purchase is in My Agents (with how it was paid) and in Order History, and its files download.
    page.get_by_role("link", name="View My Purchases").click()
    card = page.locator(".purchase-card", has_text="BlogSmith")
    expect(card).to_be_visible()
    # The demo vendor has a connected Stripe account and the Pro plan: the sale is a destination charge split at
    # Pro's fee, 90/10.
    payment = card.locator(".payment-processing")
    expect(payment.get_by_text("Commission Split (90/10)")).to_be_visible()
    expect(payment.get_by_text("26.99 USD")).to_be_visible()
    expect(payment.get_by_text("3.00 USD")).to_be_visible()
    expect(card.locator(".purchase-price")).to_have_text(re.compile(r"29\.99"))
    with page.expect_download() as info:
        card.get_by_role("button", name="Download").click()
    assert info.value.suggested_filename == "BlogSmith_files.zip"
    with zipfile.ZipFile(io.BytesIO(info.value.path().read_bytes())) as archive:
        assert sorted(archive.namelist()) == ["LICENSE-KEY.txt", "README.md", "agent.json", "agent.py"]
    page.click("#tab-orders")
    row = page.locator(".order-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("29.99")
    shot(page, "dashboard-after-purchase")

    # Bought once: the checkout for it now refuses to open.
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#checkout-failed").get_by_text("Failed to load checkout")).to_be_visible()
    expect_toast(page, "Checkout Error", "You already own this agent")
    shot(page, "checkout-already-owned")
    page.get_by_role("link", name="Return Home").click()
    expect(page).to_have_url(re.compile(r"^http://[^/]+/$"))


def test_declined_card_shows_payment_error_and_reenables_the_form(page: Page) -> None:
    sign_up(page, "buyer")
    _open_checkout(page, live_agent_id(page, "InvoiceFlow"), "Complete Payment • $49.00")
    _fill_card(page, "4000 0000 0000 0002")
    page.click("#submit-payment")
    _expect_payment_error(page, "Your card was declined.")
    expect(page.locator("#submit-payment")).to_be_enabled()
    expect(page.locator("#submit-payment")).to_have_text("Complete Payment • $49.00")
    expect(page.locator("#payment-progress")).to_have_count(0)
    shot(page, "checkout-declined")
    assert _purchased(page) == []

    # Insufficient funds says so; then a good card goes through on the same form.
    _fill_card(page, "4000 0000 0000 9995")
    page.click("#submit-payment")
    _expect_payment_error(page, "Your card has insufficient funds.")
    expect(page.locator("#submit-payment")).to_be_enabled()
    shot(page, "checkout-insufficient-funds")
    phone(page)
    _expect_payment_error(page, "Your card has insufficient funds.")
    shot(page, "checkout-insufficient-funds-phone")
    page.set_viewport_size({"width": 1280, "height": 800})
    _fill_card(page, "4242 4242 4242 4242")
    page.click("#submit-payment")
    expect(page.locator("#payment-error")).to_have_count(0)  # a new attempt clears the old refusal at once
    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()
    expect(page.get_by_text("Your card has insufficient funds.")).to_have_count(0)
    expect(page.get_by_text("Payment Error")).to_have_count(0)
    assert _purchased(page) == ["InvoiceFlow"]


def test_back_to_agent_goes_back_or_opens_the_agent(page: Page) -> None:
    sign_up(page, "buyer")
    agent_id = live_agent_id(page, "Contract Clerk")
    open_page(page, "/categories")
    _open_checkout(page, agent_id, "Complete Payment • $79.00")
    page.click("#back-to-agent")
    expect(page).to_have_url(re.compile(r"/categories/?$"))

    fresh = page.context.new_page()  # opened straight from a link: no page to go back to
    open_page(fresh, f"/checkout/{agent_id}")
    expect(fresh.locator("#submit-payment")).to_be_enabled()
    fresh.click("#back-to-agent")
    expect(fresh).to_have_url(re.compile(rf"/agents/{agent_id}$"))


def test_signed_out_checkout_redirects_to_login(page: Page) -> None:
    page.goto("/checkout/some-agent")
    expect(page).to_have_url(re.compile(r"/login\?next=/checkout/some-agent$"))  # and back after signing in
    expect_toast(page, "Login Required", "Please log in to purchase agents")
    shot(page, "checkout-signed-out")


def test_checkout_without_agent_id_and_with_unknown_agent(page: Page) -> None:
    sign_up(page, "buyer")
    open_page(page, "/checkout")
    expect_toast(page, "Invalid Request", "Agent ID is required")
    expect(page.locator("#checkout-failed")).to_be_visible()
    open_page(page, "/checkout/no-such-agent")
    expect_toast(page, "Checkout Error", "Agent not found")
    expect(page.locator("#checkout-failed").get_by_role("link", name="Return Home")).to_be_visible()
    shot(page, "checkout-unknown-agent")


def test_unreachable_stripe_js_shows_the_failure_card(page: Page) -> None:
    sign_up(page, "buyer")
    page.route("**/js.stripe.com/v3/**", lambda route: route.abort())
    open_page(page, f"/checkout/{live_agent_id(page, 'Contract Clerk')}")
    expect_toast(page, "Checkout Error", "The secure payment form could not be loaded.")
    expect(page.locator("#checkout-failed").get_by_text("Failed to load checkout")).to_be_visible()
    shot(page, "checkout-stripe-unreachable")


def test_free_agent_is_claimed_without_payment(page: Page) -> None:
    sign_up(page, "buyer")
    agent_id = live_agent_id(page, "Caption Genie")
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#summary-total")).to_have_text("$0.00")
    expect(page.locator("#payment-card")).to_have_count(0)
    shot(page, "checkout-free")
    page.get_by_role("button", name="Get it free").click()
    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()
    assert _purchased(page) == ["Caption Genie"]
    open_page(page, f"/checkout/{agent_id}")
    expect_toast(page, "Checkout Error", "You already own this agent")


@pytest.fixture
def platform_settings(browser: Browser, app_server: str) -> Iterator[Callable[[str, str], None]]:
    """Change platform settings as the admin does (settings API); dollars and 20% again afterwards."""
    context = new_context(browser, base_url=app_server, extra_http_headers={"Origin": app_server})  # API calls only
    admin = context.request
    assert admin.post("/api/login", data={"username": "admin", "password": "admin123"}).ok

    def put(key: str, value: str) -> None:
        response = admin.put(f"/api/admin/settings/{key}", data={"value": value})
        assert response.ok, response.text()

    try:
        yield put
    finally:
        put("checkoutCurrency", "usd")
        put("commissionRate", "20")
        context.close()


@pytest.fixture
def euro_checkout(platform_settings: Callable[[str, str], None]) -> None:
    platform_settings("usdToEurRate", "0.9200")
    platform_settings("checkoutCurrency", "eur")


def test_paying_again_in_a_second_tab_is_refunded(page: Page, platform_settings: Callable[[str, str], None]) -> None:
    """Two checkouts of one agent open at once (the commission changed in between, so each has its own
    payment); both paid: the second payment is refunded and said so, and access stays one purchase."""
    sign_up(page, "buyer")
    agent_id = live_agent_id(page, "SEO Scout")
    _open_checkout(page, agent_id, "Complete Payment • $25.00")
    platform_settings("commissionRate", "25")
    second = page.context.new_page()
    _open_checkout(second, agent_id, "Complete Payment • $25.00")

    _fill_card(page, "4242 4242 4242 4242")
    page.click("#submit-payment")
    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()

    _fill_card(second, "4242 4242 4242 4242")
    second.click("#submit-payment")
    _expect_payment_error(second, "You already own this agent. This payment has been refunded.")
    shot(second, "checkout-second-payment-refunded")
    assert _purchased(page) == ["SEO Scout"]

    open_page(second, "/dashboard?tab=orders")
    rows = second.locator(".order-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).get_by_text("Refunded", exact=True)).to_be_visible()
    expect(rows.nth(1).get_by_text("Completed", exact=True)).to_be_visible()
    shot(second, "dashboard-order-refunded")


def test_euro_checkout_shows_and_charges_euros(page: Page, euro_checkout: None) -> None:
    username = sign_up(page, "buyer")
    assert page.request.put("/api/user/profile", data={
        "firstName": "Erika", "lastName": "Mustermann", "email": f"{username}@example.com"},
        headers=same_origin(page)).ok
    _open_checkout(page, live_agent_id(page, "BlogSmith"), "Complete Payment • €27.59")
    expect(page.locator("#summary-subtotal")).to_have_text("€27.59")
    expect(page.locator("#summary-fees")).to_have_text("€0.00")
    expect(page.locator("#summary-total")).to_have_text("€27.59")
    expect(page.locator("#summary-usd-price")).to_have_text("$29.99")
    expect(page.locator("#exchange-rate-note")).to_contain_text("1 USD = 0.9200 EUR")
    expect(page.locator("#billing-name")).to_have_text("Erika Mustermann")
    shot(page, "checkout-euro")
    _fill_card(page, "4242 4242 4242 4242")
    page.click("#submit-payment")
    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()
    orders = page.request.get("/api/user/orders").json()
    assert len(orders) == 1 and orders[0]["totalAmount"] == "27.59", orders
    # The receipt greets as the pages and the vendor's sale mail do: by the first name, not the username.
    receipt = mail_text(page, f"{username}@example.com", "Your receipt: BlogSmith", shot_as="mail-receipt")
    assert receipt.startswith("Hi Erika,"), receipt


def _pay_outside_the_page(page: Page, agent_id: str) -> str:
    """What a redirect-based payment method leaves behind: a succeeded PaymentIntent the page never completed."""
    intent = page.request.post("/api/purchase/create-payment-intent", data={"agentId": agent_id},
                               headers=same_origin(page)).json()
    config = page.request.get("/api/stripe/config").json()
    standin = config["stripeJsUrl"].removesuffix("/js.stripe.com/v3/")
    confirmed = page.request.post(f"{standin}/v1/payment_intents/{intent['paymentIntentId']}/confirm", form={
        "key": config["publishableKey"], "client_secret": intent["clientSecret"],
        "payment_method_data[type]": "card", "payment_method_data[card][number]": "4242424242424242",
        "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034",
        "payment_method_data[card][cvc]": "123"})
    assert confirmed.ok and confirmed.json()["status"] == "succeeded", confirmed.text()
    return intent["paymentIntentId"]


def test_return_from_a_payment_redirect_records_the_purchase(page: Page) -> None:
    sign_up(page, "buyer")
    intent_id = _pay_outside_the_page(page, live_agent_id(page, "HR Onboarder"))
    open_page(page, f"/purchase-success?payment_intent={intent_id}&redirect_status=succeeded")
    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))  # intent id and secret leave the address bar
    assert _purchased(page) == ["HR Onboarder"]


def test_return_from_a_failed_payment_redirect_says_so(page: Page) -> None:
    sign_up(page, "buyer")
    page.add_init_script("""window.__celebrated = false; new MutationObserver(() => {
      if (document.getElementById('purchase-success-title')) { window.__celebrated = true; }
    }).observe(document, {subtree: true, childList: true});""")
    open_page(page, "/purchase-success?payment_intent=pi_123&redirect_status=failed")
    expect_toast(page, "Payment Error", "Payment was not successful")
    expect(page).to_have_url(re.compile(r"^http://[^/]+/$"))
    assert page.evaluate("window.__celebrated") is False
    assert _purchased(page) == []
