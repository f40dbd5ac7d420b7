"""The stand-in's HTTP app: our routes first, then every localstripe route, on one loopback port."""

from __future__ import annotations

import asyncio
import hashlib
import html
import inspect
import json
import logging
import os
import random
import string
import time
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from localstripe import __version__ as localstripe_version
from localstripe import errors
from localstripe import resources as ls
from localstripe.errors import UserError
from localstripe.webhooks import _webhooks, register_webhook

from dev.stripe_standin import (
    billing_api,
    catalog,
    clocks,
    compat,
    context,
    customers,
    delivery,
    payouts,
    refunds,
    renewals,
    store,
)
from dev.stripe_standin.billing_api import own_auth
from dev.stripe_standin.customers import at_customer

with warnings.catch_warnings():
    # localstripe builds its own app at import with plain-function handlers (deprecated by aiohttp 3.x).
    # That app is never served: its handlers are re-registered below, wrapped as coroutines.
    warnings.simplefilter("ignore", DeprecationWarning)
    from localstripe import server as ls_server

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
SHIM_PATH = Path(__file__).with_name("stripe-standin.js")
# What @stripe/stripe-js 10.2.1 (the checkout's loader) expects `Stripe.version` to say; it warns otherwise.
STRIPE_JS_RELEASE = "endive"
ID_ALPHABET = string.ascii_letters + string.digits
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
BROWSER_ONLY_PARAMS = (
    "key", "client_secret", "payment_user_agent", "referrer", "use_stripe_sdk", "expected_payment_method_type",
    "return_url", "mandate_data", "setup_future_usage", "error_on_requires_action", "off_session", "shipping",
    "time_on_page", "guid", "muid", "sid",
)
log = logging.getLogger("stripe_standin")


def compact_json_response(data: Any, status: int = 200, **kwargs: Any) -> web.Response:
    """localstripe indents and sorts every answer; compact JSON is several times cheaper to write."""
    return web.json_response(data, status=status, dumps=json.dumps, **kwargs)


def _json(data: Any, status: int = 200) -> web.Response:
    return compact_json_response(data, status=status)


def _fast_random_id(n: int) -> str:
    return "".join(random.choices(ID_ALPHABET, k=n))


