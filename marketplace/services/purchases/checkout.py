"""Checkout: the agent a checkout page is for, and PaymentIntents priced on the server (currency, rate,
commission, and whether the vendor's connected account takes a destination charge). A monthly agent gets a
subscription instead (`subscribe`), whose first invoice's PaymentIntent the same Payment Element pays."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal

from marketplace.db import session_scope
from marketplace.integrations import payments
from marketplace.models import PricingModel, User
from marketplace.services import guest_checkout, money, plans, platform
from marketplace.services.errors import Conflict, Invalid, Unauthorized
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_user
from marketplace.services.purchases import subscribe
from marketplace.services.purchases.completion import checkout_rate_for, complete_payment, live_agent, purchasable

NO_ACCOUNT = "Vendor has not connected a Stripe account"
CHARGES_DISABLED = "Vendor's Stripe account cannot accept charges yet"
NO_VENDOR = "Agent has no vendor account"
METADATA_KEYS = ("agentId", "userId", "vendorId", "commissionRate", "originalPriceUsdCents", "exchangeRate",
                 "currency")
MIN_CHARGE_CENTS = 50  # Stripe's minimum charge for USD and EUR


@dataclass(frozen=True)
class CheckoutIntent:
    payment_intent_id: str
    client_secret: str
    currency: str
    amount: int
    display_amount: str
    exchange_rate: Decimal
    supported_payment_methods: list[str]
    commission_split_enabled: bool
    split_block_reason: str | None
    mode: str = "payment"  # 'subscription' for a monthly agent: the client secret pays its first invoice
    subscription_id: str | None = None


@dataclass(frozen=True)
class _Pricing:
    currency: str
    rate: Decimal
    amount: int


@dataclass(frozen=True)
class _Route:
    """Where the money goes: a destination charge to `destination`, or direct to the platform (`reason`)."""

    destination: str | None
    reason: str | None


def checkout_currency() -> tuple[str, Decimal]:
    """The currency charged now and its rate from USD (1 for USD)."""
    currency = "eur" if platform.get_setting(platform.CHECKOUT_CURRENCY).strip().lower() == "eur" else "usd"
    return currency, checkout_rate_for(currency)


def _price(usd_cents: int, currency: str, rate: Decimal) -> _Pricing:
    return _Pricing(currency=currency, rate=rate, amount=money.convert_from_usd(usd_cents, rate))


def quote(*, price_usd_cents: int) -> tuple[str, Decimal, int]:
    """Currency, rate and amount a payment opened now would carry: a guest's summary before their details."""
    currency, rate = checkout_currency()
    pricing = _price(price_usd_cents, currency, rate)
    return pricing.currency, pricing.rate, pricing.amount


def _route(vendor: User | None) -> _Route:
    if vendor is None or vendor.deleted_at is not None:
        return _Route(None, NO_VENDOR)
    if not vendor.stripe_account_id:
        return _Route(None, NO_ACCOUNT)
    if not vendor.stripe_charges_enabled:
        return _Route(None, CHARGES_DISABLED)
    return _Route(vendor.stripe_account_id, None)


def _idempotency_key(params: dict[str, object]) -> str:
    """Same buyer, agent and charge -> same key, so a double click reuses one PaymentIntent."""
    digest = hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()[:24]
    return f"checkout-{params['userId']}-{params['agentId']}-{params['amount']}-{params['currency']}-{digest}"


@dataclass(frozen=True)
class CheckoutAgent:
    id: str
    name: str
    image_url: str | None
    price_usd_cents: int
    pricing_model: str = "monthly"  # models.PricingModel

    @property
    def is_free(self) -> bool:
        return self.price_usd_cents == 0


GUEST_FREE = "Please log in to get free agents"


def checkout_agent(*, actor: User | None, agent_id: str, guest: bool = False) -> CheckoutAgent:
    """The agent a checkout page is opened for, if this buyer may get it (the same refusals as paying). A
    signed-out visitor (`guest`) may open it while guest checkout is on (403 otherwise), for a paid agent."""
    with session_scope() as session:
        if guest and actor is None:
            guest_checkout.require_open()
            agent = live_agent(session, agent_id)
            if agent.price_cents == 0:
                raise Unauthorized(GUEST_FREE)  # a free claim needs an account: nothing to pay for as a guest
        else:
            agent = purchasable(session, require_user(actor), agent_id)
        return CheckoutAgent(id=agent.id, name=agent.name, image_url=agent.image_url,
                             price_usd_cents=agent.price_cents, pricing_model=agent.pricing_model)


