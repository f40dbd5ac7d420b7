"""Checkout: the agent a checkout page is for, and PaymentIntents priced on the server (currency, rate,
commission, and whether the vendor's connected account takes a destination charge). A monthly agent gets a
subscription instead (`subscribe`), whose first invoice's PaymentIntent the same Payment Element pays."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from marketplace.db import session_scope
from marketplace.integrations import payments
from marketplace.models import PricingModel, PromotionDuration, User
from marketplace.services import checkout_terms, guest_checkout, money, plans, promotions
from marketplace.services.billing import trials
from marketplace.services.errors import Conflict, Invalid, Unauthorized
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_user
from marketplace.services.purchases import subscribe
from marketplace.services.purchases.completion import complete_payment, live_agent, purchasable

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
    # A promotion code: its text and what it took off `amount` (cents of `currency`). Mode 'free' (a code that
    # takes the whole price of a one-time agent): nothing to pay, the page claims the agent with the code.
    promotion_code: str | None = None
    discount_amount: int = 0
    # 'setup' for a free trial: the client secret is a SetupIntent's (Stripe.js `confirmSetup`), nothing is paid
    intent_type: str = "payment"
    trial_days: int = 0
    trial_end: datetime | None = None
    trial_used: bool = False  # the agent has a trial but this buyer had it: this subscription starts paid
    # A monthly agent's code: which payments it discounts ('First payment', 'First 3 months', 'Every month'), the
    # price per month after it, and when the first period ends (the first renewal, or a trial's end).
    promotion_months: str | None = None
    monthly_amount: int = 0
    renews_at: datetime | None = None
    # What a subscription that costs nothing today first charges (at `renews_at`), and whether its code
    # discounts every month (then that is the price per month).
    next_charge: int = 0
    code_every_month: bool = False

    @property
    def due_today(self) -> int:
        """What the buyer pays now: nothing during a trial or for a subscription a code makes free now."""
        return 0 if self.intent_type == "setup" else self.amount


def quote(*, price_usd_cents: int) -> tuple[str, Decimal, int]:
    """Currency, rate and amount a payment opened now would carry: a guest's summary before their details."""
    return checkout_terms.quote(price_usd_cents=price_usd_cents)


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
GUEST_FREE_CODE = "Please sign in to use a code that makes this agent free."


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


def create_payment_intent(*, actor: User | None, agent_id: str, guest: guest_checkout.GuestDetails | None = None,
                          promotion_code: str | None = None) -> CheckoutIntent:
    """Price the agent on the server and open a PaymentIntent for the signed-in buyer, or for a signed-out
    visitor's `guest` details when the admin allows guest checkout (the server picks the account). A
    `promotion_code` lowers the price (refused with one of services/promotions' sentences) and holds one of the
    code's redemptions until the payment is recorded or its PaymentIntent cancelled."""
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
        agent_name, vendor_id = agent.name, agent.vendor_id
        monthly = agent.pricing_model == PricingModel.MONTHLY
        applied = None
        if promotion_code:
            applied = promotions.apply_code(session, code=promotion_code, buyer=buyer, agent=agent)
        # A guest is the account of their e-mail (guest_checkout.open_account): the code's and the trial's
        # once-per-customer rules count that account's redemptions, orders and trials, as for anyone signed in.
        trial_days = trials.trial_days_for(session, buyer_id=buyer.id, agent=agent) if monthly else 0
        trial_used = monthly and agent.trial_days > 0 and trial_days == 0
    fee_rate = plans.fee_for_vendor(vendor_id=vendor_id)  # the fee of the vendor's plan at this moment
    terms = checkout_terms.price(
        buyer=buyer, agent=agent, vendor=vendor, fee_rate=fee_rate,
        discount_usd_cents=applied.discount_usd_cents if applied else 0,
        promotion_code=applied.code if applied else None, promotion_code_id=applied.code_id if applied else None)
    if applied is not None and terms.amount == 0 and not monthly:
        if guest is not None and actor is None:
            raise Invalid(GUEST_FREE_CODE, field="promotionCode")  # a free claim needs an account, as GUEST_FREE
        return _checkout_intent(terms, intent_id="", client_secret="", methods=[], mode="free")
    # A subscription a 100% code makes free now is started without a charge (its card saved for the renewals).
    if (terms.amount < MIN_CHARGE_CENTS and not (monthly and terms.amount == 0)) \
            or terms.monthly_amount < MIN_CHARGE_CENTS:
        raise Invalid(f"The price is below the minimum card payment of 0.50 {terms.currency.upper()}")
    route = terms.route
    if monthly:
        return _subscribe(terms.with_trial(trial_days), buyer=buyer, agent_name=agent_name, applied=applied,
                          trial_used=trial_used)
    metadata = terms.to_metadata()
    key = _idempotency_key({**metadata, "amount": terms.amount, "fee": terms.fee, "destination": route.destination})

    def open_intent(idempotency_key: str) -> payments.Intent:
        with provider_errors():
            return payments.create_payment_intent(
                amount=terms.amount,
                currency=terms.currency,
                metadata=metadata,
                idempotency_key=idempotency_key,
                description=f"{agent_name} (AI agent license)",
                application_fee_amount=terms.fee if route.destination else None,
                destination=route.destination,
            )

    def opening() -> payments.Intent:
        intent = open_intent(key)
        return open_intent(f"{key}-after-{intent.id}") if intent.status == "canceled" else intent

    with promotions.holding(applied=applied, buyer_id=buyer.id, agent_id=agent_id,
                            discount_cents=terms.discount_amount, currency=terms.currency):
        intent = opening()
    if intent.status in ("succeeded", "processing", "requires_capture"):
        # The reused intent was already paid (the page closed before completing): record it, don't charge again.
        if intent.status == "succeeded":
            complete_payment(actor=buyer, payment_intent_id=intent.id, agent_id=agent_id)
            raise Conflict("You already own this agent")
        raise Conflict("A payment for this agent is already being processed")
    return _checkout_intent(terms, intent_id=intent.id, client_secret=intent.client_secret,
                            methods=_payment_methods(intent.payment_method_types))


