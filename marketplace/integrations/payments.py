"""Stripe: the only module that talks to it (PaymentIntents, webhooks, Connect accounts).

Configured by STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_API_BASE. With real
test keys and no API base it talks to Stripe; with STRIPE_API_BASE pointing at the local stand-in
(`python -m dev.stripe_standin`) the same calls go there, and the browser loads the stand-in's Stripe.js.
Everything returned is a plain dataclass so services never handle SDK objects, and every failure is one of this
module's own errors (`PaymentsError`): the services turn them into domain errors (`services/payment_errors.py`).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import stripe

from marketplace.config import settings

if TYPE_CHECKING:
    from stripe import RequestOptions
    from stripe.params import (
        AccountCreateParams,
        AccountCreateParamsController,
        PaymentIntentCreateParams,
        RefundCreateParams,
    )

# The release train @stripe/stripe-js 10.2.1 is built for (its RELEASE_TRAIN); /v3/ loads the newest
# Stripe.js, with which that package warns of a version mismatch. Move both together.
REAL_STRIPE_JS_URL = "https://js.stripe.com/endive/stripe.js"
log = logging.getLogger(__name__)


class PaymentsError(Exception):
    """Base of what this module raises; `message` may be shown to the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PaymentsNotConfigured(PaymentsError):
    """No Stripe keys (or no webhook signing secret) are configured."""


class PaymentProviderError(PaymentsError):
    """Stripe could not be reached or answered unexpectedly; the caller may retry."""


class InvalidWebhook(PaymentsError):
    """A webhook whose signature or body does not check out."""


@dataclass(frozen=True)
class BrowserConfig:
    publishable_key: str
    stripe_js_url: str


@dataclass(frozen=True)
class CardUsed:
    brand: str  # 'visa', 'mastercard'...
    last4: str


def card_used(charge: Any) -> CardUsed | None:
    """The card of a charge (an expanded `latest_charge`), or None when it is not expanded or not a card."""
    if not isinstance(charge, dict):
        return None
    card = (charge.get("payment_method_details") or {}).get("card") or {}
    brand, last4 = card.get("brand"), card.get("last4")
    return CardUsed(brand=str(brand), last4=str(last4)) if brand and last4 else None


@dataclass(frozen=True)
class Intent:
    id: str
    client_secret: str
    status: str
    amount: int
    currency: str
    metadata: dict[str, str]
    application_fee_amount: int | None = None
    transfer_destination: str | None = None
    payment_method_types: list[str] = field(default_factory=lambda: ["card"])
    card: CardUsed | None = None  # the card that paid, when retrieved with its latest charge (for the receipt)


@dataclass(frozen=True)
class ConnectedAccount:
    id: str
    charges_enabled: bool
    payouts_enabled: bool
    details_submitted: bool
    currently_due: list[str]
    disabled_reason: str | None
    past_due: list[str] = field(default_factory=list)
    eventually_due: list[str] = field(default_factory=list)
    country: str | None = None
    default_currency: str | None = None


@dataclass(frozen=True)
class Payout:
    """A payout of a connected account to its bank; `status` pending | in_transit | paid | failed | canceled."""

    id: str
    amount: int
    currency: str
    status: str
    method: str
    type: str
    arrival_date: datetime | None
    created: datetime
    automatic: bool
    failure_code: str | None
    failure_message: str | None


@dataclass(frozen=True)
class WebhookEvent:
    id: str
    type: str
    object_id: str | None
    data: dict[str, Any]


def is_configured() -> bool:
    return bool(settings.stripe_secret_key)


def browser_config() -> BrowserConfig:
    """What a checkout page needs: the publishable key and where Stripe.js comes from."""
    if not settings.stripe_publishable_key:
        raise PaymentsNotConfigured("Payments are not configured")
    base = settings.stripe_api_base.rstrip("/")
    return BrowserConfig(
        publishable_key=settings.stripe_publishable_key,
        stripe_js_url=f"{base}/js.stripe.com/v3/" if base else REAL_STRIPE_JS_URL,
    )


@lru_cache(maxsize=4)
def _client_for(secret_key: str, api_base: str) -> stripe.StripeClient:
    addresses: dict[str, str] = {"api": api_base} if api_base else {}
    return stripe.StripeClient(secret_key, base_addresses=addresses, max_network_retries=2)  # type: ignore[arg-type]  # stripe types a TypedDict


def client() -> stripe.StripeClient:
    if not is_configured():
        raise PaymentsNotConfigured("Payments are not configured")
    return _client_for(settings.stripe_secret_key, settings.stripe_api_base.rstrip("/"))


