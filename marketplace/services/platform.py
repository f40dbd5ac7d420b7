"""Platform settings: commission rate, checkout currency and guest checkout, with their defaults.

Admins change them through `update_setting`, which validates each key's value and stores it normalised, so
readers (checkout pricing, commission split) never see a value they cannot parse. Each change is written to the
audit log in the same transaction.
"""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from marketplace.db import is_postgres, session_scope
from marketplace.models import PlatformSetting, User
from marketplace.models.base import utcnow
from marketplace.services import audit, money
from marketplace.services.decisions import claim
from marketplace.services.errors import Invalid, NotFound
from marketplace.services.permissions import require_admin
from marketplace.services.text import bounded_number

COMMISSION_RATE = "commissionRate"
CHECKOUT_CURRENCY = "checkoutCurrency"
USD_TO_EUR_RATE = "usdToEurRate"
ALLOW_GUEST_CHECKOUT = "allowGuestCheckout"

DEFAULTS: dict[str, tuple[str, str]] = {
    COMMISSION_RATE: ("20%", "Platform commission rate on each sale"),
    CHECKOUT_CURRENCY: ("usd", "Currency charged at checkout (usd or eur)"),
    USD_TO_EUR_RATE: ("0.9200", "USD to EUR exchange rate used when charging in euros"),
    ALLOW_GUEST_CHECKOUT: ("false", "Let signed-out visitors buy with an e-mail address (true or false)"),
}


def get_setting(key: str, *, session: Session | None = None) -> str:
    """The stored value, else the default; in the caller's transaction when `session` is given."""
    if session is not None:
        row = session.get(PlatformSetting, key)
        return row.value if row else DEFAULTS[key][0]
    with session_scope() as own:
        return get_setting(key, session=own)


INVALID_SWITCH = "Allow guest checkout must be true or false"
INVALID_COMMISSION = "Please enter a valid number for commission rate"
INVALID_RATE = (f"Exchange rate must be a number from {money.MIN_RATE} to {money.MAX_RATE} "
                "with at most 4 decimals")


def _parse_percent(value: str) -> Decimal:
    """'15.5%' -> Decimal('15.50'): 0 to 100 with at most 2 decimals, the percent sign optional; anything else is
    refused with the one message the spec gives for a bad commission value."""
    text = (value or "").strip()
    rate = bounded_number(text.removesuffix("%"), low=Decimal(0), high=Decimal(100), places=2)
    if rate is None:
        raise Invalid(INVALID_COMMISSION, field="value")
    return rate.quantize(money.PERCENT_QUANTUM)


def commission_rate(*, session: Session | None = None) -> Decimal:
    """The current platform share in percent (e.g. Decimal('20.00')): the Free plan's fee (services/plans)."""
    return _parse_percent(get_setting(COMMISSION_RATE, session=session))


def parse_percent(value: str) -> Decimal:
    """A percentage as the commission rate is validated (plans' fees use the same rule and message)."""
    return _parse_percent(value)


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
        raise Invalid(INVALID_RATE, field="value")
    return money.format_rate(rate)


def _normalise_commission(value: str) -> str:
    return f"{_parse_percent(value).normalize():f}%"


def _normalise_switch(value: str) -> str:
    switch = (value or "").strip().lower()
    if switch not in ("true", "false"):
        raise Invalid(INVALID_SWITCH, field="value")
    return switch


def guest_checkout_allowed() -> bool:
    """Whether signed-out visitors may buy (the admin's switch; off unless set to "true")."""
    return get_setting(ALLOW_GUEST_CHECKOUT) == "true"


_NORMALISERS = {
    COMMISSION_RATE: _normalise_commission,
    CHECKOUT_CURRENCY: _normalise_currency,
    USD_TO_EUR_RATE: _normalise_rate,
    ALLOW_GUEST_CHECKOUT: _normalise_switch,
}


def list_settings(*, actor: User | None) -> list[PlatformSetting]:
    """Every known setting, stored or default, in a fixed order."""
    require_admin(actor)
    with session_scope() as session:
        stored = {key: session.get(PlatformSetting, key) for key in DEFAULTS}
    return [stored[key] or PlatformSetting(key=key, value=value, description=description)
            for key, (value, description) in DEFAULTS.items()]


def update_setting(*, actor: User | None, key: str, value: str, description: str | None = None) -> PlatformSetting:
    """Validate and store one setting (admins only); later checkouts and sales use the new value.

    Changes sent at the same moment are all applied, one after the other, in the order they take the row: the
    row is claimed (a write, which holds SQLite's write lock or PostgreSQL's row lock until commit) before the old
    value is read, so each audit entry's `from` is the `to` of the change before it. No change loses, so none
    answers 409 and none needs a retry."""
    admin = require_admin(actor)
    normalise = _NORMALISERS.get(key)
    if normalise is None:
        raise NotFound("Unknown setting")
    normalised = normalise(value)
    with session_scope() as session:
        return store_setting(session, admin=admin, key=key, normalised=normalised, description=description)


def store_setting(session: Session, *, admin: User, key: str, normalised: str,
                  description: str | None = None) -> PlatformSetting:
    """In the caller's transaction: claim the setting's row, store an already validated value, audit it (the
    Free plan's fee edit writes the commission rate through here too)."""
    default, default_description = DEFAULTS[key]
    dialect = postgresql if is_postgres() else sqlite
    session.execute(dialect.insert(PlatformSetting).values(key=key, value=default, description=default_description)
                    .on_conflict_do_nothing())  # the first change of a setting finds a row to claim
    claim(session, PlatformSetting, PlatformSetting.key == key, values={"updated_at": utcnow()},
          conflict="Unknown setting")
    row = session.get_one(PlatformSetting, key)
    before = row.value
    row.value = normalised
    row.description = description or row.description or default_description
    session.add(row)
    audit.record(session, actor=admin, action="setting.update", target_type="setting", target_id=key,
                 details={"from": before, "to": normalised})
    return row


def normalised_commission(value: str) -> str:
    """'15.50%' -> '15.5%', as the commission rate setting stores it."""
    return _normalise_commission(value)


def ensure_defaults() -> None:
    with session_scope() as session:
        for key, (value, description) in DEFAULTS.items():
            if session.get(PlatformSetting, key) is None:
                session.add(PlatformSetting(key=key, value=value, description=description))
