"""Stripe Connect for vendors: the payout account's state, its onboarding link, its payouts.

The user row keeps what Stripe last said about the vendor's Express account (flags, requirements, country,
currency); `account.updated` webhooks (`sync_account`) and an explicit refresh keep it current, so the dashboard
reads it without calling Stripe. Payouts are never stored here: they are read from the connected account.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations import payments
from marketplace.models import User
from marketplace.services.paging import check_page
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_vendor

NOT_CONNECTED = "not_connected"
PENDING = "pending"  # details not submitted yet
RESTRICTED = "restricted"  # requirements due, or charges disabled
ACTIVE = "active"
MAX_PAYOUTS = 100
DEFAULT_COUNTRY = "US"
# What the vendor has to do about payouts (AccountStatus.setup); the dashboard's payment card shows it.
SETUP_NOT_CONNECTED = "not_connected"
SETUP_NEEDS_ACTION = "needs_action"  # named requirements due, or onboarding not finished
SETUP_VERIFYING = "verifying"  # details sent, nothing due: Stripe is still checking them
SETUP_READY = "ready"
VERIFICATION_WAIT = "usually within 1-2 business days"  # Stripe's usual time to verify submitted details
# Stripe's requirement keys as a vendor knows them; others are spelled out from the key.
REQUIREMENT_LABELS = {
    "external_account": "Bank account for payouts",
    "tos_acceptance.date": "Accept Stripe's terms of service",
    "tos_acceptance.ip": "Accept Stripe's terms of service",
    "business_type": "Business type",
    "business_profile.url": "Business website",
    "business_profile.mcc": "Business category",
    "individual.verification.document": "Identity document",
    "individual.id_number": "Personal ID number",
    "individual.ssn_last_4": "Last 4 digits of your SSN",
    "individual.dob.day": "Date of birth",
    "individual.dob.month": "Date of birth",
    "individual.dob.year": "Date of birth",
    "individual.address.line1": "Home address",
    "individual.address.city": "Home address",
    "individual.address.postal_code": "Home address",
    "individual.first_name": "Legal first name",
    "individual.last_name": "Legal last name",
    "individual.email": "Email address",
    "individual.phone": "Phone number",
    "company.tax_id": "Company tax ID",
}
OTHER_REQUIREMENT = "Additional information"


@dataclass(frozen=True)
class AccountStatus:
    connected: bool
    requires_action: bool
    account_status: str  # not_connected | pending | restricted | active
    charges_enabled: bool
    payouts_enabled: bool
    requirements_due: list[str]
    country: str | None
    default_currency: str | None

    @property
    def setup(self) -> str:
        """What the vendor has to do. Requirements due or unfinished onboarding need them; details sent with
        nothing due mean Stripe is verifying (nothing to do but wait); ready only when Stripe can both charge
        for the vendor and pay them out."""
        if not self.connected:
            return SETUP_NOT_CONNECTED
        if self.requirements_due or self.account_status == PENDING:
            return SETUP_NEEDS_ACTION
        if self.charges_enabled and self.payouts_enabled:
            return SETUP_READY
        return SETUP_VERIFYING


def requirement_labels(keys: list[str]) -> list[str]:
    """Stripe's requirement keys as the vendor reads them, each once, in Stripe's order."""
    return list(dict.fromkeys(_requirement_label(key) for key in keys))


def _requirement_label(key: object) -> str:
    key = str(key or "").strip()
    if key in REQUIREMENT_LABELS:
        return REQUIREMENT_LABELS[key]
    words = " ".join(key.replace(".", " ").replace("_", " ").split())
    return words.capitalize() if words.replace(" ", "").isalnum() else OTHER_REQUIREMENT


@dataclass(frozen=True)
class PayoutRecord:
    id: str
    amount_cents: int
    currency: str
    status: str  # pending | in_transit | paid | failed | canceled
    method: str  # Stripe's raw value ("standard" | "instant"); the page says "Bank Transfer" for standard
    type: str
    arrival_date: datetime | None
    created: datetime
    failure_message: str | None


@dataclass(frozen=True)
class PayoutsView:
    has_account: bool
    account_currency: str | None
    payouts: list[PayoutRecord]


def _requirements_due(account: payments.ConnectedAccount) -> list[str]:
    """What Stripe needs now: currently due plus past due (eventually due is not yet blocking)."""
    return list(dict.fromkeys([*account.currently_due, *account.past_due]))


def _account_values(account: payments.ConnectedAccount) -> dict[str, Any]:
    return {
        "stripe_charges_enabled": account.charges_enabled,
        "stripe_payouts_enabled": account.payouts_enabled,
        "stripe_details_submitted": account.details_submitted,
        "stripe_requirements_due": json.dumps(_requirements_due(account)),
        "stripe_disabled_reason": account.disabled_reason,
        "stripe_country": (account.country or "").upper()[:2] or None,
        "stripe_default_currency": (account.default_currency or "").lower()[:3] or None,
    }


def _row(user_id: str) -> User:
    """The vendor as stored now (the actor may have been loaded before a webhook changed it)."""
    with session_scope() as session:
        row = session.get(User, user_id)
        assert row is not None  # require_vendor passed, so the user exists
        return row


def _due_list(row: User) -> list[str]:
    try:
        due = json.loads(row.stripe_requirements_due or "[]")
    except ValueError:
        return []
    return [str(item) for item in due] if isinstance(due, list) else []


def _status_of(row: User) -> AccountStatus:
    due = _due_list(row)
    connected = bool(row.stripe_account_id)
    if not connected:
        state = NOT_CONNECTED
    elif not row.stripe_details_submitted:
        state = PENDING
    elif due or not row.stripe_charges_enabled:
        state = RESTRICTED
    else:
        state = ACTIVE
    return AccountStatus(
        connected=connected,
        requires_action=connected and (not row.stripe_charges_enabled or not row.stripe_payouts_enabled or bool(due)),
        account_status=state,
        charges_enabled=connected and row.stripe_charges_enabled,
        payouts_enabled=connected and row.stripe_payouts_enabled,
        requirements_due=due if connected else [],
        country=row.stripe_country if connected else None,
        default_currency=row.stripe_default_currency if connected else None,
    )


def sync_account(account: payments.ConnectedAccount) -> bool:
    """Store what Stripe says about a connected account (`account.updated`); True if a vendor has it."""
    with session_scope() as session:
        changed = session.exec(
            update(User).where(User.stripe_account_id == account.id).values(**_account_values(account))
        ).rowcount
    return bool(changed)


def account_status(*, actor: User | None, refresh: bool = False) -> AccountStatus:
    """The payout account's state as last synced; `refresh` re-reads it from Stripe first."""
    user = require_vendor(actor)
    row = _row(user.id)
    if refresh and row.stripe_account_id:
        account_id = row.stripe_account_id
        with provider_errors("Could not check your Stripe account. Please try again."):
            account = payments.retrieve_account(account_id)
        sync_account(account)
        row = _row(user.id)
    return _status_of(row)


