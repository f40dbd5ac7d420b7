"""Stripe Billing: Customers, Prices, Subscriptions, their Invoices, SetupIntents for a new card, Test Clocks.

Kept apart from `payments.py` (one-off PaymentIntents, webhooks, Connect) but on its client and its errors: every
failure is a `payments.PaymentsError`, which `services/payment_errors.provider_errors` turns into domain errors.
Everything returned is a plain dataclass. Shapes are those of the SDK's pinned API version (basil and later): an
invoice names its subscription under `parent.subscription_details`, its PaymentIntent under `payments`, and the
period an invoice pays for is its line's `period` (a renewal's own `period_start/end` is the period that ended).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import stripe

from marketplace.integrations.payments import (
    CardUsed,
    PaymentsError,
    _find,
    _plain,
    _provider_error,
    _replayed,
    _timestamp,
    client,
)

if TYPE_CHECKING:
    from stripe.params import CouponCreateParams, SubscriptionUpdateParams


ENDED_STATUSES = frozenset({"canceled", "unpaid", "incomplete_expired"})
LIVE_STATUSES = frozenset({"active", "trialing", "past_due"})  # what is still charged


@dataclass(frozen=True)
class Customer:
    id: str
    test_clock: str | None


@dataclass(frozen=True)
class Subscription:
    id: str
    customer: str
    status: str
    price_id: str
    current_period_end: datetime | None
    cancel_at_period_end: bool
    canceled_at: datetime | None
    latest_invoice_id: str | None
    # The first (or latest) invoice's PaymentIntent and its client secret, when asked for on create.
    client_secret: str
    payment_intent_id: str
    metadata: dict[str, str]
    transfer_destination: str | None
    application_fee_percent: Decimal | None
    item_id: str = ""  # the one subscription item (a change of price names it)
    default_payment_method: str | None = None  # the card it charges (else the customer's default)
    trial_end: datetime | None = None  # a free trial's end (status 'trialing' until then)
    # A trial's SetupIntent that collects the card (Stripe.js `confirmSetup`), until it succeeded; its client
    # secret when it was expanded (on create).
    pending_setup_intent_id: str | None = None
    setup_client_secret: str = ""
    # The brand and last 4 of `default_payment_method` when it was expanded (on retrieve): the card an invoice
    # of this subscription is charged with, for its receipt.
    default_card: CardUsed | None = None


@dataclass(frozen=True)
class Invoice:
    id: str
    status: str
    customer: str
    subscription_id: str | None
    billing_reason: str
    amount_paid: int
    amount_due: int
    currency: str
    payment_intent_id: str | None
    # The end of the period this invoice pays for (its subscription line's), not the invoice's own period_end.
    period_end: datetime | None
    # The subscription's metadata when the invoice was made (`parent.subscription_details.metadata`).
    subscription_metadata: dict[str, str] = field(default_factory=dict)
    # What the subscription's coupon took off this invoice (`total_discount_amounts`), in its currency's cents.
    discount_amount: int = 0


class PaymentDeclined(PaymentsError):
    """The card was declined when an open invoice was paid again; `message` is Stripe's, for the customer."""


@dataclass(frozen=True)
class SetupIntent:
    id: str
    client_secret: str
    status: str
    payment_method: str | None
    customer: str | None
    metadata: dict[str, str]


@dataclass(frozen=True)
class TestClock:
    id: str
    status: str
    frozen_time: datetime


def _call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc


def _id(value: Any) -> str | None:
    """An expandable field: an id, or the object it was expanded into."""
    if isinstance(value, dict):
        return value.get("id")
    return str(value) if value else None