def _base_url(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


# --- idempotency (localstripe ignores the Idempotency-Key header) --------------------------------------------


@dataclass
class _Saved:
    fingerprint: str
    status: int
    body: bytes
    stored_at: float


@dataclass
class IdempotencyStore:
    """Replays the first answer for a key; a different request under the same key is an idempotency_error."""

    saved: dict[tuple[str, str], _Saved] = field(default_factory=dict)
    locks: dict[tuple[str, str], asyncio.Lock] = field(default_factory=dict)

    def lock(self, scope: tuple[str, str]) -> asyncio.Lock:
        return self.locks.setdefault(scope, asyncio.Lock())

    def get(self, scope: tuple[str, str]) -> _Saved | None:
        hit = self.saved.get(scope)
        if hit and time.time() - hit.stored_at > IDEMPOTENCY_TTL_SECONDS:
            del self.saved[scope]
            return None
        return hit

    def clear(self) -> None:
        self.saved.clear()
        self.locks.clear()


idempotency = IdempotencyStore()


@web.middleware
async def idempotency_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    key = request.headers.get("Idempotency-Key")
    if request.method != "POST" or not key:
        return await handler(request)
    if len(key) > 255:
        raise compat.InvalidRequest("Idempotency-Key must be at most 255 characters.")
    body = await request.read()
    scope = (ls_server.get_api_key(request) or "", key)
    fingerprint = hashlib.sha256(request.path.encode() + b"\n" + body).hexdigest()
    async with idempotency.lock(scope):
        hit = idempotency.get(scope)
        if hit is not None:
            if hit.fingerprint != fingerprint:
                return _json({"error": {
                    "type": "idempotency_error",
                    "message": "Keys for idempotent requests can only be used with the same parameters they were "
                               f"first used with. Try using a key other than '{key}' if you meant to execute a "
                               "different request.",
                }}, status=400)
            return web.Response(body=hit.body, status=hit.status, content_type="application/json",
                                headers={"Idempotent-Replayed": "true", "Idempotency-Key": key})
        try:
            response = await handler(request)
        except UserError as exc:
            response = exc.to_response()
        if isinstance(response, web.Response) and response.status < 500 and isinstance(response.body, bytes):
            idempotency.saved[scope] = _Saved(fingerprint, response.status, response.body, time.time())
        response.headers["Idempotency-Key"] = key
        return response


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    route_handler = request.match_info.route.handler
    if getattr(route_handler, "standin_own_auth", False):
        return await handler(request)
    return await ls_server.auth_middleware(request, handler)


# --- browser-side PaymentIntent routes (what Stripe.js calls with the publishable key) ----------------------


def _authorize_client_secret(request: web.Request, data: dict[str, Any], pi: Any) -> None:
    if ls_server.get_api_key(request):
        return
    key = data.get("key")
    if not (isinstance(key, str) and key.startswith("pk_")):
        raise UserError(401, "Unauthorized")
    if data.get("client_secret") != pi.client_secret:
        raise compat.InvalidRequest(
            "The client_secret provided does not match the client_secret associated with the PaymentIntent.",
            code="payment_intent_invalid_parameter", param="client_secret",
        )


@own_auth
async def confirm_payment_intent(request: web.Request) -> web.Response:
    """Confirm server-side (secret key) or from the browser (publishable key + client secret + card data)."""
    data = await ls_server.get_post_data(request, remove_auth=False) or {}
    pi = ls.PaymentIntent._api_retrieve(request.match_info["id"])
    _authorize_client_secret(request, data, pi)
    for name in BROWSER_ONLY_PARAMS:
        data.pop(name, None)
    expand = data.pop("expand", None)
    method_data = data.pop("payment_method_data", None)
    method_id = data.pop("payment_method", None)
    receipt_email = data.pop("receipt_email", None)
    if data:
        raise compat.InvalidRequest(f"Received unknown parameter: {next(iter(data))}", code="parameter_unknown")
    status = pi.status
    if status == "succeeded":
        raise compat.InvalidRequest(
            "You cannot confirm this PaymentIntent because it has already succeeded after being previously "
            "confirmed.", code="payment_intent_unexpected_state")
    if status not in ("requires_payment_method", "requires_confirmation"):
        raise compat.InvalidRequest(f"You cannot confirm this PaymentIntent because it has a status of {status}.",
                                    code="payment_intent_unexpected_state")
    if method_data is not None:
        with at_customer(pi.customer):
            method = compat.payment_method_from_data(method_data)
    elif method_id is not None:
        method = ls.PaymentMethod._api_retrieve(method_id)
    elif pi.payment_method:
        method = ls.PaymentMethod._api_retrieve(pi.payment_method)
    else:
        raise compat.InvalidRequest(
            "You cannot confirm this PaymentIntent because it's missing a payment method.",
            code="payment_intent_unexpected_state")
    if receipt_email:
        pi.receipt_email = receipt_email
    with at_customer(pi.customer):
        # A new attempt: forget the previous (declined) charge so the intent can be charged again.
        pi.payment_method = method.id
        pi.latest_charge = None
        pi.next_action = None
        try:
            pi._confirm(on_failure_now=pi._report_failure)
        except UserError as exc:
            exc.body["error"]["payment_intent"] = pi._export()
            raise
    return _json(pi._export(expand=expand))


@own_auth
async def retrieve_payment_intent(request: web.Request) -> web.Response:
    data = ls_server.unflatten_data(request.query)
    pi = ls.PaymentIntent._api_retrieve(request.match_info["id"])
    _authorize_client_secret(request, data, pi)
    return _json(pi._export(expand=data.get("expand")))


CANCELLATION_REASONS = ("duplicate", "fraudulent", "requested_by_customer", "abandoned")
CANCELLABLE = ("requires_payment_method", "requires_capture", "requires_confirmation", "requires_action",
               "processing")


@own_auth
async def cancel_payment_intent(request: web.Request) -> web.Response:
    """As Stripe's `POST /v1/payment_intents/{id}/cancel`: from a cancellable status only, an optional
    `cancellation_reason`, `canceled_at` set, and a `payment_intent.canceled` event."""
    data = await ls_server.get_post_data(request) or {}
    expand = data.pop("expand", None)
    reason = data.pop("cancellation_reason", None)
    if data:
        raise compat.InvalidRequest(f"Received unknown parameter: {next(iter(data))}", code="parameter_unknown")
    if reason is not None and reason not in CANCELLATION_REASONS:
        raise compat.InvalidRequest(f"Invalid cancellation_reason: must be one of {', '.join(CANCELLATION_REASONS)}",
                                    param="cancellation_reason")
    pi = ls.PaymentIntent._api_retrieve(request.match_info["id"])
    if pi.status not in CANCELLABLE:
        raise compat.InvalidRequest(
            f"You cannot cancel this PaymentIntent because it has a status of {pi.status}. Only a PaymentIntent "
            f"with one of the following statuses may be canceled: {', '.join(CANCELLABLE)}.",
            code="payment_intent_unexpected_state")
    pi._canceled = True
    pi.next_action = None
    pi.canceled_at = int(time.time())
    pi.cancellation_reason = reason
    delivery.emit("payment_intent.canceled", pi)
    return _json(pi._export(expand=expand))


@own_auth
async def create_payment_method(request: web.Request) -> web.Response:
    data = await ls_server.get_post_data(request, remove_auth=False) or {}
    key = data.pop("key", None)
    if not ls_server.get_api_key(request) and not (isinstance(key, str) and key.startswith("pk_")):
        raise UserError(401, "Unauthorized")
    for name in BROWSER_ONLY_PARAMS:
        data.pop(name, None)
    method = compat.payment_method_from_data(data) if data.get("type", "card") == "card" else ls.PaymentMethod(**data)
    return _json(method._export())


# --- Connect ------------------------------------------------------------------------------------------------


async def create_account_link(request: web.Request) -> web.Response:
    data = await ls_server.get_post_data(request) or {}
    return _json(compat.create_account_link(base_url=_base_url(request), **{
        "account": None, "refresh_url": None, "return_url": None, "type": None, **data}))


async def create_login_link(request: web.Request) -> web.Response:
    return _json(compat.create_login_link(base_url=_base_url(request), account_id=request.match_info["id"]))


def _acting_account(request: web.Request) -> compat.Account | None:
    return payouts.account_for_header(request.headers.get("Stripe-Account"))


async def _params(request: web.Request) -> dict[str, Any]:
    return dict(await ls_server.get_post_data(request) or {})


async def retrieve_balance(request: web.Request) -> web.Response:
    """`GET /v1/balance`, for the platform or (Stripe-Account header) a connected account."""
    return _json(payouts.balance(_acting_account(request)))


async def create_payout(request: web.Request) -> web.Response:
    data = await _params(request)
    data.pop("expand", None)
    return _json(payouts.create_payout(_acting_account(request), data)._export())


async def list_payouts(request: web.Request) -> web.Response:
    data = ls_server.unflatten_data(request.query)
    data.pop("expand", None)
    return _json(payouts.list_payouts(_acting_account(request), data))


async def retrieve_payout(request: web.Request) -> web.Response:
    return _json(payouts.retrieve_payout(_acting_account(request), request.match_info["id"])._export())


async def update_payout(request: web.Request) -> web.Response:
    data = await _params(request)
    data.pop("expand", None)
    return _json(payouts.update(_acting_account(request), request.match_info["id"], data)._export())


async def cancel_payout(request: web.Request) -> web.Response:
    return _json(payouts.cancel(_acting_account(request), request.match_info["id"])._export())


# Dev routes (no credentials, loopback only): what Stripe does on its own, on demand for demos and tests.


@own_auth
async def complete_account(request: web.Request) -> web.Response:
    """Finish onboarding without the browser (demo seeding); sends `account.updated` like the page."""
    account = compat.Account._api_retrieve(request.match_info["id"])
    account._complete_onboarding()
    return _json(account._export())


@own_auth
async def restrict_account(request: web.Request) -> web.Response:
    """What Stripe does when new requirements fall past due: the account can no longer take charges or
    transfers (`account.updated`); renewals of split subscriptions to it then fail to finalize."""
    account = compat.Account._api_retrieve(request.match_info["id"])
    account._restrict()
    return _json(account._export())


@own_auth
async def pay_out_account(request: web.Request) -> web.Response:
    """An automatic payout of the account's available balance; optional currency, method, created (backdate)."""
    account = compat.Account._api_retrieve(request.match_info["id"])
    data = await _params(request)
    unknown = set(data) - {"currency", "method", "created"}
    if unknown:
        raise compat.InvalidRequest(f"Received unknown parameter: {sorted(unknown)[0]}", code="parameter_unknown")
    created = data.get("created")
    if created is not None:
        created = ls.try_convert_to_int(created)
        if type(created) is not int or created > time.time():
            raise compat.InvalidRequest("created must be a unix time in the past", param="created")
    payout = payouts.pay_out_available(account, currency=data.get("currency"), created=created,
                                       method=data.get("method") or "standard")
    return _json(payout._export())


@own_auth
async def set_payout_status(request: web.Request) -> web.Response:
    """Move a payout to in_transit, paid or failed (failure_code / failure_message optional)."""
    return _json(payouts.set_status(request.match_info["id"], await _params(request))._export())


PAGE_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:560px;margin:40px auto;padding:0 16px;color:#1a1a2e}"
    "button{padding:10px 16px;margin:6px 6px 0 0;border-radius:6px;border:1px solid #635bff;cursor:pointer}"
    ".primary{background:#635bff;color:#fff}code{background:#f3f3f7;padding:2px 4px;border-radius:4px}"
)


