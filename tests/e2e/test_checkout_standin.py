"""The browser side of checkout against the Stripe stand-in, in headless Chromium.

A bare page (no Reflex build) follows the contract documented in dev/stripe_standin/__init__.py: load the
Stripe.js URL from /api/stripe/config, create the intent, mount the Payment Element, confirmPayment with
redirect 'if_required', then POST /api/purchase/complete. The API runs under uvicorn so the stand-in can
deliver real signed webhooks to it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from fastapi.responses import HTMLResponse
from playwright.sync_api import Browser, Page
from sqlalchemy import func
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.models import Order, ProcessedWebhookEvent, Purchase
from tests.e2e.conftest import new_context
from tests.payments_fixtures import WEBHOOK_SECRET
from tests.ports import free_port

pytestmark = pytest.mark.e2e

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>checkout</title></head><body>
<div id="payment"></div><button id="pay" disabled>Complete Payment</button><div id="status"></div>
<script>
const agentId = %(agent_id)s, userId = %(user_id)s, callComplete = %(complete)s;
const show = (text) => { document.getElementById('status').textContent = text; };
async function main() {
  const config = await (await fetch('/api/stripe/config')).json();
  await new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = config.stripeJsUrl; script.onload = resolve; script.onerror = reject;
    document.head.appendChild(script);
  });
  const stripe = window.Stripe(config.publishableKey);
  const response = await fetch('/api/purchase/create-payment-intent', {method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({agentId, customerEmail: '', customerName: 'Customer', isGuestCheckout: false})});
  const intent = await response.json();
  const elements = stripe.elements({clientSecret: intent.clientSecret, appearance: {theme: 'stripe'}});
  const payment = elements.create('payment', {layout: 'accordion'});
  payment.on('ready', () => { document.getElementById('pay').disabled = false; });
  payment.mount('#payment');
  document.getElementById('pay').onclick = async () => {
    const {paymentIntent, error} = await stripe.confirmPayment({elements, redirect: 'if_required',
      confirmParams: {return_url: location.origin + '/purchase-success'}});
    if (error) { show('error:' + error.message); return; }
    if (!callComplete) { show('paid:' + paymentIntent.status); return; }
    const done = await fetch('/api/purchase/complete', {method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({paymentIntentId: paymentIntent.id, agentId, agentName: 'x', userId,
        customerEmail: '', customerName: 'Customer', isGuestCheckout: false})});
    show('complete:' + done.status + ':' + paymentIntent.status);
  };
}
main().catch((e) => show('failed:' + e));
</script></body></html>"""


@pytest.fixture
def live_api(stripe_standin, monkeypatch) -> Iterator[str]:
    """The API under uvicorn on a free port, with the stand-in delivering webhooks to it."""
    from marketplace.api.app import create_api

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    monkeypatch.setitem(vars(settings), "allowed_origins", [base])
    app = create_api()

    def checkout_page(agent_id: str, user_id: str, complete: int = 1) -> HTMLResponse:
        return HTMLResponse(PAGE % {"agent_id": json.dumps(agent_id), "user_id": json.dumps(user_id),
                                    "complete": "true" if complete else "false"})

    app.add_api_route("/checkout-test/{agent_id}/{user_id}", checkout_page, methods=["GET"])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    httpx.post(f"{stripe_standin.base}/_config/webhooks/live", data={
        "url": f"{base}/api/stripe/webhook", "secret": WEBHOOK_SECRET}).raise_for_status()
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def browser_page(browser: Browser) -> Iterator[Page]:
    """A page of the session's shared Chromium (one Playwright instance per run)."""
    context = new_context(browser)
    try:
        yield context.new_page()
    finally:
        context.close()


def _count(model, **where) -> int:
    with db.session_scope() as session:
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return session.exec(query).one()


def _open_checkout(page: Page, base: str, buyer, agent, *, complete: bool = True) -> None:
    login = page.request.post(f"{base}/api/login", data={"username": buyer.username, "password": "secret123"},
                              headers={"Origin": base})
    assert login.ok, login.text()
    page.goto(f"{base}/checkout-test/{agent.id}/{buyer.id}?complete={int(complete)}")
    page.wait_for_selector("#pay:not([disabled])", timeout=15_000)


def _pay(page: Page, card: str) -> str:
    page.get_by_label("Card number").fill(card)
    page.get_by_label("Expiration date").fill("12 / 34")
    page.get_by_label("Security code").fill("123")
    page.click("#pay")
    page.wait_for_function("document.getElementById('status').textContent !== ''", timeout=15_000)
    return page.text_content("#status")


def _wait_for(predicate, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_card_payment_then_complete_then_webhook(live_api, browser_page, make_user, make_agent):
    buyer, agent = make_user("buyer"), make_agent(price_cents=2999)
    _open_checkout(browser_page, live_api, buyer, agent)
    assert browser_page.get_by_label("Card number").is_visible()
    assert _pay(browser_page, "4242 4242 4242 4242") == "complete:200:succeeded"
    assert _count(Order) == 1 and _count(Purchase, user_id=buyer.id) == 1
    # The stand-in's signed payment_intent.succeeded webhook arrives a second later and changes nothing.
    assert _wait_for(lambda: _count(ProcessedWebhookEvent, type="payment_intent.succeeded") == 1)
    assert _count(Order) == 1 and _count(Purchase) == 1


def test_webhook_alone_records_the_purchase(live_api, browser_page, make_user, make_agent):
    buyer, agent = make_user("buyer"), make_agent(price_cents=1500)
    _open_checkout(browser_page, live_api, buyer, agent, complete=False)
    assert _pay(browser_page, "4242424242424242") == "paid:succeeded"
    assert _wait_for(lambda: _count(Purchase, user_id=buyer.id, agent_id=agent.id) == 1)
    assert _count(Order) == 1


@pytest.mark.parametrize(("card", "message"), [("4000000000000002", "Your card was declined."),
                                               ("4000000000009995", "Your card has insufficient funds.")])
def test_declined_cards_show_stripe_messages(live_api, browser_page, make_user, make_agent, card, message):
    buyer, agent = make_user("buyer"), make_agent()
    _open_checkout(browser_page, live_api, buyer, agent)
    assert _pay(browser_page, card) == f"error:{message}"
    assert _wait_for(lambda: _count(ProcessedWebhookEvent, type="payment_intent.payment_failed") == 1)
    assert _count(Order) == 0 and _count(Purchase) == 0
    # The form stays usable: a good card then goes through on the same intent.
    browser_page.evaluate("document.getElementById('status').textContent = ''")
    assert _pay(browser_page, "4242424242424242") == "complete:200:succeeded"
    assert _count(Purchase, user_id=buyer.id) == 1


def test_incomplete_card_is_caught_in_the_browser(live_api, browser_page, make_user, make_agent):
    buyer, agent = make_user("buyer"), make_agent()
    _open_checkout(browser_page, live_api, buyer, agent)
    browser_page.get_by_label("Card number").fill("4242 4242")
    browser_page.click("#pay")
    browser_page.wait_for_function("document.getElementById('status').textContent !== ''")
    assert browser_page.text_content("#status") == "error:Your card number is incomplete."
    assert browser_page.get_by_test_id("stripe-standin-error").text_content() == "Your card number is incomplete."