def _creation_key(row: User, country: str) -> str:
    """One key per vendor and request body: concurrent clicks replay one creation instead of making two
    accounts, while a changed e-mail gets a fresh key rather than an idempotency error."""
    fingerprint = hashlib.sha256(f"{row.email}\n{country}".encode()).hexdigest()[:16]
    return f"vendor-connect-account:{row.id}:{fingerprint}"


def _store_new_account(user_id: str, account: payments.ConnectedAccount) -> str:
    """Keep the first account stored for this vendor (a lost race answers the winner's id)."""
    with session_scope() as session:
        session.exec(
            update(User).where(User.id == user_id, User.stripe_account_id.is_(None))
            .values(stripe_account_id=account.id, **_account_values(account))
        )
        stored = session.exec(select(User.stripe_account_id).where(User.id == user_id)).one()
    return stored or account.id


def _create_account(row: User) -> str:
    key = _creation_key(row, DEFAULT_COUNTRY)
    with provider_errors("Could not create your Stripe account. Please try again."):
        account = payments.create_connected_account(email=row.email, country=DEFAULT_COUNTRY, idempotency_key=key)
    return _store_new_account(row.id, account)


def create_account_link(*, actor: User | None) -> str:
    """A single-use Stripe onboarding URL; creates the vendor's Express account on the first call."""
    user = require_vendor(actor)
    row = _row(user.id)
    with provider_errors():
        payments.client()  # not configured: 503 before anything else
    account_id = row.stripe_account_id or _create_account(row)
    base = settings.public_url.rstrip("/")
    with provider_errors("Could not start Stripe onboarding. Please try again."):
        return payments.create_onboarding_link(account_id=account_id, refresh_url=f"{base}/vendor?stripe=refresh",
                                               return_url=f"{base}/vendor?stripe=return")


def list_payouts(*, actor: User | None, limit: int = 20) -> PayoutsView:
    """The connected account's payouts, newest first; an empty view when no account is connected."""
    user = require_vendor(actor)
    check_page(limit=limit, max_limit=MAX_PAYOUTS)
    row = _row(user.id)
    if not row.stripe_account_id:
        return PayoutsView(has_account=False, account_currency=None, payouts=[])
    account_id = row.stripe_account_id
    with provider_errors("Could not load your payouts from Stripe. Please try again."):
        items = payments.list_payouts(account_id=account_id, limit=limit)
    return PayoutsView(
        has_account=True,
        account_currency=row.stripe_default_currency,
        payouts=[
            PayoutRecord(id=p.id, amount_cents=p.amount, currency=p.currency, status=p.status, method=p.method,
                         type=p.type, arrival_date=p.arrival_date, created=p.created,
                         failure_message=p.failure_message)
            for p in items
        ],
    )
