"""The stand-in's Stripe.js in Chromium: a subscription's first invoice paid in the Payment Element, a card saved
with confirmSetup, and a checkout console free of Stripe.js version warnings.

The first two use a bare page (no Reflex build) that loads Stripe.js from the stand-in as an app page would.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import new_context
from tests.e2e.helpers import open_page, sign_up
from tests.payments_fixtures import PUBLISHABLE_KEY
from tests.ports import free_port

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>billing</title>
<script src="%(standin)s/js.stripe.com/endive/stripe.js"></script></head><body>
<div id="payment"></div><button id="go" disabled>Save</button><div id="status"></div>
<script>
const params = new URLSearchParams(location.search);
const stripe = Stripe(%(key)s);
const elements = stripe.elements({clientSecret: params.get('secret'), appearance: {theme: 'stripe'}});
const card = elements.create('payment', {layout: 'accordion'});
card.on('ready', () => { document.getElementById('go').disabled = false; });
card.mount('#payment');
document.getElementById('go').onclick = async () => {
  const confirm = params.get('mode') === 'setup' ? stripe.confirmSetup : stripe.confirmPayment;
  const result = await confirm.call(stripe, {elements, redirect: 'if_required',
    confirmParams: {return_url: location.origin + '/done'}});
  const intent = result.setupIntent || result.paymentIntent;
  document.getElementById('status').textContent = result.error ? 'error:' + result.error.message
    : 'ok:' + intent.id + ':' + intent.status;
};
</script></body></html>"""


@pytest.fixture
def bare_page(browser: Browser, stripe_standin) -> Iterator[tuple[Page, str]]:
    """A page of the session's Chromium and the base URL of a server that serves PAGE."""
    html = (PAGE % {"standin": stripe_standin.base, "key": f"'{PUBLISHABLE_KEY}'"}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(html)))
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = new_context(browser)
    try:
        yield context.new_page(), f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def _confirm(page: Page, card: str) -> str:
    page.evaluate("document.getElementById('status').textContent = ''")
    page.get_by_label("Card number").fill(card)
    page.get_by_label("Expiration date").fill("12 / 34")
    page.get_by_label("Security code").fill("123")
    page.click("#go")
    page.wait_for_function("document.getElementById('status').textContent !== ''")
    return page.text_content("#status")


def _open(page: Page, base: str, secret: str, mode: str) -> None:
    page.goto(f"{base}/pay?mode={mode}&secret={quote(secret)}")
    page.wait_for_selector("#go:not([disabled])")
    assert page.evaluate("window.Stripe.version") == "endive"


def test_a_subscription_is_paid_in_the_payment_element(bare_page, stripe_standin, stripe_webhooks):
    page, base = bare_page
    client = stripe_standin.stripe
    price = client.v1.prices.create(params={"unit_amount": 1900, "currency": "usd", "recurring": {"interval": "month"},
                                            "product_data": {"name": "Agent"}})
    customer = client.v1.customers.create(params={"email": "buyer@example.com"})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}], "payment_behavior": "default_incomplete",
        "payment_settings": {"save_default_payment_method": "on_subscription"},
        "expand": ["latest_invoice.confirmation_secret"]})
    _open(page, base, sub.latest_invoice.confirmation_secret.client_secret, "payment")
    assert _confirm(page, "4000000000000002") == "error:Your card was declined."
    status = _confirm(page, "4242 4242 4242 4242")
    assert status.startswith("ok:pi_") and status.endswith(":succeeded")
    stripe_standin.drain()
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert sub.status == "active" and sub.default_payment_method
    assert client.v1.invoices.retrieve(sub.latest_invoice).amount_paid == 1900
    assert stripe_webhooks.types("invoice.pa") == ["invoice.payment_failed", "invoice.paid",
                                                   "invoice.payment_succeeded"]


def test_a_new_card_is_saved_with_confirm_setup(bare_page, stripe_standin, stripe_webhooks):
    page, base = bare_page
    client = stripe_standin.stripe
    customer = client.v1.customers.create(params={"email": "buyer@example.com"})
    intent = client.v1.setup_intents.create(params={"customer": customer.id, "usage": "off_session"})
    _open(page, base, intent.client_secret, "setup")
    assert _confirm(page, "4000000000009995") == "error:Your card has insufficient funds."
    assert _confirm(page, "4000000000000341") == f"ok:{intent.id}:succeeded"  # it attaches; charges will fail
    saved = client.v1.setup_intents.retrieve(intent.id).payment_method
    assert client.v1.payment_methods.retrieve(saved).customer == customer.id
    assert client.v1.payment_methods.retrieve(saved).card.last4 == "0341"
    stripe_standin.drain()
    assert stripe_webhooks.about(intent.id)[-1] == "setup_intent.succeeded"


def test_the_checkout_console_has_no_stripe_js_version_warning(page: Page) -> None:
    """@stripe/stripe-js 10.2.1 (the checkout's loader) warns when Stripe.version is not its release, endive."""
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    sign_up(page, "buyer")
    agents = page.request.get("/api/agents", params={"search": "BlogSmith"}).json()
    items = agents["items"] if isinstance(agents, dict) else agents
    open_page(page, f"/checkout/{next(a['id'] for a in items if a['name'] == 'BlogSmith')}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    expect(page.get_by_label("Card number")).to_be_visible()
    assert page.evaluate("window.Stripe.version") == "endive"
    assert [m for m in messages if "Stripe.js@" in m] == []