def _page(title: str, body: str) -> web.Response:
    return web.Response(text=f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                             f"<style>{PAGE_STYLE}</style></head><body>{body}</body></html>",
                        content_type="text/html")


@own_auth
async def onboarding_page(request: web.Request) -> web.StreamResponse:
    """Hosted onboarding stand-in: one click completes (or leaves) the account's requirements."""
    link = compat.connect_state.links.get(request.match_info["token"])
    if link is None:
        return _page("Link not found", "<h1>This onboarding link is not valid.</h1>")
    if link.used or time.time() > link.expires_at:
        raise web.HTTPFound(link.refresh_url)
    account = compat.Account._api_retrieve(link.account)
    if request.method == "POST":
        form = await request.post()
        action = form.get("action")
        if action == "complete":
            account._complete_onboarding()
        elif action == "payouts_pending":
            account._submit_without_payouts()
        link.used = True
        raise web.HTTPFound(link.return_url)
    return _page("Connect onboarding (local stand-in)", f"""
<h1>Set up payouts</h1>
<p>Local Stripe stand-in: account <code>{html.escape(account.id)}</code>
({html.escape(account.email or "no e-mail")}). No real data is collected.</p>
<form method="post">
<button class="primary" name="action" value="complete">Complete onboarding</button>
<button name="action" value="payouts_pending">Submit details (payouts pending verification)</button>
<button name="action" value="exit">Save and exit without finishing</button>
</form>""")


