"""Money arithmetic in integer minor units (cents), shared by checkout, orders and the dashboards.

Rounding rule, applied once per computed amount: half-up to the cent. The platform fee is rounded and the
vendor gets the rest, so fee + vendor amount always equals the amount charged (2999 at 20% -> 600 + 2399).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from marketplace.services.text import bounded_number

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


def display(cents: int, currency: str) -> str:
    """2999, 'eur' -> '€29.99': an amount as pages show it, symbol first (unknown currencies by code)."""
    symbol = CURRENCY_SYMBOLS.get(currency.lower())
    text = format_cents(cents)
    if symbol is None:
        return f"{text} {currency.upper()}"
    return f"-{symbol}{text[1:]}" if text.startswith("-") else f"{symbol}{text}"


def format_rate(rate: Decimal) -> str:
    """An exchange rate with exactly 4 decimals, as shown at checkout ('0.9200')."""
    return f"{rate.quantize(RATE_QUANTUM, rounding=ROUND_HALF_UP):f}"


def format_percent(rate: Decimal) -> str:
    return f"{rate.quantize(PERCENT_QUANTUM, rounding=ROUND_HALF_UP):f}"


def parse_rate(value: str) -> Decimal | None:
    """An exchange rate from 0.0001 to 1000 with at most 4 decimals, or None."""
    return bounded_number(value, low=MIN_RATE, high=MAX_RATE, places=4)


CURRENCY_SYMBOLS = {"usd": "$", "eur": "€"}


def format_amount(cents: int, currency: str) -> str:
    """2999, 'usd' -> '$29.99'; an unknown currency is written as a code suffix ('29.99 GBP')."""
    symbol = CURRENCY_SYMBOLS.get(currency.lower())
    if symbol is None:
        return f"{format_cents(cents)} {currency.upper()}"
    sign = "-" if cents < 0 else ""
    return f"{sign}{symbol}{format_cents(abs(cents))}"


def format_totals(totals: dict[str, int]) -> str:
    """Sums kept per currency (never added across currencies), USD first: '$120.50' or '$120.50 + €27.59'."""
    ordered = sorted(totals.items(), key=lambda item: (item[0] != "usd", item[0]))
    parts = [format_amount(cents, currency) for currency, cents in ordered if cents or len(totals) == 1]
    return " + ".join(parts) or format_amount(0, "usd")


def split_label(commission_percent: Decimal) -> str:
    """Vendor/platform split from an order's snapshotted commission: 20 -> '80/20', 12.5 -> '87.5/12.5'."""

    def plain(value: Decimal) -> str:
        text = f"{value.quantize(PERCENT_QUANTUM, rounding=ROUND_HALF_UP):f}"
        return text.rstrip("0").rstrip(".") if "." in text else text

    platform_share = Decimal(commission_percent)
    return f"{plain(Decimal(100) - platform_share)}/{plain(platform_share)}"