def _subscription(sdk_obj: Any) -> Subscription:
    obj = _plain(sdk_obj)
    items = (obj.get("items") or {}).get("data") or [{}]
    invoice = obj.get("latest_invoice")
    secret = ""
    if isinstance(invoice, dict):
        secret = ((invoice.get("confirmation_secret") or {}).get("client_secret")) or ""
    transfer = obj.get("transfer_data") or {}
    fee = obj.get("application_fee_percent")
    setup = obj.get("pending_setup_intent")
    return Subscription(
        id=obj["id"], customer=_id(obj.get("customer")) or "", status=str(obj["status"]),
        price_id=_id(items[0].get("price") or {}) or "",
        current_period_end=_timestamp(items[0].get("current_period_end")),
        cancel_at_period_end=bool(obj.get("cancel_at_period_end")),
        canceled_at=_timestamp(obj.get("canceled_at")),
        latest_invoice_id=_id(invoice),
        client_secret=secret,
        payment_intent_id=secret.split("_secret_")[0] if secret.startswith("pi_") else "",
        metadata={str(k): str(v) for k, v in (obj.get("metadata") or {}).items()},
        transfer_destination=_id(transfer.get("destination")) if transfer else None,
        application_fee_percent=Decimal(str(fee)) if fee is not None else None,
        item_id=str(items[0].get("id") or ""),
        default_payment_method=_id(obj.get("default_payment_method")),
        trial_end=_timestamp(obj.get("trial_end")),
        pending_setup_intent_id=_id(setup),
        setup_client_secret=str(setup.get("client_secret") or "") if isinstance(setup, dict) else "",
        default_card=_card_of_method(obj.get("default_payment_method")),
    )


def _card_of_method(method: Any) -> CardUsed | None:
    """An expanded PaymentMethod's card (brand and last 4), else None."""
    card = (method.get("card") or {}) if isinstance(method, dict) else {}
    brand, last4 = card.get("brand"), card.get("last4")
    return CardUsed(brand=str(brand), last4=str(last4)) if brand and last4 else None


def _invoice(sdk_obj: Any) -> Invoice:
    obj = _plain(sdk_obj)
    details = ((obj.get("parent") or {}).get("subscription_details")) or {}
    payments_list = ((obj.get("payments") or {}).get("data")) or []
    intent_id = None
    for entry in payments_list:
        intent_id = _id((entry.get("payment") or {}).get("payment_intent")) or intent_id
    lines = ((obj.get("lines") or {}).get("data")) or []
    ends = [line["period"]["end"] for line in lines
            if (line.get("period") or {}).get("end") and line.get("amount", 0) >= 0]
    return Invoice(
        id=obj["id"], status=str(obj.get("status") or ""), customer=_id(obj.get("customer")) or "",
        subscription_id=_id(details.get("subscription")), billing_reason=str(obj.get("billing_reason") or ""),
        amount_paid=int(obj.get("amount_paid") or 0), amount_due=int(obj.get("amount_due") or 0),
        currency=str(obj.get("currency") or "usd").lower(), payment_intent_id=intent_id,
        period_end=_timestamp(max(ends)) if ends else _timestamp(obj.get("period_end")),
        subscription_metadata={str(k): str(v) for k, v in (details.get("metadata") or {}).items()},
        discount_amount=sum(int(d.get("amount") or 0) for d in obj.get("total_discount_amounts") or []),
    )


def _setup_intent(sdk_obj: Any) -> SetupIntent:
    obj = _plain(sdk_obj)
    return SetupIntent(id=obj["id"], client_secret=obj.get("client_secret") or "", status=str(obj["status"]),
                       payment_method=_id(obj.get("payment_method")), customer=_id(obj.get("customer")),
                       metadata={str(k): str(v) for k, v in (obj.get("metadata") or {}).items()})


def _clock(sdk_obj: Any) -> TestClock:
    obj = _plain(sdk_obj)
    return TestClock(id=obj["id"], status=str(obj["status"]), frozen_time=_timestamp(obj["frozen_time"]))  # type: ignore[arg-type]  # a clock has a time


# ---- customers and prices -----------------------------------------------------------------------------------