@own_auth
async def dashboard_page(request: web.Request) -> web.Response:
    account = compat.Account._api_retrieve(request.match_info["id"])
    transfers = [t for t in ls.store.of("transfer") if t.destination == account.id]
    rows = "".join(f"<tr><td>{html.escape(t.id)}</td><td>{t.amount / 100:.2f} {t.currency.upper()}</td></tr>"
                   for t in sorted(transfers, key=lambda t: t.created, reverse=True))
    balance = ", ".join(f"{b['amount'] / 100:.2f} {b['currency'].upper()}"
                        for b in payouts.balance(account)["available"])
    payout_rows = "".join(
        f"<tr><td>{html.escape(p['id'])}</td><td>{p['amount'] / 100:.2f} {p['currency'].upper()}</td>"
        f"<td>{html.escape(p['status'])}</td></tr>"
        for p in payouts.list_payouts(account, {"limit": 100})["data"])
    return _page("Express dashboard (local stand-in)", f"""
<h1>Express dashboard</h1><p>Account <code>{html.escape(account.id)}</code>:
charges {"enabled" if account.charges_enabled else "disabled"},
payouts {"enabled" if account.payouts_enabled else "disabled"}. Available: {html.escape(balance)}.</p>
<table><tr><th>Transfer</th><th>Amount</th></tr>{rows}</table>
<table><tr><th>Payout</th><th>Amount</th><th>Status</th></tr>{payout_rows}</table>""")


