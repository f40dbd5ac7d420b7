"""Benchmark the `invoice.paid` webhook with 10,000 active subscriptions, on PostgreSQL.

What it does:
1. wipes the target database, migrates it and loads 10,000 customers, each with an active subscription to one of
   50 agents (its row, its first order and its purchase with access to the period's end);
2. starts the local Stripe stand-in (`python -m dev.stripe_standin`, no answer delay) and, for `--runs` more of
   those customers, checks out a further monthly agent through the app's service (`create_payment_intent`: a
   Customer, the Price, an incomplete subscription) and pays its first invoice as Stripe.js does;
3. takes each first invoice's `invoice.paid` event from the stand-in and times its whole handling, signed body to
   answer (`purchases.handle_webhook`: signature, the processed-events check, the invoice and the subscription
   retrieved from Stripe, the subscription row mirrored, one order, the purchase, the receipt and the vendor's
   notice and mail written to the outbox), one after the other;
4. prints p50, p95 and p99 and whether p99 is under the budget (100 ms). The stand-in answers on loopback in a
   few ms; against Stripe itself each handling adds the two retrievals' network time.

Usage (from the project root, with the project's virtualenv; not part of `make test`):
    python -m benchmarks.billing                       # 10,000 subscriptions, 300 timed events
    python -m benchmarks.billing --runs 1000 --subscriptions 20000

The URL comes from --database-url, else BENCH_BILLING_DATABASE_URL, else a local `bench_billing` database
(created through the `postgres` database when missing). It is wiped: never point it at data you want to keep.
The databases named `test` and `postgres` are refused.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import httpx
from sqlalchemy import insert, text

if __package__ in (None, ""):  # also runnable as `python benchmarks/billing.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.server import ROOT, free_port
from benchmarks.vendor import _ensure_database  # the same dedicated-database rule as the vendor benchmark

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_billing"
SECRET_KEY, PUBLISHABLE_KEY, WEBHOOK_SECRET = "sk_test_standin", "pk_test_standin", "whsec_bench_billing"
BUDGET_MS = 100.0
WARMUP = 10
AGENTS = 50


def _id() -> str:
    return uuid.uuid4().hex


def seed(url: str, subscriptions: int) -> None:
    """Customers with an active subscription each, as their first paid invoice leaves them."""
    from marketplace import migrate
    from marketplace.db import build_engine
    from marketplace.models import Agent, Order, Purchase, Subscription, User

    started = time.perf_counter()
    engine = build_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    migrate.upgrade(engine)
    now = datetime.now(UTC)
    end = now + timedelta(days=30)
    vendor = {"id": _id(), "username": "bench-vendor", "email": "vendor@bench.test", "password_hash": "x",
              "role": "vendor", "is_vendor_approved": True, "created_at": now, "updated_at": now}
    agents = [{"id": _id(), "name": f"Agent {n}", "short_description": "s", "description": "d",
               "vendor_id": vendor["id"], "status": "approved", "price_cents": 1000 + n * 100,
               "created_at": now, "updated_at": now} for n in range(AGENTS + 1)]
    users, subs, orders, purchases = [], [], [], []
    for n in range(subscriptions):
        user_id, sub_id, order_id = _id(), _id(), _id()
        agent = agents[n % AGENTS]
        users.append({"id": user_id, "username": f"customer{n}", "email": f"customer{n}@bench.test",
                      "password_hash": "x", "role": "user", "created_at": now, "updated_at": now})
        subs.append({"id": sub_id, "user_id": user_id, "agent_id": agent["id"], "vendor_id": vendor["id"],
                     "agent_name": agent["name"], "stripe_subscription_id": f"sub_seed_{n}",
                     "stripe_customer_id": f"cus_seed_{n}", "status": "active", "price_cents": agent["price_cents"],
                     "currency": "usd", "original_price_usd_cents": agent["price_cents"],
                     "exchange_rate": Decimal(1), "commission_rate": Decimal(20), "current_period_end": end,
                     "created_at": now, "updated_at": now})
        fee = agent["price_cents"] // 5
        orders.append({"id": order_id, "user_id": user_id, "agent_id": agent["id"], "vendor_id": vendor["id"],
                       "agent_name": agent["name"], "customer_email": f"customer{n}@bench.test",
                       "status": "completed", "currency": "usd", "total_amount_cents": agent["price_cents"],
                       "original_price_usd_cents": agent["price_cents"], "exchange_rate": Decimal(1),
                       "commission_rate": Decimal(20), "vendor_amount_cents": agent["price_cents"] - fee,
                       "platform_fee_cents": fee, "payment_intent_id": f"pi_seed_{n}", "kind": "subscription",
                       "subscription_id": sub_id, "invoice_id": f"in_seed_{n}", "created_at": now})
        purchases.append({"id": _id(), "user_id": user_id, "agent_id": agent["id"], "order_id": order_id,
                          "purchase_price_cents": agent["price_cents"], "currency": "usd", "purchased_at": now,
                          "subscription_id": sub_id, "access_until": end})
    with engine.begin() as conn:
        conn.execute(insert(User), [vendor])
        conn.execute(insert(User), users)
        conn.execute(insert(Agent), agents)
        conn.execute(insert(Subscription), subs)
        conn.execute(insert(Order), orders)
        conn.execute(insert(Purchase), purchases)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("VACUUM ANALYZE")
    engine.dispose()
    print(f"  seeded {subscriptions:,} active subscriptions (rows, orders, purchases) in "
          f"{time.perf_counter() - started:.1f} s")


def _start_standin() -> tuple[subprocess.Popen, str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "dev.stripe_standin", "--port", str(port), "--quiet"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/_standin/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.terminate()
    sys.exit("the Stripe stand-in did not start")


def _sign(payload: bytes) -> str:
    import hashlib
    import hmac

    stamp = int(time.time())
    digest = hmac.new(WEBHOOK_SECRET.encode(), f"{stamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={stamp},v1={digest}"


def _paid_events(base: str, count: int) -> list[bytes]:
    """The stand-in's `invoice.paid` events, oldest first, as signed bodies would carry them."""
    found: list[dict] = []
    params: dict[str, str | int] = {"type": "invoice.paid", "limit": 100}
    while len(found) < count:
        page = httpx.get(f"{base}/v1/events", params=params, headers={"Authorization": f"Bearer {SECRET_KEY}"})
        body = page.json()
        found += body["data"]
        if not body.get("has_more"):
            break
        params["starting_after"] = body["data"][-1]["id"]
    return [json.dumps(event).encode() for event in reversed(found)]


