"""Hold what the app sends to Stripe and what the stand-in answers to Stripe's published types (dev/stripe_types.json,
made from the official `stripe` npm package of the API version the pinned SDK sends, by dev/stripe_types.py).

`recording_client` is a StripeClient whose HTTP client keeps every exchange; `problems` answers, for exchanges and
events, one line per mismatch naming the method, the parameter or the object field, so a failing test says what
drifted. The stand-in may answer fewer fields than Stripe, never one Stripe does not have, nor a status value Stripe
does not publish.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import stripe

TYPES_FILE = Path(__file__).resolve().parents[1] / "dev" / "stripe_types.json"

# The fields the app reads (marketplace/integrations/*, the webhook handlers in marketplace/services), by object:
# each must exist in the published object (dotted: one level into a nested object).
APP_READS: dict[str, tuple[str, ...]] = {
    "payment_intent": ("id", "client_secret", "status", "amount", "currency", "metadata", "application_fee_amount",
                       "transfer_data.destination", "payment_method_types", "last_payment_error.message",
                       "latest_charge"),
    "account": ("id", "charges_enabled", "payouts_enabled", "details_submitted", "requirements.currently_due",
                "requirements.disabled_reason", "requirements.past_due", "requirements.eventually_due", "country",
                "default_currency"),
    "account_link": ("url",),
    "payout": ("id", "amount", "currency", "status", "method", "type", "arrival_date", "created", "automatic",
               "failure_code", "failure_message"),
    "refund": ("id", "amount", "status"),
    "charge": ("id", "refunded", "payment_intent"),
    "dispute": ("id", "payment_intent", "reason", "status"),
    "customer": ("id", "test_clock", "invoice_settings.default_payment_method"),
    "payment_method": ("id", "customer", "card.brand", "card.last4", "card.exp_month", "card.exp_year"),
    "price": ("id",),
    "subscription": ("id", "customer", "status", "items", "cancel_at_period_end", "canceled_at", "latest_invoice",
                     "metadata", "transfer_data.destination", "application_fee_percent", "default_payment_method",
                     "trial_end", "pending_setup_intent"),
    "subscription_item": ("id", "price", "current_period_end"),
    "invoice": ("id", "status", "customer", "parent.subscription_details", "billing_reason", "amount_paid",
                "amount_due", "currency", "payments", "lines", "period_end", "confirmation_secret.client_secret",
                "total_discount_amounts.amount"),
    "coupon": ("id",),
    "invoice_payment": ("invoice", "payment.payment_intent"),
    "line_item": ("amount", "period.end"),
    "setup_intent": ("id", "client_secret", "status", "payment_method", "customer", "metadata"),
    "test_helpers.test_clock": ("id", "status", "frozen_time"),
    "event": ("id", "type", "data"),
}
# Containers an answer may be (not resources of their own).
CONTAINERS = frozenset({"list", "search_result"})


@lru_cache(maxsize=1)
def published() -> dict[str, Any]:
    return json.loads(TYPES_FILE.read_text())


@dataclass(frozen=True)
class Exchange:
    method: str
    url: str
    body: str  # the form-encoded request body ("" for GET, whose parameters are in the URL)
    status: int
    answer: str


def recording_client(secret_key: str, api_base: str, exchanges: list[Exchange]) -> stripe.StripeClient:
    """A StripeClient like the app's whose every request and answer is appended to `exchanges`."""
    base = type(stripe.new_default_http_client())
    lock = threading.Lock()

    class Recording(base):  # type: ignore[valid-type, misc]  # the SDK's default HTTP client, whichever it is
        def request(self, method: str, url: str, headers: Any, post_data: Any = None, **kwargs: Any) -> Any:
            content, status, response_headers = super().request(method, url, headers, post_data, **kwargs)
            text = content.decode() if isinstance(content, bytes) else str(content)
            sent = post_data.decode() if isinstance(post_data, bytes) else str(post_data or "")
            with lock:
                exchanges.append(Exchange(method.upper(), url, sent, status, text))
            return content, status, response_headers

    return stripe.StripeClient(secret_key, base_addresses={"api": api_base},
                               http_client=Recording(), max_network_retries=2)


