"""Benchmark the vendor dashboard's reads: one vendor with 10,000 orders among 100,000, on PostgreSQL.

What it does:
1. wipes the target database, migrates it and bulk-loads (COPY) users, agents and 100,000 orders, of which
   10,000 belong to one vendor: USD and EUR (two snapshotted rates), split and direct, commission 20% and
   12.5%, ~3% refunded, spread over the last 400 days;
2. measures at concurrency 1, after a warm-up, the service calls the dashboard makes: `analytics()`,
   `list_sales()` (first page and the last page, a deep offset), `earnings_series("day")` and
   `earnings_series("month")`; then the same through HTTP (`/api/vendor/...` in-process with FastAPI's
   TestClient, signed in with a session cookie: routing, auth and JSON included, no network);
3. prints p50/p99 per case and whether each p99 is under the budget (50 ms).

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.vendor                        # seed and measure, 300 calls per case
    python -m benchmarks.vendor --skip-seed --runs 1000
    python -m benchmarks.vendor --explain --skip-seed  # EXPLAIN ANALYZE of each statement

The URL comes from --database-url, else BENCH_VENDOR_DATABASE_URL, else a local `bench_vendor` database
(created through the `postgres` database when missing). It is wiped: never point it at data you want to
keep. The databases named `test` and `postgres` are refused. Triggers are off during the load (the catalog's
search index and listing counts are not rebuilt: these cases do not read them).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from sqlalchemy import event, func, text
from sqlalchemy.engine import Engine, make_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # also runnable as `python benchmarks/vendor.py`
    sys.path.insert(0, str(ROOT))
import benchmarks.server  # noqa: E402, F401  (the benchmarks' SECRET_KEY, before the app's settings are read)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_vendor"
P99_BUDGET_MS = 50.0
PASSWORD = "bench-password"
VENDOR_USERNAME = "benchvendor"


@dataclass
class Seed:
    orders: int = 100_000
    vendor_orders: int = 10_000
    vendors: int = 200
    customers: int = 5_000
    days: int = 400
    seed: int = 7


def _hex(rng: random.Random) -> str:
    return uuid.UUID(int=rng.getrandbits(128)).hex


def _cents(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _generate(spec: Seed) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """Rows for users, agents and orders, in the column order of the COPY statements below."""
    from marketplace.services import auth

    rng = random.Random(spec.seed)
    now = datetime.now(UTC)
    password_hash = auth.hash_password(PASSWORD)
    users = []
    for n in range(spec.vendors + spec.customers):
        vendor = n < spec.vendors
        name = VENDOR_USERNAME if n == 0 else f"vendor{n}" if vendor else f"customer{n}"
        users.append((_hex(rng), name, f"{name}@bench.test", password_hash if n == 0 else None,
                      "vendor" if vendor else "user", vendor, now - timedelta(days=900)))
    vendors, customers = users[: spec.vendors], users[spec.vendors:]
    agents = []
    for index, vendor in enumerate(vendors):
        for k in range(20 if index == 0 else 5):
            created = now - timedelta(days=rng.uniform(30, 800))
            status = "approved" if k % 7 else "rejected" if k % 2 else "pending"
            agents.append((_hex(rng), vendor[0], f"Agent {index}-{k}", "Short", "", rng.choice([999, 1999, 2999, 4900]),
                           status, created, created, created + timedelta(hours=rng.uniform(1, 72))))
    by_vendor: dict[str, list[tuple]] = {}
    for agent in agents:
        by_vendor.setdefault(agent[1], []).append(agent)
    orders = []
    others = vendors[1:]
    for n in range(spec.orders):
        vendor = vendors[0] if n < spec.vendor_orders else rng.choice(others)
        agent = rng.choice(by_vendor[vendor[0]])
        buyer = rng.choice(customers)
        usd = agent[5]
        eur = rng.random() < 0.3
        rate = rng.choice([Decimal("0.9200"), Decimal("0.9050")]) if eur else Decimal("1.0000")
        amount = _cents(Decimal(usd) * rate) if eur else usd
        commission = rng.choice([Decimal("20.00"), Decimal("12.50")])
        fee = _cents(Decimal(amount) * commission / 100)
        split = rng.random() < 0.6
        status = "refunded" if rng.random() < 0.03 else "completed"
        orders.append((
            _hex(rng), buyer[0], agent[0], vendor[0], agent[2], buyer[2], status, "eur" if eur else "usd", amount,
            usd, rate, commission, split, amount - fee, fee, None if split else "Vendor has not connected Stripe",
            f"pi_bench_{n}", now - timedelta(days=rng.uniform(0, spec.days)),
        ))
    rng.shuffle(orders)  # the vendor's rows spread over the table, as years of interleaved sales leave them
    return users, agents, orders


USER_COLS = ("id, username, email, password_hash, role, is_vendor_approved, created_at, updated_at, totp_enabled, "
             "stripe_charges_enabled, stripe_payouts_enabled")
AGENT_COLS = ("id, vendor_id, name, short_description, description, price_cents, status, created_at, updated_at, "
              "reviewed_at, is_featured, rating_sum, review_count, avg_rating, sales_count, favorites_count")
ORDER_COLS = ("id, user_id, agent_id, vendor_id, agent_name, customer_email, status, currency, total_amount_cents, "
              "original_price_usd_cents, exchange_rate, commission_rate, commission_split_enabled, "
              "vendor_amount_cents, platform_fee_cents, split_block_reason, payment_intent_id, created_at")


def _engine(url: str) -> Engine:
    from marketplace.db import build_engine

    return build_engine(url)


def _ensure_database(url: str) -> str:
    import psycopg

    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        sys.exit("this benchmark runs on PostgreSQL only")
    if parsed.database in (None, "", "test", "postgres"):
        sys.exit(f"refusing to wipe the database {parsed.database!r}; give a dedicated one with --database-url")
    admin = parsed.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (parsed.database,)).fetchone():
            conn.execute(f'CREATE DATABASE "{parsed.database}"')
    return url


def seed(url: str, spec: Seed) -> None:
    import psycopg

    from marketplace import migrate

    started = time.perf_counter()
    engine = _engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    migrate.upgrade(engine)
    engine.dispose()
    users, agents, orders = _generate(spec)
    now = datetime.now(UTC)
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo) as conn, conn.cursor() as cur:
        cur.execute("SET session_replication_role = replica")
        with cur.copy(f"COPY users ({USER_COLS}) FROM STDIN") as copy:
            for row in users:
                copy.write_row((*row, now, False, False, False))
        with cur.copy(f"COPY agents ({AGENT_COLS}) FROM STDIN") as copy:
            for row in agents:
                copy.write_row((*row, False, 0, 0, 0.0, 0, 0))
        with cur.copy(f"COPY orders ({ORDER_COLS}) FROM STDIN") as copy:
            for row in orders:
                copy.write_row(row)
        cur.execute("SET session_replication_role = origin")
        conn.commit()
    engine = _engine(url)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql("VACUUM ANALYZE")
    engine.dispose()
    print(f"  seeded {len(orders):,} orders ({spec.vendor_orders:,} of one vendor), {len(agents):,} agents, "
          f"{len(users):,} users in {time.perf_counter() - started:.1f} s")


# ---- measuring ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    case: str
    p50_ms: float
    p99_ms: float
    runs: int


def _time(name: str, call: Callable[[], object], runs: int, warmup: int = 20) -> Result:
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return Result(name, statistics.median(samples), cuts[98], runs)


def _cases(vendor: object, deep: int) -> list[tuple[str, Callable[[], object], str]]:
    """(name, service call, HTTP path) per case."""
    from marketplace.services.vendors import sales

    return [
        ("analytics", lambda: sales.analytics(actor=vendor), "/api/vendor/analytics"),
        ("sales, first page (20)", lambda: sales.list_sales(actor=vendor, limit=20, offset=0),
         "/api/vendor/sales?limit=20&offset=0"),
        (f"sales, offset {deep:,}", lambda: sales.list_sales(actor=vendor, limit=20, offset=deep),
         f"/api/vendor/sales?limit=20&offset={deep}"),
        ("earnings by day (30)", lambda: sales.earnings_series(actor=vendor, period="day"),
         "/api/vendor/earnings?period=day"),
        ("earnings by month (12)", lambda: sales.earnings_series(actor=vendor, period="month"),
         "/api/vendor/earnings?period=month"),
    ]


def _vendor(engine: Engine) -> tuple[object, int]:
    from sqlmodel import Session, select

    from marketplace.models import Order, OrderStatus, User

    with Session(engine) as session:
        vendor = session.exec(select(User).where(User.username == VENDOR_USERNAME)).one()
        completed = session.exec(select(func.count()).select_from(Order).where(
            Order.vendor_id == vendor.id, Order.status == OrderStatus.COMPLETED)).one()
        session.expunge(vendor)
    return vendor, max(0, completed - 20)


def measure(url: str, runs: int, *, http: bool) -> list[Result]:
    from marketplace import db

    engine = _engine(url)
    db.set_engine(engine)
    vendor, deep = _vendor(engine)
    cases = _cases(vendor, deep)
    results = [_time(f"service: {name}", call, runs) for name, call, _ in cases]
    if http:
        from fastapi.testclient import TestClient

        from marketplace.api.app import create_api

        with TestClient(create_api(), base_url="http://localhost:3000",
                        headers={"Origin": "http://localhost:3000"}) as client:  # a write needs the Origin
            signed = client.post("/api/login", json={"username": VENDOR_USERNAME, "password": PASSWORD})
            signed.raise_for_status()
            for name, _, path in cases:
                assert client.get(path).status_code == 200, path

                def get(path: str = path) -> None:
                    client.get(path)

                results.append(_time(f"HTTP: {name}", get, runs))
    engine.dispose()
    return results


def explain_calls(engine: Engine, cases: list[tuple[str, Callable[[], object]]],
                  keep: Callable[[str], bool]) -> None:
    """EXPLAIN ANALYZE the statements `keep` selects of each call (after one warm-up call)."""
    captured: list[tuple[str, object]] = []

    def _capture(_conn, _cursor, statement, parameters, _context, _many) -> None:
        captured.append((statement, parameters))

    for name, call in cases:
        call()
        captured.clear()
        event.listen(engine, "before_cursor_execute", _capture)
        call()
        event.remove(engine, "before_cursor_execute", _capture)
        print(f"\n=== {name}")
        for statement, parameters in captured:
            if not statement.lstrip().upper().startswith("SELECT") or not keep(statement):
                continue
            with engine.connect() as conn:
                plan = conn.exec_driver_sql("EXPLAIN (ANALYZE, BUFFERS) " + statement, parameters).all()
            print("--", " ".join(statement.split())[:200])
            for row in plan:
                print("   ", row[0])
    engine.dispose()


def p99_table(heading: str, results: list[Result], budget_ms: float) -> tuple[str, bool]:
    """The Markdown table of p50/p99 per case, and whether every p99 is under the budget."""
    lines = [heading, "", f"| case | p50 ms | p99 ms | runs | p99 < {budget_ms:g} ms |",
             "| --- | ---: | ---: | ---: | :---: |"]
    ok = True
    for r in results:
        met = r.p99_ms < budget_ms
        ok = ok and met
        lines.append(f"| {r.case} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | {r.runs} | {'yes' if met else 'NO'} |")
    return "\n".join(lines), ok


def explain(url: str) -> None:
    """EXPLAIN ANALYZE every SELECT on orders of each service call."""
    from marketplace import db

    engine = _engine(url)
    db.set_engine(engine)
    vendor, deep = _vendor(engine)
    explain_calls(engine, [(name, call) for name, call, _ in _cases(vendor, deep)], lambda sql: "orders" in sql)


def report(results: list[Result], spec: Seed) -> tuple[str, bool]:
    return p99_table(f"### PostgreSQL, {spec.vendor_orders:,} orders of one vendor among {spec.orders:,}, "
                     "concurrency 1", results, P99_BUDGET_MS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help=f"PostgreSQL URL to wipe and load (default: BENCH_VENDOR_DATABASE_URL "
                                               f"or {DEFAULT_URL})")
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--vendor-orders", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=300, help="timed calls per case (after 20 warm-up calls)")
    parser.add_argument("--skip-seed", action="store_true", help="reuse the data of the previous run")
    parser.add_argument("--no-http", action="store_true", help="service calls only")
    parser.add_argument("--explain", action="store_true", help="print query plans instead of timings")
    args = parser.parse_args()
    url = _ensure_database(args.database_url or os.environ.get("BENCH_VENDOR_DATABASE_URL") or DEFAULT_URL)
    os.environ["DATABASE_URL"] = url  # before the app's settings are first read
    spec = Seed(orders=args.orders, vendor_orders=args.vendor_orders)
    if not args.skip_seed:
        seed(url, spec)
    if args.explain:
        explain(url)
        return
    table, ok = report(measure(url, args.runs, http=not args.no_http), spec)
    print("\n" + table)
    print("\nbudget (p99 < 50 ms at concurrency 1):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