def measure(base: str, runs: int) -> list[float]:
    from sqlmodel import select

    from marketplace.db import session_scope
    from marketplace.models import Agent, User
    from marketplace.services import purchases

    with session_scope() as session:
        measured = session.exec(select(Agent).order_by(Agent.price_cents.desc())).first()  # nobody has it
        buyers = session.exec(select(User).where(User.role == "user").limit(runs + WARMUP)).all()
    print(f"  checking out {len(buyers)} subscriptions of '{measured.name}' at the stand-in...")
    for buyer in buyers:
        intent = purchases.create_payment_intent(actor=buyer, agent_id=measured.id)
        paid = httpx.post(f"{base}/v1/payment_intents/{intent.payment_intent_id}/confirm", data={
            "key": PUBLISHABLE_KEY, "client_secret": intent.client_secret, "payment_method_data[type]": "card",
            "payment_method_data[card][number]": "4242424242424242", "payment_method_data[card][exp_month]": "12",
            "payment_method_data[card][exp_year]": "2034", "payment_method_data[card][cvc]": "123"})
        assert paid.json().get("status") == "succeeded", paid.text
    bodies = _paid_events(base, len(buyers))
    samples: list[float] = []
    for n, body in enumerate(bodies):
        started = time.perf_counter()
        outcome = purchases.handle_webhook(payload=body, signature=_sign(body))
        elapsed = (time.perf_counter() - started) * 1000
        assert outcome.result == "recorded", outcome
        if n >= WARMUP:
            samples.append(elapsed)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help=f"PostgreSQL URL to wipe and load (default: "
                                               f"BENCH_BILLING_DATABASE_URL or {DEFAULT_URL})")
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=300, help=f"timed events (after {WARMUP} warm-up ones)")
    args = parser.parse_args()
    url = _ensure_database(args.database_url or os.environ.get("BENCH_BILLING_DATABASE_URL") or DEFAULT_URL)
    proc, base = _start_standin()
    # Before the app's settings are first read: the database, the stand-in, mail to nowhere (the outbox keeps it).
    os.environ |= {"DATABASE_URL": url, "STRIPE_SECRET_KEY": SECRET_KEY, "STRIPE_PUBLISHABLE_KEY": PUBLISHABLE_KEY,
                   "STRIPE_WEBHOOK_SECRET": WEBHOOK_SECRET, "STRIPE_API_BASE": base}
    try:
        seed(url, args.subscriptions)
        samples = sorted(measure(base, args.runs))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
    print(f"\ninvoice.paid with {args.subscriptions:,} active subscriptions, {len(samples)} events: "
          f"p50 {statistics.median(samples):.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms, max {samples[-1]:.1f} ms")
    print(f"budget (p99 < {BUDGET_MS:.0f} ms):", "met" if p99 < BUDGET_MS else "NOT met")


if __name__ == "__main__":
    main()
