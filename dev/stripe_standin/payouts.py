"""Balances and payouts of connected accounts (and of the platform), which localstripe does not model.

Money model, kept deliberately simple:

- A connected account's balance is derived from the store every time: the transfers of its destination charges
  (less any reversed amount) minus the application fees the platform took from them (less fees refunded) minus
  its payouts that have not failed or been canceled. Transferred funds are *available immediately* (real Stripe
  holds them as pending for a few days); `pending` is always zero. The platform's own balance is its succeeded
  charges less refunds, less every transfer (net of reversals), plus its application fees (net of fee refunds),
  less what open or lost chargebacks withdrew (amount + fee), less platform payouts.
- `POST /v1/payouts` (with `Stripe-Account: acct_...` for a connected account) takes money out of the available
  balance and starts `pending`; more than the available balance is refused with `balance_insufficient`, as
  Stripe does. Statuses then move only through the stand-in's dev routes (there is no clock):
  pending -> in_transit -> paid, pending|in_transit -> failed (the amount returns to the balance, with Stripe's
  failure code and message), pending -> canceled (`POST /v1/payouts/<id>/cancel`, as Stripe allows).
- Every change emits the event Stripe would (payout.created, payout.updated, payout.paid, payout.failed,
  payout.canceled) with `account` set for connected accounts, delivered like any other webhook.
"""

from __future__ import annotations

import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin.compat import Account, ApplicationFee, InvalidRequest, Transfer, connect_event
from dev.stripe_standin.refunds import platform_dispute_withdrawals

INSUFFICIENT_BALANCE_MESSAGE = (
    "You have insufficient funds in your Stripe account for this transfer. Your card balance is too low. You can "
    "use the /v1/balance endpoint to view your Stripe balance (for more details, see stripe.com/docs/api#balance)."
)
# Stripe's payout failure codes and the messages it gives with them ("Payout failures" in its docs).
FAILURE_MESSAGES: dict[str, str] = {
    "account_closed": "The bank account has been closed.",
    "account_frozen": "The bank account has been frozen.",
    "bank_account_restricted": "The bank account has restrictions on either the type, or the number, of payouts "
                               "allowed. This normally indicates that the bank account is a savings or other "
                               "non-checking account.",
    "could_not_process": "The bank could not process this payout.",
    "insufficient_funds": "Your Stripe account has insufficient funds to cover the payout.",
    "invalid_account_number": "The routing number seems correct, but the account number is invalid.",
    "no_account": "The bank account details on file are probably incorrect. No bank account could be located "
                  "with those details.",
}
# Which status a payout may move to from which (paid, failed and canceled are final).
TRANSITIONS: dict[str, set[str]] = {
    "in_transit": {"pending"},
    "paid": {"pending", "in_transit"},
    "failed": {"pending", "in_transit"},
    "canceled": {"pending"},
}
CREATE_PARAMS = {"amount", "currency", "description", "metadata", "method", "statement_descriptor", "source_type",
                 "destination"}
LIST_PARAMS = {"limit", "starting_after", "ending_before", "status"}
STANDARD_DELAY = timedelta(days=2)


def account_for_header(value: str | None) -> Account | None:
    """The connected account a request acts for (`Stripe-Account` header), or None for the platform."""
    if not value:
        return None
    account = ls.store.get("account:" + value)
    if account is None:
        raise UserError(403, f"The provided key does not have access to account '{value}' (or that account does not "
                             "exist). Application access may have been revoked.", {"code": "account_invalid"})
    return account


# --- balances ------------------------------------------------------------------------------------------------


def _objects(prefix: str) -> list[Any]:
    return list(ls.store.of(prefix))  # type: ignore[attr-defined]


def available(account_id: str | None) -> dict[str, int]:
    """Available amount per currency, derived from transfers, charges and payouts (see the module docstring)."""
    amounts: dict[str, int] = defaultdict(int)
    for transfer in _objects("transfer"):
        if not isinstance(transfer, Transfer):
            continue
        net = transfer.amount - transfer.amount_reversed
        if account_id is None:
            amounts[transfer.currency] -= net
        elif transfer.destination == account_id:
            amounts[transfer.currency] += net
    for fee in _objects("application_fee"):
        if not isinstance(fee, ApplicationFee):
            continue
        net = fee.amount - fee.amount_refunded
        if account_id is None:
            amounts[fee.currency] += net
        elif fee.account == account_id:
            amounts[fee.currency] -= net
    if account_id is None:
        for charge in _objects("charge"):
            if charge.status == "succeeded":
                amounts[charge.currency] += charge.amount - charge.amount_refunded
        for currency, withdrawn in platform_dispute_withdrawals().items():
            amounts[currency] -= withdrawn
    for payout in _objects("payout"):
        if isinstance(payout, Payout) and payout._account == account_id and payout.status not in ("failed", "canceled"):
            amounts[payout.currency] -= payout.amount
    return dict(amounts)