# --- the Stripe.js shim and housekeeping ---------------------------------------------------------------------


@own_auth
async def stripe_js(_request: web.Request) -> web.Response:
    return web.Response(text=SHIM_PATH.read_text().replace("__STRIPE_JS_RELEASE__", STRIPE_JS_RELEASE),
                        content_type="application/javascript", headers={"Cache-Control": "no-store"})


@own_auth
async def health(_request: web.Request) -> web.Response:
    return _json({"ok": True, "pid": os.getpid(), "localstripe": localstripe_version, "webhooks": sorted(_webhooks),
                  "deliveries": delivery.deliveries.stats(), "api_version": context.default_api_version})


@own_auth
async def reset(_request: web.Request) -> web.Response:
    """Forget every object, webhook endpoint, queued webhook, saved idempotent answer and onboarding link."""
    clocks.clocks.clear()
    delivery.deliveries.cancel_all()
    ls.store.clear()
    _webhooks.clear()
    idempotency.clear()
    compat.connect_state.clear()
    return _json({"ok": True})


def _async(handler: Callable[[web.Request], Any]) -> Handler:
    """localstripe registers plain functions, which aiohttp deprecates; wrap them as coroutines."""
    if inspect.iscoroutinefunction(handler):
        return handler

    async def wrapped(request: web.Request) -> web.StreamResponse:
        result = handler(request)
        return await result if inspect.isawaitable(result) else result

    wrapped.__name__ = getattr(handler, "__name__", "localstripe_handler")
    return wrapped


@web.middleware
async def persist_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Objects change in place (localstripe mutates them): every write marks the store for the next save."""
    try:
        return await handler(request)
    finally:
        if request.method in ("POST", "DELETE"):
            ls.store.mark_dirty()  # type: ignore[attr-defined]


def latency_middleware(delay_ms: float) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """Answer every Stripe API call (`/v1/...`) `delay_ms` late, as Stripe over the internet does (200-600 ms):
    what the app does while it waits shows in benchmarks and tests. Dev routes and the Stripe.js shim stay fast."""

    @web.middleware
    async def delayed(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith("/v1/"):
            await asyncio.sleep(delay_ms / 1000)
        return await handler(request)

    return delayed


@web.middleware
async def context_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Stripe-Version picks the answer's shape; each request gets an id that its events carry."""
    version = request.headers.get("Stripe-Version") or context.default_api_version
    request_id = "req_" + ls.random_id(14)
    tokens = (context.api_version.set(version), context.request_id.set(request_id),
              context.idempotency_key.set(request.headers.get("Idempotency-Key")))
    try:
        response = await handler(request)
    finally:
        context.idempotency_key.reset(tokens[2])
        context.request_id.reset(tokens[1])
        context.api_version.reset(tokens[0])
    response.headers["Request-Id"] = request_id
    response.headers["Stripe-Version"] = version
    return response


def _after_load() -> None:
    """A clock caught mid-advance by a stop restarts from its frozen_time; a state file written by the stand-in
    before it spoke Billing gets its customers and products in today's shape."""
    for clock in ls.store.of("test_helpers.test_clock"):  # type: ignore[attr-defined]
        if getattr(clock, "status", None) == "advancing":
            clock.status, clock._cursor, clock._target = "ready", None, None
    for customer in ls.store.of("customer"):  # type: ignore[attr-defined]
        customers.upgrade_loaded(customer)
    for product in ls.store.of("product"):  # type: ignore[attr-defined]
        catalog.upgrade_loaded(product)


def install() -> None:
    """Apply every patch to localstripe (idempotent)."""
    ls.random_id = _fast_random_id
    ls_server.json_response = compact_json_response
    errors.json_response = compact_json_response
    store.install()
    store.patch_lists()
    delivery.install()
    compat.install()
    renewals.install()
    refunds.install()


