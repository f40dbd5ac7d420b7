"""Payment test fixtures: the Stripe stand-in on a free loopback port, agents, connected vendors, card payments."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import stripe

from marketplace import db
from marketplace.config import settings
from marketplace.models import Agent, PlatformSetting, User
from marketplace.services import platform
from tests import factories
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
SECRET_KEY = "sk_test_standin"
PUBLISHABLE_KEY = "pk_test_standin"
WEBHOOK_SECRET = "whsec_test_standin"
GOOD_CARD = "4242424242424242"
DECLINED_CARD = "4000000000000002"
INSUFFICIENT_FUNDS_CARD = "4000000000009995"



def start_standin(*extra: str) -> tuple[subprocess.Popen, str, Path]:
    """Start `python -m dev.stripe_standin` on a free port and wait until it answers."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = Path(tempfile.mkstemp(prefix="stripe-standin-", suffix=".log")[1])
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dev.stripe_standin", "--port", str(port), "--quiet", *extra],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"stripe stand-in exited:\n{log.read_text()}")
        try:
            if httpx.get(f"{base}/_standin/health", timeout=1).status_code == 200:
                return proc, base, log
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    stop_standin(proc)
    raise RuntimeError(f"stripe stand-in did not start:\n{log.read_text()}")


def stop_standin(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@dataclass
class StandIn:
    base: str
    stripe: stripe.StripeClient

    def confirm(self, client_secret: str, card: str = GOOD_CARD) -> httpx.Response:
        """Confirm as Stripe.js does: publishable key + client secret + typed card."""
        intent_id = client_secret.split("_secret_")[0]
        return httpx.post(f"{self.base}/v1/payment_intents/{intent_id}/confirm", data={
            "key": PUBLISHABLE_KEY, "client_secret": client_secret,
            "payment_method_data[type]": "card", "payment_method_data[card][number]": card,
            "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034",
            "payment_method_data[card][cvc]": "123",
        })

    def onboard(self, account_id: str, action: str = "complete") -> None:
        link = self.stripe.v1.account_links.create(params={
            "account": account_id, "refresh_url": "http://localhost:3000/vendor", "type": "account_onboarding",
            "return_url": "http://localhost:3000/vendor",
        })
        assert httpx.post(link.url, data={"action": action}).status_code == 302

    def complete(self, account_id: str) -> dict[str, Any]:
        """Finish onboarding through the stand-in's dev route (no browser)."""
        response = httpx.post(f"{self.base}/_standin/connect/accounts/{account_id}/complete")
        assert response.status_code == 200, response.text
        return response.json()

    def fund(self, account_id: str, amount: int, fee: int = 0) -> str:
        """A destination charge confirmed server-side with a test card; `amount - fee` reaches the account."""
        intent = self.stripe.v1.payment_intents.create(params={
            "amount": amount, "currency": "usd", "application_fee_amount": fee,
            "transfer_data": {"destination": account_id}})
        confirmed = self.stripe.v1.payment_intents.confirm(intent.id, params={"payment_method": "pm_card_visa"})
        assert confirmed.status == "succeeded"
        return intent.id

    def pay_out(self, account_id: str, **params: Any) -> httpx.Response:
        """The stand-in's automatic payout of the available balance."""
        return httpx.post(f"{self.base}/_standin/connect/accounts/{account_id}/payout", json=params)

    def set_payout_status(self, payout_id: str, status: str, **failure: str) -> httpx.Response:
        return httpx.post(f"{self.base}/_standin/payouts/{payout_id}/status", json={"status": status, **failure})

    def balance(self, account_id: str) -> dict[str, dict[str, int]]:
        """The connected account's balance as Stripe answers it, by currency: {"available": {...}, "pending": {...}}."""
        body = self.stripe.v1.balance.retrieve(options={"stripe_account": account_id}).to_dict()
        return {kind: {e["currency"]: e["amount"] for e in body[kind]} for kind in ("available", "pending")}

    def confirm_setup(self, client_secret: str, card: str = GOOD_CARD) -> httpx.Response:
        """Confirm a SetupIntent as Stripe.js's confirmSetup does: publishable key + client secret + typed card."""
        intent_id = client_secret.split("_secret_")[0]
        return httpx.post(f"{self.base}/v1/setup_intents/{intent_id}/confirm", data={
            "key": PUBLISHABLE_KEY, "client_secret": client_secret,
            "payment_method_data[type]": "card", "payment_method_data[card][number]": card,
            "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034",
            "payment_method_data[card][cvc]": "123",
        })

    def drain(self) -> None:
        """Wait until every webhook the stand-in has queued has been delivered (answered) once."""
        response = httpx.post(f"{self.base}/_standin/webhooks/drain", json={"timeout": 20}, timeout=30)
        assert response.status_code == 200, response.text

    def advance(self, clock_id: str, frozen_time: int) -> Any:
        """Advance a test clock and wait until it is `ready` (its webhooks all answered by then)."""
        self.stripe.v1.test_helpers.test_clocks.advance(clock_id, params={"frozen_time": frozen_time})
        return self.wait_ready(clock_id)

    def wait_ready(self, clock_id: str, timeout: float = 60) -> Any:
        """Poll the clock, as the app will, until it stops `advancing`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            clock = self.stripe.v1.test_helpers.test_clocks.retrieve(clock_id)
            if clock.status != "advancing":
                assert clock.status == "ready", clock
                return clock
            time.sleep(0.05)
        raise AssertionError(f"test clock {clock_id} still advancing after {timeout}s")

    def event_for(self, intent_id: str, event_type: str) -> dict[str, Any]:
        """The event the stand-in generated for an intent, as it would be delivered."""
        events = self.stripe.v1.events.list(params={"type": event_type, "limit": 100})
        for event in events.data:
            if event.data.object.id == intent_id:
                return event.to_dict()
        raise AssertionError(f"no {event_type} event for {intent_id}")


@dataclass
class WebhookReceiver:
    """A webhook endpoint on a free loopback port: checks each Stripe-Signature with the real SDK and keeps the
    events in the order they arrived (`rejected` counts deliveries whose signature did not verify)."""

    secret: str = WEBHOOK_SECRET
    events: list[dict[str, Any]] = field(default_factory=list)
    rejected: int = 0
    _open: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        receiver = self
        lock = threading.Lock()
        self._open.set()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                payload = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    event = stripe.Webhook.construct_event(payload, self.headers.get("Stripe-Signature", ""),
                                                           receiver.secret)
                except (stripe.SignatureVerificationError, ValueError):
                    with lock:
                        receiver.rejected += 1
                    self.send_response(400)
                else:
                    with lock:
                        receiver.events.append(event.to_dict())
                    receiver._open.wait(timeout=30)  # hold(): the app is still handling it
                    self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/webhook"

    def hold(self) -> None:
        """Keep the next answers back (an app busy with its handler) until `release()`."""
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def types(self, prefix: str = "") -> list[str]:
        return [e["type"] for e in list(self.events) if e["type"].startswith(prefix)]

    def of(self, event_type: str) -> list[dict[str, Any]]:
        return [e for e in list(self.events) if e["type"] == event_type]

    def about(self, object_id: str) -> list[str]:
        """The types of the events about one object, in arrival order."""
        return [e["type"] for e in list(self.events) if e["data"]["object"].get("id") == object_id]

    def clear(self) -> None:
        self.events.clear()

    def close(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()


def sign(payload: bytes, secret: str = WEBHOOK_SECRET, timestamp: int | None = None) -> str:
    """A Stripe-Signature header for `payload`."""
    ts = int(time.time()) if timestamp is None else timestamp
    digest = hmac.new(secret.encode(), f"{ts}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={ts},v1={digest}"


def event_body(event: dict[str, Any]) -> bytes:
    return json.dumps(event).encode()


@pytest.fixture(scope="session")
def stripe_standin_server() -> Iterator[str]:
    proc, base, log = start_standin()
    try:
        yield base
    finally:
        stop_standin(proc)
        log.unlink(missing_ok=True)


@pytest.fixture
def stripe_standin(stripe_standin_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    """Settings pointed at the stand-in, which starts empty for each test."""
    base = stripe_standin_server
    httpx.post(f"{base}/_standin/reset").raise_for_status()
    monkeypatch.setattr(settings, "stripe_secret_key", SECRET_KEY)
    monkeypatch.setattr(settings, "stripe_publishable_key", PUBLISHABLE_KEY)
    monkeypatch.setattr(settings, "stripe_webhook_secret", WEBHOOK_SECRET)
    monkeypatch.setattr(settings, "stripe_api_base", base)
    yield StandIn(base=base, stripe=stripe.StripeClient(SECRET_KEY, base_addresses={"api": base}))


@pytest.fixture
def stripe_webhooks(stripe_standin: StandIn) -> Iterator[WebhookReceiver]:
    """A signed-webhook receiver registered with the (reset) stand-in."""
    receiver = WebhookReceiver()
    httpx.post(f"{stripe_standin.base}/_config/webhooks/receiver",
               data={"url": receiver.url, "secret": WEBHOOK_SECRET}).raise_for_status()
    try:
        yield receiver
    finally:
        receiver.close()


@pytest.fixture
def make_agent():
    """`factories.make_agent` with a demo link, as a sellable listing has."""

    def _make(vendor: User | None = None, **fields: object) -> Agent:
        return factories.make_agent(vendor, **{"demo_url": "https://demo.example.com", **fields})

    return _make


@pytest.fixture
def make_vendor(stripe_standin: StandIn):
    """A vendor; `account` = none | restricted (account, charges disabled) | enabled (onboarded account)."""

    def _make(account: str = "none") -> User:
        vendor = factories.make_vendor()
        if account == "none":
            return vendor
        created = stripe_standin.stripe.v1.accounts.create(params={"type": "express", "email": vendor.email})
        if account == "enabled":
            stripe_standin.onboard(created.id)
        state = stripe_standin.stripe.v1.accounts.retrieve(created.id)
        with db.session_scope() as session:
            row = session.get(User, vendor.id)
            row.stripe_account_id = state.id
            row.stripe_charges_enabled = bool(state.charges_enabled)
            row.stripe_payouts_enabled = bool(state.payouts_enabled)
            session.add(row)
        return row

    return _make


def set_platform(*, currency: str | None = None, rate: str | None = None, commission: str | None = None) -> None:
    values = {platform.CHECKOUT_CURRENCY: currency, platform.USD_TO_EUR_RATE: rate,
              platform.COMMISSION_RATE: commission}
    with db.session_scope() as session:
        for key, value in values.items():
            if value is not None:
                session.merge(PlatformSetting(key=key, value=value))


@pytest.fixture
def eur_checkout() -> Decimal:
    set_platform(currency="eur", rate="0.9200")
    return Decimal("0.9200")


def on_clock(standin: StandIn, monkeypatch: pytest.MonkeyPatch, at: datetime) -> str:
    """A test clock frozen at `at`, on which every Stripe Customer made from now on lives (as demo mode's)."""
    from marketplace.services.billing import demo_clock

    clock = standin.stripe.v1.test_helpers.test_clocks.create(params={"frozen_time": int(at.timestamp())})
    monkeypatch.setattr(demo_clock, "clock_id_for_new_customer", lambda: clock.id)
    return clock.id


@pytest.fixture
def app_webhooks(stripe_standin: StandIn, live_api: Any) -> Iterator[StandIn]:
    """The stand-in's webhooks go to the live app, so a clock's advance is handled before it is `ready`."""
    httpx.post(f"{stripe_standin.base}/_config/webhooks/app", data={
        "url": f"{live_api.url}/api/stripe/webhook", "secret": WEBHOOK_SECRET}).raise_for_status()
    yield stripe_standin
    stripe_standin.drain()  # every delivery answered before the tables are emptied for the next test