def balance(account: Account | None) -> dict[str, Any]:
    """The Balance object, one entry per currency (the account's default currency always present)."""
    amounts = available(account.id if account else None)
    amounts.setdefault(account.default_currency if account else "usd", 0)
    currencies = sorted(amounts)
    return {
        "object": "balance",
        "livemode": False,
        "available": [{"amount": amounts[c], "currency": c, "source_types": {"card": amounts[c]}} for c in currencies],
        "pending": [{"amount": 0, "currency": c, "source_types": {"card": 0}} for c in currencies],
    }


# --- payouts -------------------------------------------------------------------------------------------------


def _arrival(created: int, method: str) -> int:
    """Standard payouts land at midnight UTC two days on; instant ones at once."""
    if method == "instant":
        return created
    day = datetime.fromtimestamp(created, UTC).date() + STANDARD_DELAY
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


class Payout(ls.StripeObject):
    """A payout of a connected account (`_account`) or of the platform (`_account` None)."""

    object = "payout"
    _id_prefix = "po_"

    def __init__(self, *, account: Account | None, amount: int, currency: str, method: str = "standard",
                 description: str | None = None, metadata: dict[str, Any] | None = None,
                 statement_descriptor: str | None = None, automatic: bool = False, created: int | None = None) -> None:
        super().__init__()
        if created is not None:
            self.created = created
        self._account = account.id if account else None
        self._order = time.time_ns()  # ties within one second keep creation order
        self.amount = amount
        self.currency = currency
        self.method = method
        self.type = "bank_account"
        self.arrival_date = _arrival(self.created, method)
        self.automatic = automatic
        self.balance_transaction = "txn_" + ls.random_id(24)
        self.description = description
        self.destination = account._external_account_id() if account else "ba_platform"
        self.failure_balance_transaction = None
        self.failure_code = None
        self.failure_message = None
        self.metadata = metadata or {}
        self.original_payout = None
        self.reconciliation_status = "not_applicable"
        self.reversed_by = None
        self.source_type = "card"
        self.statement_descriptor = statement_descriptor
        self.status = "pending"
        connect_event("payout.created", self, self._account)

    def _move_to(self, status: str, *, failure_code: str | None = None, failure_message: str | None = None) -> None:
        allowed_from = TRANSITIONS.get(status)
        if allowed_from is None:
            raise InvalidRequest(f"Invalid status: must be one of {', '.join(TRANSITIONS)}", param="status")
        if self.status not in allowed_from:
            raise InvalidRequest(f"Payout {self.id} is {self.status}; it cannot become {status}.",
                                 code="payout_unexpected_state" if status != "canceled" else None)
        self.status = status
        if status == "failed":
            code = failure_code or "account_closed"
            self.failure_code = code
            self.failure_message = failure_message or FAILURE_MESSAGES.get(code, FAILURE_MESSAGES["could_not_process"])
            self.failure_balance_transaction = "txn_" + ls.random_id(24)
        connect_event("payout.updated", self, self._account)
        if status in ("paid", "failed", "canceled"):
            connect_event(f"payout.{status}", self, self._account)


def _no_such_payout(payout_id: str) -> UserError:
    return UserError(404, f"No such payout: '{payout_id}'", {"code": "resource_missing", "param": "id"})


def _positive_amount(value: Any) -> int:
    if value is None:
        raise InvalidRequest("Missing required param: amount.", code="parameter_missing", param="amount")
    amount = ls.try_convert_to_int(value)
    if type(amount) is not int or amount <= 0:
        raise InvalidRequest("Invalid positive integer", code="parameter_invalid_integer", param="amount")
    return amount


def _require_payouts(account: Account | None) -> None:
    if account is not None and not account.payouts_enabled:
        raise InvalidRequest("Payouts are not enabled for this account. It must complete onboarding first.",
                             code="payouts_not_allowed")


def create_payout(account: Account | None, data: dict[str, Any], *, automatic: bool = False,
                  created: int | None = None) -> Payout:
    """`POST /v1/payouts`: refused beyond the available balance in that currency."""
    unknown = set(data) - CREATE_PARAMS
    if unknown:
        raise InvalidRequest(f"Received unknown parameter: {sorted(unknown)[0]}", code="parameter_unknown")
    amount = _positive_amount(data.get("amount"))
    currency = data.get("currency")
    if not isinstance(currency, str) or not currency:
        raise InvalidRequest("Missing required param: currency.", code="parameter_missing", param="currency")
    currency = currency.lower()
    method = data.get("method") or "standard"
    if method not in ("standard", "instant"):
        raise InvalidRequest("Invalid method: must be one of standard or instant", param="method")
    metadata = data.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise InvalidRequest("Invalid object", param="metadata")
    _require_payouts(account)
    if available(account.id if account else None).get(currency, 0) < amount:
        raise InvalidRequest(INSUFFICIENT_BALANCE_MESSAGE, code="balance_insufficient")
    return Payout(account=account, amount=amount, currency=currency, method=method,
                  description=data.get("description"), metadata=metadata,
                  statement_descriptor=data.get("statement_descriptor"), automatic=automatic, created=created)