def _provider_error(exc: stripe.StripeError) -> PaymentProviderError:
    log.warning("Stripe request failed: %s", exc)
    return PaymentProviderError("The payment provider could not process the request. Please try again.")


def _plain(obj: Any) -> dict[str, Any]:
    """SDK objects are not dicts (stripe>=15); work on their recursive dict form."""
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)


def _intent(sdk_obj: Any) -> Intent:
    obj = _plain(sdk_obj)
    transfer = obj.get("transfer_data")
    return Intent(
        id=obj["id"],
        client_secret=obj.get("client_secret") or "",
        status=obj["status"],
        amount=int(obj["amount"]),
        currency=str(obj["currency"]).lower(),
        metadata={str(k): str(v) for k, v in (obj.get("metadata") or {}).items()},
        application_fee_amount=obj.get("application_fee_amount"),
        transfer_destination=transfer.get("destination") if transfer else None,
        payment_method_types=list(obj.get("payment_method_types") or ["card"]),
        card=card_used(obj.get("latest_charge")),
    )


def create_payment_intent(
    *,
    amount: int,
    currency: str,
    metadata: dict[str, str],
    idempotency_key: str,
    description: str,
    application_fee_amount: int | None = None,
    destination: str | None = None,
) -> Intent:
    """A PaymentIntent for the Payment Element; a destination charge when `destination` is given."""
    params: PaymentIntentCreateParams = {
        "amount": amount,
        "currency": currency,
        "metadata": metadata,
        "description": description,
        "automatic_payment_methods": {"enabled": True},
    }
    if destination:
        params["application_fee_amount"] = application_fee_amount or 0
        params["transfer_data"] = {"destination": destination}
    try:
        obj = client().v1.payment_intents.create(params=params, options={"idempotency_key": idempotency_key})
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc
    intent = _intent(obj)
    if _replayed(obj):
        # A replay carries the intent as it was when first created; the caller needs its status now.
        intent = retrieve_payment_intent(intent.id) or intent
    return intent


def _replayed(obj: Any) -> bool:
    response = getattr(obj, "last_response", None)
    headers = {k.lower(): v for k, v in (response.headers.items() if response is not None else [])}
    return str(headers.get("idempotent-replayed", "")).lower() == "true"


def _find(fn: Any, *args: Any, **kwargs: Any) -> Any | None:
    """Call the SDK to retrieve an object: None when Stripe does not know the id, else this module's errors."""
    try:
        return fn(*args, **kwargs)
    except stripe.InvalidRequestError as exc:
        if exc.http_status == 404 or exc.code == "resource_missing":
            return None
        raise _provider_error(exc) from exc
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc


def retrieve_payment_intent(intent_id: str) -> Intent | None:
    """The PaymentIntent as Stripe has it now, or None when Stripe does not know the id. Its latest charge is
    expanded in the same call, so the receipt numbered with the order knows the card without asking again."""
    obj = _find(client().v1.payment_intents.retrieve, intent_id, params={"expand": ["latest_charge"]})
    return None if obj is None else _intent(obj)


def card_of_payment(intent_id: str) -> CardUsed | None:
    """The card that paid this PaymentIntent (for the receipt of an order paid before receipts were numbered at
    payment), or None when Stripe does not know the id or the payment was not made by card."""
    intent = retrieve_payment_intent(intent_id)
    return intent.card if intent is not None else None


def refund_payment(*, intent_id: str, reverse_split: bool, idempotency_key: str) -> str:
    """Give a whole payment back and answer the refund's id. For a destination charge the vendor's
    transfer and the platform's fee are taken back too, so neither keeps money for a sale that did not
    happen."""
    params: RefundCreateParams = {"payment_intent": intent_id}
    if reverse_split:
        params["reverse_transfer"], params["refund_application_fee"] = True, True
    try:
        try:
            obj = client().v1.refunds.create(params=params, options={"idempotency_key": idempotency_key})
        except stripe.InvalidRequestError as exc:
            if exc.code != "charge_already_refunded":
                raise
            # Refunded before, beyond the idempotency key's lifetime (24 h at Stripe): that refund is the answer.
            obj = client().v1.refunds.list(params={"payment_intent": intent_id, "limit": 1}).data[0]
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc
    return str(_plain(obj)["id"])