def create_customer(*, email: str, name: str, user_id: str, test_clock: str | None = None) -> Customer:
    """A Customer for one user; the idempotency key makes two racing first checkouts get the same one."""
    params: dict[str, Any] = {"email": email, "name": name, "metadata": {"userId": user_id}}
    if test_clock:
        params["test_clock"] = test_clock
    obj = _plain(_call(client().v1.customers.create, params=params,
                       options={"idempotency_key": f"customer-{user_id}-{test_clock or 'wall'}"}))
    return Customer(id=obj["id"], test_clock=_id(obj.get("test_clock")))


def monthly_price(*, agent_id: str, agent_name: str, amount: int, currency: str) -> str:
    """The id of the monthly Price for this agent, amount and currency: found by its lookup key, else created
    (on the agent's one Product) under an idempotency key, so concurrent first subscribers share one Price."""
    return _monthly_price(product_id=f"agent_{agent_id}", name=agent_name or agent_id,
                          lookup_key=f"agent-{agent_id}-{currency}-{amount}", amount=amount, currency=currency,
                          metadata={"agentId": agent_id})


def plan_price(*, plan_id: str, plan_name: str, amount: int) -> str:
    """The monthly USD Price of a vendor plan at this amount (a new amount is a new Price; subscribers keep
    theirs), on the plan's one Product."""
    return _monthly_price(product_id=f"plan_{plan_id}", name=f"{plan_name} plan",
                          lookup_key=f"plan-{plan_id}-usd-{amount}", amount=amount, currency="usd",
                          metadata={"vendorPlan": plan_id})


def _monthly_price(*, product_id: str, name: str, lookup_key: str, amount: int, currency: str,
                   metadata: dict[str, str]) -> str:
    found = _call(client().v1.prices.list, params={"lookup_keys": [lookup_key], "limit": 1})
    if found.data:
        return str(found.data[0].id)
    try:
        client().v1.products.create(params={"id": product_id, "name": name[:200], "metadata": metadata},
                                    options={"idempotency_key": f"product-{product_id}"})
    except stripe.InvalidRequestError as exc:
        if exc.code != "resource_already_exists":
            raise _provider_error(exc) from exc
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc
    price = _call(client().v1.prices.create, params={
        "product": product_id, "unit_amount": amount, "currency": currency, "recurring": {"interval": "month"},
        "lookup_key": lookup_key, "metadata": metadata},
        options={"idempotency_key": f"price-{lookup_key}"})
    return str(price.id)


# ---- coupons ------------------------------------------------------------------------------------------------


def coupon(*, coupon_id: str, duration: str, duration_in_months: int | None, percent_off: int | None = None,
           amount_off: int | None = None, currency: str | None = None, name: str = "") -> str:
    """The id of the coupon `coupon_id` (found, else created with these terms): one coupon per promotion code
    and terms, shared by all its subscriptions, so Stripe discounts their renewals for the months chosen."""
    if _find(client().v1.coupons.retrieve, coupon_id) is not None:
        return coupon_id
    params: CouponCreateParams = {"id": coupon_id, "duration": duration,
                                  "metadata": {"promotionCoupon": coupon_id}}
    if name:
        params["name"] = name[:40]
    if duration == "repeating" and duration_in_months:
        params["duration_in_months"] = duration_in_months
    if percent_off is not None:
        params["percent_off"] = percent_off
    else:
        params["amount_off"], params["currency"] = amount_off or 0, currency or "usd"
    try:
        client().v1.coupons.create(params=params)
    except stripe.InvalidRequestError as exc:
        if exc.code != "resource_already_exists":  # made at the same moment by another checkout
            raise _provider_error(exc) from exc
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc
    return coupon_id


# ---- subscriptions ------------------------------------------------------------------------------------------