def pay_out_available(account: Account, *, currency: str | None = None, created: int | None = None,
                      method: str = "standard") -> Payout:
    """What an automatic payout does: the whole available balance (default currency first) leaves at once."""
    _require_payouts(account)
    amounts = available(account.id)
    if currency is None:
        funded = [c for c, amount in sorted(amounts.items()) if amount > 0]
        currency = account.default_currency if amounts.get(account.default_currency, 0) > 0 else (
            funded[0] if funded else account.default_currency)
    amount = amounts.get(currency.lower(), 0)
    if amount <= 0:
        raise InvalidRequest(INSUFFICIENT_BALANCE_MESSAGE, code="balance_insufficient")
    return create_payout(account, {"amount": amount, "currency": currency, "method": method}, automatic=True,
                         created=created)


def retrieve_payout(account: Account | None, payout_id: str) -> Payout:
    """Only the payouts of the account the request acts for, as Stripe scopes them."""
    payout = ls.store.get("payout:" + payout_id)
    if not isinstance(payout, Payout) or payout._account != (account.id if account else None):
        raise _no_such_payout(payout_id)
    return payout


def _newest_first(account: Account | None, status: str | None) -> list[Payout]:
    owner = account.id if account else None
    rows = [p for p in _objects("payout") if isinstance(p, Payout) and p._account == owner
            and (status is None or p.status == status)]
    return sorted(rows, key=lambda p: (p.created, p._order), reverse=True)


def list_payouts(account: Account | None, params: dict[str, Any]) -> dict[str, Any]:
    """`GET /v1/payouts`: newest first, `limit` 1-100 (10 by default), cursors and a status filter."""
    unknown = set(params) - LIST_PARAMS
    if unknown:
        raise InvalidRequest(f"Received unknown parameter: {sorted(unknown)[0]}", code="parameter_unknown")
    limit = ls.try_convert_to_int(params.get("limit", 10))
    if type(limit) is not int or not 1 <= limit <= 100:
        raise InvalidRequest("Invalid integer: limit must be between 1 and 100", code="parameter_invalid_integer",
                             param="limit")
    rows = _newest_first(account, params.get("status"))
    ids = [p.id for p in rows]
    if params.get("starting_after"):
        cursor = params["starting_after"]
        rows = rows[ids.index(cursor) + 1:] if cursor in ids else []
        page, has_more = rows[:limit], len(rows) > limit
    elif params.get("ending_before"):
        cursor = params["ending_before"]
        rows = rows[:ids.index(cursor)] if cursor in ids else []
        page, has_more = rows[-limit:], len(rows) > limit
    else:
        page, has_more = rows[:limit], len(rows) > limit
    return {"object": "list", "url": "/v1/payouts", "has_more": has_more, "data": [p._export() for p in page]}


def set_status(payout_id: str, data: dict[str, Any]) -> Payout:
    """Dev route: move a payout along its lifecycle (Stripe does this on its own as the bank answers)."""
    payout = ls.store.get("payout:" + payout_id)
    if not isinstance(payout, Payout):
        raise _no_such_payout(payout_id)
    status = data.get("status")
    if status not in ("in_transit", "paid", "failed"):
        raise InvalidRequest("Invalid status: must be one of in_transit, paid or failed", param="status")
    code = data.get("failure_code")
    if code is not None and code not in FAILURE_MESSAGES:
        raise InvalidRequest(f"Invalid failure_code: must be one of {', '.join(FAILURE_MESSAGES)}",
                             param="failure_code")
    payout._move_to(status, failure_code=code, failure_message=data.get("failure_message"))
    return payout


def cancel(account: Account | None, payout_id: str) -> Payout:
    payout = retrieve_payout(account, payout_id)
    payout._move_to("canceled")
    return payout


def update(account: Account | None, payout_id: str, data: dict[str, Any]) -> Payout:
    """Stripe lets only the metadata of a payout change."""
    unknown = set(data) - {"metadata"}
    if unknown:
        raise InvalidRequest(f"Received unknown parameter: {sorted(unknown)[0]}", code="parameter_unknown")
    payout = retrieve_payout(account, payout_id)
    metadata = data.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise InvalidRequest("Invalid object", param="metadata")
        payout.metadata = {**payout.metadata, **metadata}
    connect_event("payout.updated", payout, payout._account)
    return payout