def parse_webhook(payload: bytes, signature: str | None) -> WebhookEvent:
    """Verify the Stripe-Signature header on the raw body, then read the event.

    The verified body is read as plain JSON: `stripe.Webhook.construct_event` builds SDK objects of the whole
    event, which `_plain` would only turn back into dicts (under a buying load that round trip was about 3% of a
    worker's CPU, benchmarks/README.md "Websocket load")."""
    if not settings.stripe_webhook_secret:
        raise PaymentsNotConfigured("Webhook signing secret is not configured")
    try:
        stripe.WebhookSignature.verify_header(payload, signature or "", settings.stripe_webhook_secret,
                                              stripe.Webhook.DEFAULT_TOLERANCE)
        body = json.loads(payload)
    except stripe.SignatureVerificationError:
        raise InvalidWebhook("Invalid webhook signature") from None
    except ValueError:
        raise InvalidWebhook("Invalid webhook payload") from None
    if not isinstance(body, dict):
        raise InvalidWebhook("Invalid webhook payload")
    data_object = (body.get("data") or {}).get("object") or {}
    return WebhookEvent(id=body["id"], type=body["type"], object_id=data_object.get("id"), data=data_object)


def _account(sdk_obj: Any) -> ConnectedAccount:
    obj = _plain(sdk_obj)
    requirements = obj.get("requirements") or {}
    return ConnectedAccount(
        id=obj["id"],
        charges_enabled=bool(obj.get("charges_enabled")),
        payouts_enabled=bool(obj.get("payouts_enabled")),
        details_submitted=bool(obj.get("details_submitted")),
        currently_due=list(requirements.get("currently_due") or []),
        disabled_reason=requirements.get("disabled_reason"),
        past_due=list(requirements.get("past_due") or []),
        eventually_due=list(requirements.get("eventually_due") or []),
        country=obj.get("country"),
        default_currency=str(obj["default_currency"]).lower() if obj.get("default_currency") else None,
    )


def account_from_event(data: dict[str, Any]) -> ConnectedAccount:
    return _account(data)


EXPRESS_CONTROLLER: AccountCreateParamsController = {
    "fees": {"payer": "application"},
    "losses": {"payments": "application"},
    "requirement_collection": "stripe",
    "stripe_dashboard": {"type": "express"},
}


def create_connected_account(
    *, email: str, country: str = "US", idempotency_key: str | None = None
) -> ConnectedAccount:
    """An Express-style account for a vendor; it can take charges once onboarding is complete. Described by
    `controller` (the platform pays Stripe's fees and carries losses, Stripe collects requirements, the vendor
    has the Express Dashboard): Stripe deprecated `type` in favour of it."""
    params: AccountCreateParams = {
        "controller": EXPRESS_CONTROLLER,
        "country": country,
        "email": email,
        "capabilities": {"card_payments": {"requested": True}, "transfers": {"requested": True}},
    }
    options: RequestOptions = {"idempotency_key": idempotency_key} if idempotency_key else {}
    try:
        return _account(client().v1.accounts.create(params=params, options=options))
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc


def retrieve_account(account_id: str) -> ConnectedAccount:
    try:
        return _account(client().v1.accounts.retrieve(account_id))
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc


def create_onboarding_link(*, account_id: str, refresh_url: str, return_url: str) -> str:
    """A one-time URL of Stripe's hosted onboarding for the connected account."""
    try:
        link = client().v1.account_links.create(params={
            "account": account_id, "refresh_url": refresh_url, "return_url": return_url,
            "type": "account_onboarding",
        })
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc
    return str(_plain(link)["url"])


def _timestamp(value: Any) -> datetime | None:
    return datetime.fromtimestamp(int(value), UTC) if value is not None else None


def _payout(sdk_obj: Any) -> Payout:
    obj = _plain(sdk_obj)
    return Payout(
        id=obj["id"],
        amount=int(obj["amount"]),
        currency=str(obj["currency"]).lower(),
        status=str(obj["status"]),
        method=str(obj.get("method") or "standard"),
        type=str(obj.get("type") or "bank_account"),
        arrival_date=_timestamp(obj.get("arrival_date")),
        created=_timestamp(obj["created"]) or datetime.now(UTC),
        automatic=bool(obj.get("automatic")),
        failure_code=obj.get("failure_code"),
        failure_message=obj.get("failure_message"),
    )


def list_payouts(*, account_id: str, limit: int) -> list[Payout]:
    """The connected account's payouts, newest first (the request is made as that account)."""
    try:
        page = client().v1.payouts.list(params={"limit": limit}, options={"stripe_account": account_id})
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc
    return [_payout(item) for item in page.data]

