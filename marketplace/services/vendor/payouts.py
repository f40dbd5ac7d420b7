"""Stripe Connect for vendors: account status, onboarding link, payouts, account.updated sync.

Placeholder with the contract's names only: the real module is written on the vendor-connect branch and
replaces this file at merge. Each call checks the vendor permission first, so the routes answer 401/403.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from marketplace.integrations import payments
from marketplace.models import User
from marketplace.services.permissions import require_vendor

PENDING_BRANCH = "written on the vendor-connect branch"


@dataclass(frozen=True)
class AccountStatus:
    connected: bool
    requires_action: bool
    account_status: str  # "not_connected" | "pending" (details not submitted) | "restricted" | "active"
    charges_enabled: bool
    payouts_enabled: bool
    requirements_due: list[str]
    country: str | None
    default_currency: str | None


@dataclass(frozen=True)
class PayoutRecord:
    id: str
    amount_cents: int
    currency: str
    status: str
    method: str
    type: str
    arrival_date: datetime | None
    created: datetime
    failure_message: str | None


@dataclass(frozen=True)
class PayoutsView:
    has_account: bool
    account_currency: str | None
    payouts: list[PayoutRecord]


def account_status(*, actor: User | None, refresh: bool = False) -> AccountStatus:
    require_vendor(actor)
    raise NotImplementedError(PENDING_BRANCH)


def create_account_link(*, actor: User | None) -> str:
    require_vendor(actor)
    raise NotImplementedError(PENDING_BRANCH)


def list_payouts(*, actor: User | None, limit: int = 20) -> PayoutsView:
    require_vendor(actor)
    raise NotImplementedError(PENDING_BRANCH)


def sync_account(account: payments.ConnectedAccount) -> bool:
    raise NotImplementedError(PENDING_BRANCH)