def create_subscription(
    *, customer: str, price: str, metadata: dict[str, str], idempotency_key: str,
    destination: str | None = None, application_fee_percent: Decimal | None = None, trial_days: int = 0,
    coupon_id: str | None = None,
) -> Subscription:
    """An incomplete subscription whose first invoice the checkout's Payment Element pays; the card it is paid
    with becomes the subscription's default. A destination charge with a percentage fee when `destination`.
    With `trial_days` it is 'trialing' at once and nothing is charged: the Payment Element confirms its
    `pending_setup_intent` instead, whose card pays the first invoice at the trial's end (a trial whose card
    was never given is cancelled then). A `coupon_id` discounts its invoices for the coupon's months; when that
    leaves nothing to pay now (100% off) Stripe makes it active at once and, as for a trial, a
    `pending_setup_intent` collects the card for the renewals."""
    params: dict[str, Any] = {
        "customer": customer, "items": [{"price": price}], "payment_behavior": "default_incomplete",
        "payment_settings": {"save_default_payment_method": "on_subscription"},
        "expand": ["latest_invoice.confirmation_secret"], "metadata": metadata,
    }
    if trial_days:
        params["trial_period_days"] = trial_days
        params["trial_settings"] = {"end_behavior": {"missing_payment_method": "cancel"}}
    if trial_days or coupon_id:
        params["expand"] = ["latest_invoice.confirmation_secret", "pending_setup_intent"]
    if coupon_id:
        params["discounts"] = [{"coupon": coupon_id}]
    if destination:
        params["transfer_data"] = {"destination": destination}
        params["application_fee_percent"] = float(application_fee_percent or 0)
    obj = _call(client().v1.subscriptions.create, params=params, options={"idempotency_key": idempotency_key})
    if _replayed(obj):
        # A replay answers the subscription as it was created; the caller needs it as it is now.
        return retrieve_subscription(str(obj.id), with_secret=True) or _subscription(obj)
    return _subscription(obj)


def retrieve_subscription(subscription_id: str, *, with_secret: bool = False) -> Subscription | None:
    """The subscription as Stripe has it now (None when unknown); `with_secret` adds its latest invoice's
    client secret (to pay a still-incomplete first invoice) and a trial's pending SetupIntent's. Its default
    card is expanded (`default_card`)."""
    expand = ["default_payment_method"]  # its card, for the receipt of the invoice it paid
    if with_secret:
        expand += ["latest_invoice.confirmation_secret", "pending_setup_intent"]
    params = {"expand": expand}
    found = _find(client().v1.subscriptions.retrieve, subscription_id, params=params)
    return None if found is None else _subscription(found)


def set_cancel_at_period_end(subscription_id: str, cancel: bool) -> Subscription:
    """Cancel at the period's end (True) or undo that (False)."""
    return _subscription(_call(client().v1.subscriptions.update, subscription_id,
                               params={"cancel_at_period_end": cancel}))


def cancel_now(subscription_id: str) -> Subscription:
    """End the subscription at once (a refund); already canceled is an answer too, not an error."""
    try:
        return _subscription(client().v1.subscriptions.cancel(subscription_id))
    except stripe.InvalidRequestError as exc:
        current = retrieve_subscription(subscription_id)
        if current is not None and current.status == "canceled":
            return current
        raise _provider_error(exc) from exc
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc


def change_price(subscription_id: str, *, item_id: str, price: str, now: bool,
                 metadata: dict[str, str]) -> Subscription:
    """Move a subscription to another Price (and renew it: a pending cancellation is undone). `now`: at once,
    the difference prorated and charged on an invoice right away (`PaymentDeclined` and no change when the card
    fails: an upgrade); else from the next renewal, nothing prorated (a downgrade at the period end)."""
    params: SubscriptionUpdateParams = {"items": [{"id": item_id, "price": price}], "metadata": metadata,
                                        "cancel_at_period_end": False,
                                        "proration_behavior": "always_invoice" if now else "none"}
    if now:
        params["payment_behavior"] = "error_if_incomplete"
    try:
        return _subscription(client().v1.subscriptions.update(subscription_id, params=params))
    except stripe.CardError as exc:
        raise PaymentDeclined(exc.user_message or "Your card was declined.") from exc
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc


def set_application_fee_percent(subscription_id: str, percent: Decimal) -> Subscription:
    """The platform's share of a split subscription's invoices from the next one on."""
    return _subscription(_call(client().v1.subscriptions.update, subscription_id,
                               params={"application_fee_percent": float(percent)}))


def live_subscriptions(customer: str) -> list[Subscription]:
    """The customer's subscriptions that are still charged (active, trialing or past due), agents' and vendor
    plans' alike."""
    page = _call(client().v1.subscriptions.list, params={"customer": customer, "limit": 100})
    return [sub for sub in map(_subscription, page.data) if sub.status in LIVE_STATUSES]


def set_default_payment_method(subscription_id: str, payment_method: str) -> Subscription:
    return _subscription(_call(client().v1.subscriptions.update, subscription_id,
                               params={"default_payment_method": payment_method}))


# ---- invoices -----------------------------------------------------------------------------------------------


def retrieve_invoice(invoice_id: str) -> Invoice | None:
    found = _find(client().v1.invoices.retrieve, invoice_id, params={"expand": ["payments"]})
    return None if found is None else _invoice(found)


def invoice_for_payment(payment_intent_id: str) -> Invoice | None:
    """The invoice a PaymentIntent paid (or was made to pay), or None for a one-off payment."""
    found = _call(client().v1.invoice_payments.list,
                  params={"payment": {"type": "payment_intent", "payment_intent": payment_intent_id}, "limit": 1})
    return retrieve_invoice(str(found.data[0].invoice)) if found.data else None


def open_invoices(subscription_id: str) -> list[Invoice]:
    page = _call(client().v1.invoices.list, params={"subscription": subscription_id, "status": "open", "limit": 10})
    return [_invoice(item) for item in page.data]


def pay_invoice(invoice_id: str) -> Invoice:
    """Try an open invoice again now (with the subscription's new default card); `PaymentDeclined` if refused."""
    try:
        return _invoice(client().v1.invoices.pay(invoice_id, params={"expand": ["payments"]}))
    except stripe.CardError as exc:
        raise PaymentDeclined(exc.user_message or "Your card was declined.") from exc
    except stripe.StripeError as exc:
        raise _provider_error(exc) from exc


# ---- a new card -------------------------------------------------------------------------------------------


def create_setup_intent(*, customer: str, metadata: dict[str, str]) -> SetupIntent:
    """A SetupIntent a Payment Element confirms (`confirmSetup`); the card is then kept for off-session renewals.
    The methods offered are the Dashboard's (`automatic_payment_methods`): the pinned API version no longer
    accepts `payment_method_types` on SetupIntents (Stripe answers 400 `parameter_unknown`)."""
    return _setup_intent(_call(client().v1.setup_intents.create, params={
        "customer": customer, "usage": "off_session", "automatic_payment_methods": {"enabled": True},
        "metadata": metadata}))


def retrieve_setup_intent(setup_intent_id: str) -> SetupIntent | None:
    found = _find(client().v1.setup_intents.retrieve, setup_intent_id)
    return None if found is None else _setup_intent(found)


# ---- test clocks (demo mode) ---------------------------------------------------------------------------------


def create_test_clock(*, name: str, frozen_time: datetime) -> TestClock:
    return _clock(_call(client().v1.test_helpers.test_clocks.create,
                        params={"name": name, "frozen_time": int(frozen_time.timestamp())}))


def retrieve_test_clock(clock_id: str) -> TestClock:
    return _clock(_call(client().v1.test_helpers.test_clocks.retrieve, clock_id))


def advance_test_clock(clock_id: str, *, to: datetime) -> TestClock:
    return _clock(_call(client().v1.test_helpers.test_clocks.advance, clock_id,
                        params={"frozen_time": int(to.timestamp())}))
