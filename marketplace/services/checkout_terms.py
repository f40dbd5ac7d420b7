"""The terms of a sale, in one place: who buys which agent, where the money goes, the USD price, the currency,
rate and amount charged, and the platform's fee and the vendor's share of it.

Checkout prices them (`price`), writes them on the Stripe object as metadata (`to_metadata`), and completion,
the subscription's row and its invoices read them back (`from_metadata`, `of_subscription`): one list of keys,
one parser, one arithmetic (services/money: half-up to the cent, the vendor gets the rest of the fee).

The metadata keys and formats are those Stripe objects already carry, so PaymentIntents and subscriptions made
before this module still complete and renew."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from marketplace.models import Agent, Subscription, User
from marketplace.services import money, platform
from marketplace.services.errors import Invalid

NO_ACCOUNT = "Vendor has not connected a Stripe account"
CHARGES_DISABLED = "Vendor's Stripe account cannot accept charges yet"
NO_VENDOR = "Agent has no vendor account"
DIRECT_REASON = "Payment processed directly to platform"  # a direct charge whose metadata names no reason

# The keys every sale's metadata has (besides "vendorId", empty for an agent without a vendor, and
# "splitBlockReason" on a direct charge); a subscription's also has the amount each invoice charges.
REQUIRED_KEYS = ("agentId", "userId", "commissionRate", "originalPriceUsdCents", "exchangeRate", "currency")
AMOUNT_KEY = "amount"
# A sale with a promotion code also has these three (all or none): the code's id and text, and what it took
# off the USD price (the amount charged is the discounted USD price at the rate).
PROMOTION_KEYS = ("promotionCodeId", "promotionCode", "discountUsdCents")
TRIAL_KEY = "trialDays"  # a subscription's free days before its first charge (absent: none)
MAX_TRIAL_DAYS = 730  # Stripe's limit on trial_period_days


class TermsError(Invalid):
    """Metadata that does not hold a sale's terms, naming the key: `missing` (absent or empty, e.g. a payment
    made by another system) or malformed (present but not a value checkout writes)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"Sale terms: metadata key '{key}' is {problem}")
        self.key = key
        self.missing = problem == "missing"


@dataclass(frozen=True)
class Route:
    """Where the money goes: split (a destination charge to the vendor's connected account, with the fee kept by
    the platform) or direct to the platform, and why."""

    split: bool
    reason: str | None = None  # why not split; None when split
    destination: str | None = None  # the connected account, where known (checkout, the Stripe object)

    @classmethod
    def for_vendor(cls, vendor: User | None) -> Route:
        """The route a sale of this vendor's agent takes now (Stripe Connect: charges must be enabled)."""
        if vendor is None or vendor.deleted_at is not None:
            return cls(split=False, reason=NO_VENDOR)
        if not vendor.stripe_account_id:
            return cls(split=False, reason=NO_ACCOUNT)
        if not vendor.stripe_charges_enabled:
            return cls(split=False, reason=CHARGES_DISABLED)
        return cls(split=True, destination=vendor.stripe_account_id)