def create_app(*, state_file: Path | None = None, webhook_url: str | None = None,
               webhook_secret: str | None = None, webhook_events: list[str] | None = None,
               tick_seconds: float = 10.0, webhook_delay: float = 0.0, delay_ms: float = 0.0) -> web.Application:
    install()
    persistence = store.Persistence(state_file)
    persistence.load()
    _after_load()
    clocks.clocks.tick_seconds = tick_seconds
    delivery.deliveries.delay = webhook_delay
    if webhook_url:
        if not webhook_secret:
            raise ValueError("a webhook URL needs its signing secret")
        register_webhook("standin", webhook_url, webhook_secret, webhook_events)

    middlewares = [ls_server.error_middleware, context_middleware, auth_middleware, idempotency_middleware,
                   persist_middleware]
    if delay_ms > 0:
        middlewares.insert(0, latency_middleware(delay_ms))
    app = web.Application(middlewares=middlewares)
    app.on_response_prepare.append(ls_server.add_cors_headers)
    app.on_startup.append(persistence.start)
    app.on_startup.append(clocks.clocks.start)
    app.on_shutdown.append(clocks.clocks.stop)
    app.on_cleanup.append(delivery.deliveries.close)
    app.on_cleanup.append(persistence.stop)
    ours: list[tuple[str, str, Handler]] = [
        ("GET", "/js.stripe.com/v3/", stripe_js),
        ("GET", "/js.stripe.com/v3", stripe_js),
        ("GET", f"/js.stripe.com/{STRIPE_JS_RELEASE}/stripe.js", stripe_js),
        ("GET", "/_standin/health", health),
        ("POST", "/_standin/reset", reset),
        ("GET", "/_standin/connect/onboarding/{token}", onboarding_page),
        ("POST", "/_standin/connect/onboarding/{token}", onboarding_page),
        ("GET", "/_standin/connect/dashboard/{id}", dashboard_page),
        ("POST", "/_standin/connect/accounts/{id}/complete", complete_account),
        ("POST", "/_standin/connect/accounts/{id}/restrict", restrict_account),
        ("POST", "/_standin/connect/accounts/{id}/payout", pay_out_account),
        ("POST", "/_standin/payouts/{id}/status", set_payout_status),
        ("GET", "/v1/balance", retrieve_balance),
        ("POST", "/v1/payouts", create_payout),
        ("GET", "/v1/payouts", list_payouts),
        ("GET", "/v1/payouts/{id}", retrieve_payout),
        ("POST", "/v1/payouts/{id}", update_payout),
        ("POST", "/v1/payouts/{id}/cancel", cancel_payout),
        ("POST", "/v1/payment_intents/{id}/confirm", confirm_payment_intent),
        ("GET", "/v1/payment_intents/{id}", retrieve_payment_intent),
        ("POST", "/v1/payment_intents/{id}/cancel", cancel_payment_intent),
        ("POST", "/v1/payment_methods", create_payment_method),
        ("POST", "/v1/account_links", create_account_link),
        ("POST", "/v1/accounts/{id}/login_links", create_login_link),
        ("POST", "/v1/accounts", ls_server.api_create(compat.Account, "/v1/accounts")),
        ("GET", "/v1/accounts/{id}", _async(ls_server.api_retrieve(compat.Account, "/v1/accounts"))),
        ("POST", "/v1/accounts/{id}", ls_server.api_update(compat.Account, "/v1/accounts")),
        ("DELETE", "/v1/accounts/{id}", _async(ls_server.api_delete(compat.Account, "/v1/accounts"))),
        ("GET", "/v1/accounts", _async(ls_server.api_list_all(compat.Account, "/v1/accounts"))),
        ("POST", "/v1/transfers", ls_server.api_create(compat.Transfer, "/v1/transfers")),
        ("GET", "/v1/transfers/{id}", _async(ls_server.api_retrieve(compat.Transfer, "/v1/transfers"))),
        ("GET", "/v1/transfers", _async(ls_server.api_list_all(compat.Transfer, "/v1/transfers"))),
        *billing_api.ROUTES,
    ]
    taken = set()
    for method, path, handler in ours:
        app.router.add_route(method, path, handler)
        taken.add((method, path))
        if method == "GET":
            taken.add(("HEAD", path))
    for route in ls_server.app.router.routes():
        path = route.resource.canonical if route.resource is not None else None
        if path is None or (route.method, path) in taken or path.startswith(billing_api.RETIRED_PREFIXES):
            continue
        app.router.add_route(route.method, path, _async(route.handler))
    return app