@lru_cache(maxsize=1)
def _routes() -> list[tuple[re.Pattern[str], str]]:
    """Published paths as patterns, those with fewer placeholders first (`/v1/x/search` before `/v1/x/{id}`)."""
    keys = sorted(published()["methods"], key=lambda k: (k.count("{"), k))
    return [(re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(k)) + "$"), k) for k in keys]


def route(method: str, path: str) -> str | None:
    key = f"{method} {path}"
    return next((name for pattern, name in _routes() if pattern.match(key)), None)


def request_problems(method: str, url: str, body: str = "") -> list[str]:
    """The request's method and path are published, and each parameter (one level into nested ones) too."""
    parts = urlsplit(url)
    name = route(method, parts.path)
    if name is None:
        return [f"{method} {parts.path}: not a published Stripe API method"]
    spec = published()["methods"][name]
    allowed, nested = set(spec["params"]), spec["nested"]
    found: list[str] = []
    for key, _value in parse_qsl(parts.query, keep_blank_values=True) + parse_qsl(body, keep_blank_values=True):
        path = re.findall(r"[^\[\]]+", key)
        top = path[0]
        if top not in allowed:
            found.append(f"{name}: parameter {top!r} is not in Stripe's published types")
            continue
        inner = next((p for p in path[1:] if not p.isdigit()), None) if top in nested else None
        if inner is not None and inner not in nested[top]:
            found.append(f"{name}: parameter '{top}.{inner}' is not in Stripe's published types")
    return sorted(set(found))


def _check_fields(where: str, obj: Mapping[str, Any], fields: Mapping[str, Any], found: list[str]) -> None:
    for key, value in obj.items():
        spec = fields.get(key)
        if spec is None:
            found.append(f"{where}: field {key!r} is not in Stripe's published object")
            continue
        values = spec.get("values")
        if values and isinstance(value, str) and value not in values:
            found.append(f"{where}.{key}: {value!r} is not one of Stripe's published values")
        inner = spec.get("fields")
        if inner and isinstance(value, Mapping) and "object" not in value:
            _check_fields(f"{where}.{key}", value, inner, found)


def object_problems(obj: Any, where: str = "answer") -> list[str]:
    """Every Stripe object inside `obj` (expanded ones and list items too) has only published fields and, where
    Stripe publishes the values (status, type, reason...), one of them."""
    found: list[str] = []
    objects = published()["objects"]

    def walk(value: Any, at: str) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item, at)
            return
        if not isinstance(value, Mapping):
            return
        kind = value.get("object")
        if isinstance(kind, str) and kind not in CONTAINERS:
            if kind not in objects:
                found.append(f"{at}: object {kind!r} is not among the published objects "
                             "(dev/stripe_types.py RESOURCES)")
            else:
                _check_fields(f"{at} {kind}", value, objects[kind]["fields"], found)
        for inner in value.values():
            if isinstance(inner, (Mapping, list)):
                walk(inner, at)

    walk(obj, where)
    return sorted(set(found))


def exchange_problems(exchanges: Iterable[Exchange]) -> list[str]:
    found: list[str] = []
    for ex in exchanges:
        found += request_problems(ex.method, ex.url, ex.body)
        name = route(ex.method, urlsplit(ex.url).path) or f"{ex.method} {urlsplit(ex.url).path}"
        if ex.status < 400:
            found += object_problems(json.loads(ex.answer), f"answer to {name}")
    return sorted(set(found))


def app_reads_problems() -> list[str]:
    """The fields the app reads exist in the published objects."""
    found = []
    objects = published()["objects"]
    for kind, reads in APP_READS.items():
        fields = objects.get(kind, {}).get("fields")
        if fields is None:
            found.append(f"object {kind!r} is not among the published objects")
            continue
        for read in reads:
            top, _, inner = read.partition(".")
            if top not in fields or (inner and inner not in fields[top].get("fields", {})):
                found.append(f"{kind}.{read}: read by the app, not in Stripe's published object")
    return found