@dataclass(frozen=True)
class CheckoutTerms:
    agent_id: str
    buyer_id: str
    vendor_id: str | None
    route: Route
    price_usd_cents: int
    currency: str
    rate: Decimal  # 1 USD = rate units of `currency`
    amount: int  # charged, in cents of `currency`
    fee_rate: Decimal  # the platform's share in percent
    fee: int
    vendor_share: int
    # A promotion code (services/promotions): what it takes off the USD price; the amount, fee and share are
    # computed on the discounted price, so the platform and the vendor share the discount.
    discount_cents: int | None = None  # USD cents off `price_usd_cents`
    promotion_code: str | None = None
    promotion_code_id: str | None = None
    # Room for the money issue's trials: not priced or written yet.
    trial_days: int | None = None

    @property
    def full_amount(self) -> int:
        """What the buyer would pay without the code, in cents of `currency`."""
        return money.convert_from_usd(self.price_usd_cents, self.rate)

    @property
    def monthly_amount(self) -> int:
        """A subscription's price per month: the full amount; its code's discount is Stripe's coupon's to take
        off the invoices of the months it applies to."""
        return self.full_amount if self.promotion_code_id else self.amount

    @property
    def discount_amount(self) -> int:
        """What the code takes off, in cents of `currency` (0 without a code)."""
        return self.full_amount - self.amount if self.discount_cents else 0

    @classmethod
    def build(cls, *, agent_id: str, buyer_id: str, vendor_id: str | None, route: Route, price_usd_cents: int,
              currency: str, rate: Decimal, fee_rate: Decimal, amount: int | None = None,
              discount_usd_cents: int = 0, promotion_code: str | None = None,
              promotion_code_id: str | None = None) -> CheckoutTerms:
        """The one arithmetic: the amount is the USD price less the code's discount, at `rate`, unless given (an
        invoice's amount paid); the fee is rounded half-up on that amount and the vendor gets the rest."""
        discount = max(0, min(discount_usd_cents, price_usd_cents)) if promotion_code_id else 0
        charged = money.convert_from_usd(price_usd_cents - discount, rate) if amount is None else amount
        vendor_share, fee = money.split(charged, fee_rate)
        return cls(agent_id=agent_id, buyer_id=buyer_id, vendor_id=vendor_id, route=route,
                   price_usd_cents=price_usd_cents, currency=currency, rate=rate, amount=charged, fee_rate=fee_rate,
                   fee=fee, vendor_share=vendor_share, discount_cents=discount if promotion_code_id else None,
                   promotion_code=promotion_code if promotion_code_id else None,
                   promotion_code_id=promotion_code_id)

    def to_metadata(self, *, with_amount: bool = False) -> dict[str, str]:
        """The metadata checkout writes on a PaymentIntent, or (`with_amount`) on a subscription."""
        metadata = {
            "agentId": self.agent_id,
            "userId": self.buyer_id,
            "vendorId": self.vendor_id or "",
            "commissionRate": money.format_percent(self.fee_rate),
            "originalPriceUsdCents": str(self.price_usd_cents),
            "exchangeRate": money.format_rate(self.rate),
            "currency": self.currency,
        }
        if self.route.reason:
            metadata["splitBlockReason"] = self.route.reason
        if self.promotion_code_id:
            metadata |= dict(zip(PROMOTION_KEYS, (self.promotion_code_id, self.promotion_code or "",
                                                  str(self.discount_cents or 0)), strict=True))
        if with_amount:  # each invoice's price: with a code, the full one (Stripe's coupon takes the discount off)
            metadata[AMOUNT_KEY] = str(self.monthly_amount)
        if self.trial_days:
            metadata[TRIAL_KEY] = str(self.trial_days)
        return metadata

    def with_trial(self, days: int) -> CheckoutTerms:
        """The same sale with `days` free before the first charge (0: none; services/billing/trials decides)."""
        return replace(self, trial_days=days or None)

    @classmethod
    def from_metadata(cls, metadata: dict[str, str], *, destination: str | None,
                      with_amount: bool = False) -> CheckoutTerms:
        """The terms a Stripe object carries; `destination` is its transfer destination (split when set).
        Raises `TermsError` naming the first key missing or malformed. An amount (required `with_amount`)
        must be the one the price and rate give."""
        for key in (*REQUIRED_KEYS, *((AMOUNT_KEY,) if with_amount else ())):
            if not metadata.get(key):
                raise TermsError(key, "missing")
        currency = metadata["currency"]
        if currency not in money.SUPPORTED_CURRENCIES:
            raise TermsError("currency", "malformed")
        rate = _decimal(metadata, "exchangeRate")
        if rate <= 0 or (currency == "usd" and rate != 1):
            raise TermsError("exchangeRate", "malformed")
        fee_rate = _decimal(metadata, "commissionRate")
        if not Decimal(0) <= fee_rate <= Decimal(100):
            raise TermsError("commissionRate", "malformed")
        usd = _digits(metadata, "originalPriceUsdCents")
        code_id, code, discount = _promotion(metadata, price_usd_cents=usd)
        route = Route(split=True, destination=destination) if destination is not None else Route(
            split=False, reason=metadata.get("splitBlockReason") or DIRECT_REASON)
        terms = cls.build(agent_id=metadata["agentId"], buyer_id=metadata["userId"],
                          vendor_id=metadata.get("vendorId") or None, route=route, price_usd_cents=usd,
                          currency=currency, rate=rate, fee_rate=fee_rate, discount_usd_cents=discount,
                          promotion_code=code, promotion_code_id=code_id)
        if metadata.get(AMOUNT_KEY) and _digits(metadata, AMOUNT_KEY) != terms.monthly_amount:
            raise TermsError(AMOUNT_KEY, "malformed")
        if metadata.get(TRIAL_KEY):
            days = _digits(metadata, TRIAL_KEY)
            if not 0 < days <= MAX_TRIAL_DAYS:
                raise TermsError(TRIAL_KEY, "malformed")
            terms = terms.with_trial(days)
        return terms

    @classmethod
    def of_subscription(cls, row: Subscription, *, amount: int, split_reason: str | None) -> CheckoutTerms:
        """The terms an invoice of a subscription is recorded at: its row's snapshot, whose fee follows the
        vendor's plan from each renewal on (services/plans/fees), and the amount Stripe charged."""
        route = Route(split=True) if row.commission_split_enabled else Route(
            split=False, reason=split_reason or DIRECT_REASON)
        return cls.build(agent_id=row.agent_id or "", buyer_id=row.user_id or "", vendor_id=row.vendor_id,
                         route=route, price_usd_cents=row.original_price_usd_cents, currency=row.currency,
                         rate=Decimal(row.exchange_rate), fee_rate=Decimal(row.commission_rate), amount=amount)