def _subscribe(terms: checkout_terms.CheckoutTerms, *, buyer: User, agent_name: str,
               applied: promotions.Applied | None, trial_used: bool) -> CheckoutIntent:
    """A monthly agent's checkout: its subscription, with the code's Stripe coupon (whose hold is given back if
    the subscription cannot be opened, or when it expires unpaid: services/billing/invoices)."""
    with promotions.holding(applied=applied, buyer_id=buyer.id, agent_id=terms.agent_id,
                            discount_cents=terms.discount_amount, currency=terms.currency):
        coupon_id = None if applied is None else subscribe.coupon_for(
            terms=terms, duration=applied.duration, duration_months=applied.duration_months)
        sub, row_id = subscribe.open_subscription(buyer=buyer, agent_name=agent_name, terms=terms,
                                                  coupon_id=coupon_id)
    months = promotions.checkout_months(applied.duration, applied.duration_months) if applied else None
    every_month = applied is not None and applied.duration == PromotionDuration.FOREVER
    trial_days = terms.trial_days or 0
    if trial_days or terms.amount == 0:  # nothing is paid now: the Payment Element saves the card
        # After a trial the code discounts the first charge (Stripe's coupon waits for the first paid invoice);
        # a 100% code's second month is discounted too unless it was for the first month only.
        more_months = every_month or (applied is not None and (applied.duration_months or 1) > 1)
        next_charge = terms.amount if trial_days or more_months else terms.monthly_amount
        opened = _checkout_intent(terms, intent_id=sub.pending_setup_intent_id or "",
                                  client_secret=sub.setup_client_secret, methods=["card"], subscription_id=row_id)
        return replace(opened, intent_type="setup", trial_days=trial_days, trial_end=sub.trial_end,
                       promotion_months=months, renews_at=sub.current_period_end, next_charge=next_charge,
                       code_every_month=every_month)
    opened = _checkout_intent(terms, intent_id=sub.payment_intent_id, client_secret=sub.client_secret,
                              methods=["card"], subscription_id=row_id)
    return replace(opened, trial_used=trial_used, promotion_months=months, renews_at=sub.current_period_end,
                   code_every_month=every_month)


def _checkout_intent(terms: checkout_terms.CheckoutTerms, *, intent_id: str, client_secret: str, methods: list[str],
                     subscription_id: str | None = None, mode: str | None = None) -> CheckoutIntent:
    return CheckoutIntent(
        payment_intent_id=intent_id, client_secret=client_secret, currency=terms.currency, amount=terms.amount,
        display_amount=money.format_cents(terms.amount), exchange_rate=terms.rate,
        supported_payment_methods=methods, commission_split_enabled=terms.route.split,
        split_block_reason=terms.route.reason,
        mode=mode or ("payment" if subscription_id is None else "subscription"),
        subscription_id=subscription_id, promotion_code=terms.promotion_code, discount_amount=terms.discount_amount,
        monthly_amount=terms.monthly_amount)


OFFERED_METHODS = ("card", "apple_pay", "google_pay", "ideal", "bancontact", "sepa_debit", "sofort", "eps",
                   "giropay")


def _payment_methods(types: list[str]) -> list[str]:
    """Card always, plus the other methods the checkout can offer that Stripe enabled for this intent."""
    offered = ["card"]
    offered += [t for t in OFFERED_METHODS if t != "card" and t in types]
    return offered