def browser_config() -> payments.BrowserConfig:
    """What the checkout page's Stripe.js needs: the publishable key and where to load Stripe.js from (the local
    stand-in's when configured); 503 when payments are not configured."""
    with provider_errors():
        return payments.browser_config()


def create_payment_intent(*, actor: User | None, agent_id: str,
                          guest: guest_checkout.GuestDetails | None = None) -> CheckoutIntent:
    """Price the agent on the server and open a PaymentIntent for the signed-in buyer, or for a signed-out
    visitor's `guest` details when the admin allows guest checkout (the server picks the account)."""
    if guest is not None and actor is None:
        checkout_agent(actor=None, agent_id=agent_id, guest=True)  # first: no account for a sale that cannot be
        buyer = guest_checkout.open_account(details=guest)
    else:
        buyer = require_user(actor)
    with session_scope() as session:
        agent = purchasable(session, buyer, agent_id)
        if agent.price_cents == 0:
            raise Invalid("This agent is free: claim it without payment")
        vendor = session.get(User, agent.vendor_id) if agent.vendor_id else None
        route = _route(vendor)
        agent_name, price_cents, vendor_id = agent.name, agent.price_cents, agent.vendor_id
        monthly = agent.pricing_model == PricingModel.MONTHLY
    currency, rate = checkout_currency()
    pricing = _price(price_cents, currency, rate)
    if pricing.amount < MIN_CHARGE_CENTS:
        raise Invalid(f"The price is below the minimum card payment of 0.50 {currency.upper()}")
    commission = plans.fee_for_vendor(vendor_id=vendor_id)  # the fee of the vendor's plan at this moment
    fee = money.platform_fee(pricing.amount, commission)
    metadata = {
        "agentId": agent_id,
        "userId": buyer.id,
        "vendorId": vendor_id or "",
        "commissionRate": money.format_percent(commission),
        "originalPriceUsdCents": str(price_cents),
        "exchangeRate": money.format_rate(rate),
        "currency": currency,
    }
    if route.reason:
        metadata["splitBlockReason"] = route.reason
    if monthly:
        sub, row_id = subscribe.open_subscription(
            buyer=buyer, agent_id=agent_id, agent_name=agent_name, amount=pricing.amount, currency=currency,
            commission=commission, destination=route.destination, metadata=metadata)
        return CheckoutIntent(
            payment_intent_id=sub.payment_intent_id, client_secret=sub.client_secret, currency=currency,
            amount=pricing.amount, display_amount=money.format_cents(pricing.amount), exchange_rate=rate,
            supported_payment_methods=["card"], commission_split_enabled=route.destination is not None,
            split_block_reason=route.reason, mode="subscription", subscription_id=row_id)
    key = _idempotency_key({**metadata, "amount": pricing.amount, "fee": fee, "destination": route.destination})

    def open_intent(idempotency_key: str) -> payments.Intent:
        with provider_errors():
            return payments.create_payment_intent(
                amount=pricing.amount,
                currency=currency,
                metadata=metadata,
                idempotency_key=idempotency_key,
                description=f"{agent_name} (AI agent license)",
                application_fee_amount=fee if route.destination else None,
                destination=route.destination,
            )

    intent = open_intent(key)
    if intent.status in ("succeeded", "processing", "requires_capture"):
        # The reused intent was already paid (the page closed before completing): record it, don't charge again.
        if intent.status == "succeeded":
            complete_payment(actor=buyer, payment_intent_id=intent.id, agent_id=agent_id)
            raise Conflict("You already own this agent")
        raise Conflict("A payment for this agent is already being processed")
    if intent.status == "canceled":
        intent = open_intent(f"{key}-after-{intent.id}")
    return CheckoutIntent(
        payment_intent_id=intent.id,
        client_secret=intent.client_secret,
        currency=currency,
        amount=pricing.amount,
        display_amount=money.format_cents(pricing.amount),
        exchange_rate=rate,
        supported_payment_methods=_payment_methods(intent.payment_method_types),
        commission_split_enabled=route.destination is not None,
        split_block_reason=route.reason,
    )


OFFERED_METHODS = ("card", "apple_pay", "google_pay", "ideal", "bancontact", "sepa_debit", "sofort", "eps",
                   "giropay")


def _payment_methods(types: list[str]) -> list[str]:
    """Card always, plus the other methods the checkout can offer that Stripe enabled for this intent."""
    offered = ["card"]
    offered += [t for t in OFFERED_METHODS if t != "card" and t in types]
    return offered
