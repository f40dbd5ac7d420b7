"""Money arithmetic in integer minor units (cents), shared by checkout, orders and the dashboards, and how amounts
and agent prices read on pages (`format_amount`, `price_label`).

Rounding rule, applied once per computed amount: half-up to the cent. The platform fee is rounded and the
vendor gets the rest, so fee + vendor amount always equals the amount charged (2999 at 20% -> 600 + 2399).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from marketplace.models.billing import PricingModel
from marketplace.services.text import bounded_number, plain_number

SUPPORTED_CURRENCIES = ("usd", "eur")
CURRENCY_SYMBOLS = {"usd": "$", "eur": "€"}
RATE_QUANTUM = Decimal("0.0001")
MIN_RATE, MAX_RATE = RATE_QUANTUM, Decimal(1000)  # a sane exchange rate: 1 USD buys 0.0001 to 1000 units
PERCENT_QUANTUM = Decimal("0.01")


def round_half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def convert_from_usd(usd_cents: int, rate: Decimal) -> int:
    """USD cents -> cents of the checkout currency at `rate` (1 USD = rate units)."""
    return round_half_up(Decimal(usd_cents) * rate)


def platform_fee(amount: int, rate_percent: Decimal) -> int:
    """The platform's share of `amount` at `rate_percent` (e.g. Decimal('20')), half-up to the cent."""
    return round_half_up(Decimal(amount) * rate_percent / 100)


def split(amount: int, rate_percent: Decimal) -> tuple[int, int]:
    """(vendor amount, platform fee) for a charge of `amount` minor units."""
    fee = platform_fee(amount, rate_percent)
    return amount - fee, fee


def format_cents(cents: int) -> str:
    """2999 -> '29.99' (the API's price format)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def format_rate(rate: Decimal) -> str:
    """An exchange rate with exactly 4 decimals, as shown at checkout ('0.9200')."""
    return f"{rate.quantize(RATE_QUANTUM, rounding=ROUND_HALF_UP):f}"


def format_percent(rate: Decimal) -> str:
    return f"{rate.quantize(PERCENT_QUANTUM, rounding=ROUND_HALF_UP):f}"


def parse_rate(value: str) -> Decimal | None:
    """An exchange rate from 0.0001 to 1000 with at most 4 decimals, or None."""
    return bounded_number(value, low=MIN_RATE, high=MAX_RATE, places=4)


def format_amount(cents: int, currency: str) -> str:
    """An amount as pages show it: 2999, 'usd' -> '$29.99'; 121583, 'eur' -> '€1,215.83'; -150 -> '-$1.50'; an
    unknown currency is written as a code suffix ('29.99 GBP'). The API's strings are `format_cents`."""
    sign = "-" if cents < 0 else ""
    number = f"{abs(cents) // 100:,}.{abs(cents) % 100:02d}"
    symbol = CURRENCY_SYMBOLS.get(currency.lower())
    return f"{sign}{number} {currency.upper()}" if symbol is None else f"{sign}{symbol}{number}"


PRICE_SUFFIXES: dict[str, str] = {PricingModel.MONTHLY: "/month", PricingModel.ONE_TIME: " one-time"}


def amount_label(cents: int, *, currency: str = "usd") -> str:
    """A price without its model, where the model is not what is told (what a purchase cost): 'Free' at 0."""
    return "Free" if cents == 0 else format_amount(cents, currency)


def price_parts(cents: int, *, pricing_model: str, currency: str = "usd") -> tuple[str, str]:
    """An agent's price as (amount, suffix), for pages that set the suffix in smaller type:
    ('Free', '') at 0, ('$29.99', '/month') for a subscription, ('$49.00', ' one-time') for a licence."""
    if cents == 0:
        return "Free", ""
    return format_amount(cents, currency), PRICE_SUFFIXES.get(pricing_model, PRICE_SUFFIXES[PricingModel.MONTHLY])


def price_label(cents: int, *, pricing_model: str, currency: str = "usd") -> str:
    """An agent's price wherever it is shown, one rule for every page: 'Free' at 0, '$29.99/month' for a
    monthly subscription, '$49.00 one-time' for a licence (an unknown model reads as monthly, the default).
    The model is required, so no page can show a price without deciding what it buys."""
    amount, suffix = price_parts(cents, currency=currency, pricing_model=pricing_model)
    return amount + suffix


def format_totals(totals: dict[str, int]) -> str:
    """Sums kept per currency (never added across currencies), USD first: '$120.50' or '$120.50 + €27.59'."""
    ordered = sorted(totals.items(), key=lambda item: (item[0] != "usd", item[0]))
    parts = [format_amount(cents, currency) for currency, cents in ordered if cents or len(totals) == 1]
    return " + ".join(parts) or format_amount(0, "usd")


def _plain_percent(value: Decimal) -> str:
    """12.50 -> '12.5', 20 -> '20' (to the hundredth, half-up)."""
    text = f"{value.quantize(PERCENT_QUANTUM, rounding=ROUND_HALF_UP):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def percent_label(value: Decimal) -> str:
    """A fee as pages write it: 20 -> '20%', 12.50 -> '12.5%'."""
    return f"{_plain_percent(Decimal(value))}%"


def split_label(commission_percent: Decimal) -> str:
    """Vendor/platform split from an order's snapshotted commission: 20 -> '80/20', 12.5 -> '87.5/12.5'."""
    platform_share = Decimal(commission_percent)
    return f"{_plain_percent(Decimal(100) - platform_share)}/{_plain_percent(platform_share)}"


def vendor_share(commission: str) -> str:
    """What a vendor keeps of a split sale at a commission setting: '20%' -> '80%', '15.5%' -> '84.5%'; ''
    when the setting is not a percentage."""
    platform_share = plain_number(commission.strip().removesuffix("%"))
    return "" if platform_share is None else f"{_plain_percent(Decimal(100) - platform_share)}%"