def _promotion(metadata: dict[str, str], *, price_usd_cents: int) -> tuple[str | None, str | None, int]:
    """The promotion code keys: all three or none; the discount at most the price."""
    if not any(metadata.get(key) for key in PROMOTION_KEYS):
        return None, None, 0
    for key in PROMOTION_KEYS:
        if not metadata.get(key):
            raise TermsError(key, "malformed")
    discount = _digits(metadata, "discountUsdCents")
    if discount > price_usd_cents:
        raise TermsError("discountUsdCents", "malformed")
    return metadata["promotionCodeId"], metadata["promotionCode"], discount


def _decimal(metadata: dict[str, str], key: str) -> Decimal:
    try:
        value = Decimal(metadata[key])
    except InvalidOperation:
        raise TermsError(key, "malformed") from None
    if not value.is_finite():
        raise TermsError(key, "malformed")
    return value


def _digits(metadata: dict[str, str], key: str) -> int:
    value = metadata[key]
    if not (value.isascii() and value.isdigit()):
        raise TermsError(key, "malformed")
    return int(value)


def checkout_rate_for(currency: str) -> Decimal:
    """The rate a payment in `currency` is made at now: 1 for USD, the stored USD to EUR rate for EUR."""
    if currency == "usd":
        return Decimal(1)
    rate = money.parse_rate(platform.get_setting(platform.USD_TO_EUR_RATE))
    if rate is None:
        raise Invalid("The stored USD to EUR exchange rate is invalid")
    return rate


def checkout_currency() -> tuple[str, Decimal]:
    """The currency charged now and its rate from USD (1 for USD)."""
    currency = "eur" if platform.get_setting(platform.CHECKOUT_CURRENCY).strip().lower() == "eur" else "usd"
    return currency, checkout_rate_for(currency)


def quote(*, price_usd_cents: int) -> tuple[str, Decimal, int]:
    """Currency, rate and amount a payment opened now would carry (before there is a buyer)."""
    currency, rate = checkout_currency()
    return currency, rate, money.convert_from_usd(price_usd_cents, rate)


def price(*, buyer: User, agent: Agent, vendor: User | None, fee_rate: Decimal, discount_usd_cents: int = 0,
          promotion_code: str | None = None, promotion_code_id: str | None = None) -> CheckoutTerms:
    """The terms of `buyer` buying `agent` now: the checkout currency and rate stored now, and the route of its
    vendor. `fee_rate` is the fee of the vendor's plan now (`plans.fee_for_vendor`), passed in because the plans
    area sits above billing, which reads terms back. A promotion code (services/promotions) gives its id, text
    and USD discount."""
    currency, rate = checkout_currency()
    return CheckoutTerms.build(agent_id=agent.id, buyer_id=buyer.id, vendor_id=agent.vendor_id,
                               route=Route.for_vendor(vendor), price_usd_cents=agent.price_cents,
                               currency=currency, rate=rate, fee_rate=fee_rate, discount_usd_cents=discount_usd_cents,
                               promotion_code=promotion_code, promotion_code_id=promotion_code_id)
