"""`python -m dev.stripe_standin.seed_demo --api-base http://127.0.0.1:8420`: the demo vendor's Stripe side.

Run by `make run` after the demo data (DEMO_DATA=1), against the local stand-in only. For the user `vendor` it
makes sure a connected Express account exists in the stand-in (created through the product's payments module,
stored on the user with the payouts service's `sync_account`), completes its onboarding, and gives it a payout
history: destination charges confirmed server-side with a test card feed its balance, then payouts paid,
failed ("The bank account has been closed.", the money returns to the balance), in transit and pending, and a
little left available. Idempotent: an account the stand-in still knows is reused and an account that already
has payouts is left as it is; an id the stand-in has forgotten (a reset, a new state file) gets a new account.
`nova_labs`, the second demo vendor, stays unconnected. Then `seed_billing` gives the demo customer its
subscriptions (past renewals, one cancelled, one past due) and refunds (`seed_billing.py` says which).
"""

from __future__ import annotations

import argparse
import os
import time

import httpx
import stripe
from sqlmodel import select

from dev.stripe_standin import seed_billing
from marketplace import db
from marketplace.config import settings
from marketplace.integrations import payments
from marketplace.models import User
from marketplace.services.vendors import payouts

DEMO_VENDOR = "vendor"
DAY = 24 * 3600
# (charge amount in cents, payout: days ago, final status); the platform keeps 20% of each charge.
HISTORY: list[tuple[int, int, str]] = [
    (4999, 75, "paid"),
    (2999, 45, "paid"),
    (7999, 20, "failed"),
    (1999, 1, "in_transit"),
]
PENDING_CHARGE = 3999  # paid out today with a manual payout, still pending
LEFT_AVAILABLE = 2499  # charged, not paid out yet


def _vendor() -> User | None:
    with db.session_scope() as session:
        return session.exec(select(User).where(User.username == DEMO_VENDOR)).first()


def _known_to_standin(account_id: str) -> bool:
    try:
        payments.client().v1.accounts.retrieve(account_id)
    except stripe.InvalidRequestError as exc:
        if exc.http_status == 404:
            return False
        raise
    return True


def _ensure_account(vendor: User) -> str:
    """The vendor's account id, creating (and storing) a new account when the stand-in does not know it."""
    if vendor.stripe_account_id and _known_to_standin(vendor.stripe_account_id):
        return vendor.stripe_account_id
    account = payments.create_connected_account(email=vendor.email)
    with db.session_scope() as session:
        row = session.get(User, vendor.id)
        assert row is not None
        row.stripe_account_id = account.id
        session.add(row)
    payouts.sync_account(account)
    return account.id


def _charge(account_id: str, amount: int) -> None:
    """A destination charge like a checkout's, confirmed server-side with Stripe's test card."""
    client = payments.client()
    intent = client.v1.payment_intents.create(params={
        "amount": amount, "currency": "usd", "description": "Demo sale", "metadata": {"demo": "stripe-seed"},
        "application_fee_amount": amount // 5, "transfer_data": {"destination": account_id},
    })
    client.v1.payment_intents.confirm(intent.id, params={"payment_method": "pm_card_visa"})


def _dev_post(api_base: str, path: str, body: dict[str, object]) -> dict[str, object]:
    response = httpx.post(f"{api_base}{path}", json=body, timeout=10)
    response.raise_for_status()
    return response.json()


def _history(api_base: str, account_id: str) -> int:
    now = int(time.time())
    count = 0
    for amount, days_ago, status in HISTORY:
        _charge(account_id, amount)
        payout = _dev_post(api_base, f"/_standin/connect/accounts/{account_id}/payout",
                           {"created": now - days_ago * DAY})
        if status == "in_transit":
            _dev_post(api_base, f"/_standin/payouts/{payout['id']}/status", {"status": "in_transit"})
        elif status == "failed":
            _dev_post(api_base, f"/_standin/payouts/{payout['id']}/status",
                      {"status": "failed", "failure_code": "account_closed"})
        else:
            _dev_post(api_base, f"/_standin/payouts/{payout['id']}/status", {"status": "in_transit"})
            _dev_post(api_base, f"/_standin/payouts/{payout['id']}/status", {"status": "paid"})
        count += 1
    _charge(account_id, PENDING_CHARGE)
    payments.client().v1.payouts.create(
        params={"amount": PENDING_CHARGE - PENDING_CHARGE // 5, "currency": "usd", "description": "Demo payout"},
        options={"stripe_account": account_id})
    _charge(account_id, LEFT_AVAILABLE)
    return count + 1


def seed(api_base: str) -> str | None:
    """Seed the demo vendor's account; answers its id (None when there is no demo vendor)."""
    vendor = _vendor()
    if vendor is None:
        print("stripe demo: no user 'vendor' (load the demo data first); nothing to do")
        return None
    account_id = _ensure_account(vendor)
    if not payments.retrieve_account(account_id).charges_enabled:
        _dev_post(api_base, f"/_standin/connect/accounts/{account_id}/complete", {})
    payouts.sync_account(payments.retrieve_account(account_id))
    if payments.list_payouts(account_id=account_id, limit=1):
        print(f"stripe demo: {account_id} already has its payouts")
    else:
        print(f"stripe demo: {account_id} onboarded, {_history(api_base, account_id)} payouts")
    return account_id


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dev.stripe_standin.seed_demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api-base", default=os.environ.get("STRIPE_API_BASE") or "http://127.0.0.1:8420",
                        help="the running stand-in")
    parser.add_argument("--secret-key", default=os.environ.get("STRIPE_SECRET_KEY") or "sk_test_standin")
    args = parser.parse_args(argv)
    api_base = args.api_base.rstrip("/")
    if not api_base.startswith(("http://127.", "http://localhost")):
        parser.error("seeds the local stand-in only (loopback --api-base)")
    settings.stripe_api_base = api_base
    settings.stripe_secret_key = args.secret_key
    seed(api_base)
    seed_billing.seed()


if __name__ == "__main__":
    main()
