"""Platform settings: commission rate and checkout currency, with their defaults.

Admins change them through `update_setting`, which validates each key's value and stores it normalised, so
readers (checkout pricing, commission split) never see a value they cannot parse.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from marketplace.db import session_scope
from marketplace.models import PlatformSetting, User
from marketplace.models.base import utcnow
from marketplace.services import money
from marketplace.services.errors import Invalid, NotFound
from marketplace.services.permissions import require_admin

COMMISSION_RATE = "commissionRate"
CHECKOUT_CURRENCY = "checkoutCurrency"
USD_TO_EUR_RATE = "usdToEurRate"

DEFAULTS: dict[str, tuple[str, str]] = {
    COMMISSION_RATE: ("20%", "Platform commission rate on each sale"),
    CHECKOUT_CURRENCY: ("usd", "Currency charged at checkout (usd or eur)"),
    USD_TO_EUR_RATE: ("0.9200", "USD to EUR exchange rate used when charging in euros"),
}


def get_setting(key: str) -> str:
    with session_scope() as session:
        row = session.get(PlatformSetting, key)
        return row.value if row else DEFAULTS[key][0]


def _parse_percent(value: str) -> Decimal:
    try:
        rate = Decimal(value.strip().rstrip("%").strip())
    except InvalidOperation:
        raise Invalid("Please enter a valid number for commission rate", field="value") from None
    if not rate.is_finite() or rate < 0 or rate > 100:
        raise Invalid("Commission rate must be between 0 and 100", field="value")
    return rate.quantize(Decimal("0.01"))


def commission_rate() -> Decimal:
    """The current platform share in percent (e.g. Decimal('20.00'))."""
    return _parse_percent(get_setting(COMMISSION_RATE))


def set_commission_rate(*, actor: User | None, value: str, description: str | None = None) -> PlatformSetting:
    return update_setting(actor=actor, key=COMMISSION_RATE, value=value, description=description)


def _normalise_currency(value: str) -> str:
    currency = value.strip().lower()
    if currency not in money.SUPPORTED_CURRENCIES:
        raise Invalid("Checkout currency must be usd or eur", field="value")
    return currency


def _normalise_rate(value: str) -> str:
    rate = money.parse_rate(value)
    if rate is None:
        raise Invalid("Exchange rate must be a positive number with at most 4 decimals", field="value")
    return money.format_rate(rate)


def _normalise_commission(value: str) -> str:
    return f"{_parse_percent(value).normalize():f}%"


_NORMALISERS = {
    COMMISSION_RATE: _normalise_commission,
    CHECKOUT_CURRENCY: _normalise_currency,
    USD_TO_EUR_RATE: _normalise_rate,
}


def list_settings(*, actor: User | None) -> list[PlatformSetting]:
    """Every known setting, stored or default, in a fixed order."""
    require_admin(actor)
    with session_scope() as session:
        stored = {key: session.get(PlatformSetting, key) for key in DEFAULTS}
    return [stored[key] or PlatformSetting(key=key, value=value, description=description)
            for key, (value, description) in DEFAULTS.items()]


def update_setting(*, actor: User | None, key: str, value: str, description: str | None = None) -> PlatformSetting:
    """Validate and store one setting (admins only); later checkouts and sales use the new value."""
    require_admin(actor)
    normalise = _NORMALISERS.get(key)
    if normalise is None:
        raise NotFound("Unknown setting")
    return _put(key, normalise(value), description)


def _put(key: str, value: str, description: str | None) -> PlatformSetting:
    with session_scope() as session:
        row = session.get(PlatformSetting, key) or PlatformSetting(key=key, value=value)
        row.value = value
        row.description = description or row.description or DEFAULTS[key][1]
        row.updated_at = utcnow()
        session.add(row)
    return row


def ensure_defaults() -> None:
    with session_scope() as session:
        for key, (value, description) in DEFAULTS.items():
            if session.get(PlatformSetting, key) is None:
                session.add(PlatformSetting(key=key, value=value, description=description))
