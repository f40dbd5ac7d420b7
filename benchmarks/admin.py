"""Benchmark the admin panel's reads on PostgreSQL: 100,000 users, 100,000 agents, 200,000 orders.

What it does:
1. wipes the target database, migrates it and bulk-loads (COPY, triggers off) 1 admin, 5,000 vendors (4/5
   approved), 94,999 customers, 8 categories, 100,000 agents (85% approved, 8% pending, 5% rejected, 2%
   deleted; Pareto-like sales, saves, views and ratings), 200,000 orders (30% EUR at two snapshotted rates,
   60% split, 20% and 12.5% commission, ~3% refunded, over 400 days), 5,000 customer reports and 3,000
   vendor applications; then rebuilds what triggers keep (live counts per category for Top Category,
   per-day sales totals for the summary and the daily series);
2. measures at concurrency 1, after a warm-up, every admin read the panel makes: the first page of each
   table (customers, vendors, agents whole and per status, commissions), a search of each, a deep page,
   the sales summary, analytics, the four rankings and the two stats series; as service calls and through
   HTTP (the FastAPI app in process with TestClient, signed in as the admin: routing, auth, JSON);
3. prints p50/p99 per case and whether each p99 is under the budget (100 ms).

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.admin                        # seed and measure, 200 calls per case
    python -m benchmarks.admin --skip-seed --runs 500
    python -m benchmarks.admin --explain --skip-seed  # EXPLAIN ANALYZE of each statement
    python -m benchmarks.admin --sqlite data/bench/admin.db --only search   # the same data on SQLite

The URL comes from --database-url, else BENCH_ADMIN_DATABASE_URL, else a local `bench_admin` database
(created when missing). It is wiped: never point it at data you want to keep (`test` and `postgres` are
refused).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # also runnable as `python benchmarks/admin.py`
    sys.path.insert(0, str(ROOT))

from benchmarks.vendor import (  # noqa: E402
    Result,
    _cents,
    _engine,
    _ensure_database,
    _hex,
    _time,
    explain_calls,
    p99_table,
)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_admin"
P99_BUDGET_MS = 100.0
SEARCH_P99_BUDGET_MS = 50.0  # issue 21: the admin searches (cases whose name holds "search")
PASSWORD = "bench-password"
ADMIN_USERNAME = "benchadmin"
WORDS = ("invoice", "email", "support", "sales", "research", "code", "data", "legal", "travel", "writer")


@dataclass
class Seed:
    users: int = 100_000
    vendors: int = 5_000
    agents: int = 100_000
    orders: int = 200_000
    reports: int = 5_000
    applications: int = 3_000
    days: int = 400
    seed: int = 11


USER_COLS = ("id, username, email, password_hash, first_name, last_name, role, is_vendor_approved, created_at, "
             "updated_at, totp_enabled, stripe_charges_enabled, stripe_payouts_enabled")
CATEGORY_COLS = "id, slug, name, emoji, description, sort_order"
AGENT_COLS = ("id, vendor_id, category_id, name, short_description, description, price_cents, status, is_featured, "
              "rating_sum, review_count, avg_rating, sales_count, favorites_count, view_count, created_at, "
              "updated_at, reviewed_at, deleted_at")
ORDER_COLS = ("id, user_id, agent_id, vendor_id, agent_name, customer_email, status, currency, total_amount_cents, "
              "original_price_usd_cents, exchange_rate, commission_rate, commission_split_enabled, "
              "vendor_amount_cents, platform_fee_cents, split_block_reason, payment_intent_id, created_at")
REPORT_COLS = "id, user_id, agent_id, report_type, reason, description, status, created_at"
APPLICATION_COLS = "id, user_id, business_name, business_description, status, created_at"


def _pareto(rng: random.Random, scale: float, cap: int) -> int:
    return min(cap, int(rng.paretovariate(1.5) * scale) - int(scale))


def _generate(spec: Seed) -> dict[str, list[tuple]]:
    from marketplace.services import auth

    rng = random.Random(spec.seed)
    now = datetime.now(UTC)
    users = [(_hex(rng), ADMIN_USERNAME, "admin@bench.test", auth.hash_password(PASSWORD), "Bench", "Admin",
              "admin", False, now - timedelta(days=1000))]
    for n in range(1, spec.users):
        vendor = n <= spec.vendors
        name = f"{'vendor' if vendor else 'customer'}{n}"
        users.append((_hex(rng), name, f"{name}@bench.test", None, rng.choice(("Ann", "Bob", "Cy", "Di")),
                      f"{rng.choice(WORDS).title()}son", "vendor" if vendor else "user", vendor and n % 5 != 0,
                      now - timedelta(days=rng.uniform(0, 900))))
    vendors, customers = users[1: spec.vendors + 1], users[spec.vendors + 1:]
    categories = [(k + 1, f"cat-{k}", f"Category {k}", "🤖", "", k) for k in range(8)]
    agents = []
    for n in range(spec.agents):
        created = now - timedelta(days=rng.uniform(0, 800))
        roll = rng.random()
        status = "approved" if roll < 0.87 else "pending" if roll < 0.95 else "rejected"
        reviews = _pareto(rng, 2, 500)
        avg = round(rng.uniform(2, 5), 2) if reviews else 0.0
        agents.append((
            _hex(rng), rng.choice(vendors)[0], rng.randint(1, 8) if rng.random() < 0.95 else None,
            f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} agent {n}", "Short", "Long description " * 5,
            rng.choice([0, 999, 1999, 2999, 4900, 9900]), status, False, int(avg * reviews), reviews, avg,
            _pareto(rng, 3, 5000), _pareto(rng, 2, 3000), _pareto(rng, 10, 50000), created, created,
            created + timedelta(hours=6) if status != "pending" else None,
            now if rng.random() < 0.02 else None,
        ))
    sellable = [a for a in agents if a[7] == "approved"]
    orders = []
    for n in range(spec.orders):
        agent, buyer = rng.choice(sellable), rng.choice(customers)
        usd = agent[6] or 999
        eur = rng.random() < 0.3
        rate = rng.choice([Decimal("0.9200"), Decimal("0.9050")]) if eur else Decimal("1.0000")
        amount = _cents(Decimal(usd) * rate) if eur else usd
        commission = rng.choice([Decimal("20.00"), Decimal("12.50")])
        fee = _cents(Decimal(amount) * commission / 100)
        split = rng.random() < 0.6
        orders.append((
            _hex(rng), buyer[0], agent[0], agent[1], agent[3], buyer[2],
            "refunded" if rng.random() < 0.03 else "completed", "eur" if eur else "usd", amount, usd, rate,
            commission, split, amount - fee, fee, None if split else "Vendor has not connected Stripe",
            f"pi_admin_bench_{n}", now - timedelta(days=rng.uniform(0, spec.days)),
        ))
    reports = [(_hex(rng), buyer[0], rng.choice(sellable)[0], rng.choice(("broken", "spam", "misleading")),
                "It does not work", None, rng.choice(("pending", "reviewed", "resolved")),
                now - timedelta(days=rng.uniform(0, 300)))
               for buyer in rng.sample(customers, spec.reports)]
    applications = [(_hex(rng), user[0], f"Business {n}", "We build agents",
                     rng.choice(("pending", "approved", "rejected")), now - timedelta(days=rng.uniform(0, 300)))
                    for n, user in enumerate(rng.sample(customers, spec.applications))]
    return {"users": users, "categories": categories, "agents": agents, "orders": orders, "reports": reports,
            "vendor_applications": applications}


def seed(url: str, spec: Seed) -> None:
    import psycopg

    from benchmarks.day_totals import rebuild_day_totals
    from marketplace import migrate
    from marketplace.services import catalog

    started = time.perf_counter()
    engine = _engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    migrate.upgrade(engine)
    engine.dispose()
    rows = _generate(spec)
    now = datetime.now(UTC)
    columns = {"users": USER_COLS, "categories": CATEGORY_COLS, "agents": AGENT_COLS, "orders": ORDER_COLS,
               "reports": REPORT_COLS, "vendor_applications": APPLICATION_COLS}
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo) as conn, conn.cursor() as cur:
        cur.execute("SET session_replication_role = replica")
        for table, cols in columns.items():
            with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                for row in rows[table]:
                    copy.write_row((*row[:9], now, False, False, False) if table == "users" else row)
        cur.execute("SELECT setval(pg_get_serial_sequence('categories', 'id'), (SELECT max(id) FROM categories))")
        cur.execute("SET session_replication_role = origin")
        conn.commit()
    engine = _engine(url)
    with engine.begin() as connection:
        catalog.rebuild_listing_counts(connection)
        rebuild_day_totals(connection)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql("VACUUM ANALYZE")
    engine.dispose()
    print("  seeded " + ", ".join(f"{len(v):,} {k}" for k, v in rows.items())
          + f" in {time.perf_counter() - started:.1f} s")


def seed_sqlite(path: Path, spec: Seed) -> None:
    """The same users, categories, agents and orders in a fresh, migrated SQLite file (for the searches;
    reports and applications are left out). Triggers run as the rows go in, as they would in the app."""
    import sqlite3

    from marketplace import migrate

    started = time.perf_counter()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = _engine(f"sqlite:///{path.resolve()}")
    migrate.upgrade(engine)
    engine.dispose()
    rows = _generate(spec)
    now = datetime.now(UTC)

    def value(v: object) -> object:
        if isinstance(v, datetime):
            return f"{v.astimezone(UTC):%Y-%m-%d %H:%M:%S.%f}"  # as SQLAlchemy stores it on SQLite
        return str(v) if isinstance(v, Decimal) else v

    columns = {"users": USER_COLS, "categories": CATEGORY_COLS, "agents": AGENT_COLS, "orders": ORDER_COLS}
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA foreign_keys=OFF")
        with conn:
            for table, cols in columns.items():
                table_rows = [(*r[:9], now, False, False, False) if table == "users" else r for r in rows[table]]
                marks = ", ".join("?" * len(table_rows[0]))
                conn.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})",
                                 [tuple(value(v) for v in r) for r in table_rows])
        conn.execute("ANALYZE")
    finally:
        conn.close()
    print(f"  seeded SQLite ({', '.join(f'{len(rows[t]):,} {t}' for t in columns)}) "
          f"in {time.perf_counter() - started:.1f} s")


# ---- measuring ---------------------------------------------------------------------------------------


def _cases(admin: object) -> list[tuple[str, Callable[[], object], str]]:
    """(name, service call, HTTP path) per case."""
    from marketplace.services.admin import analytics, catalog, people, sales, stats

    return [
        ("customers, first page", lambda: people.list_customers(actor=admin), "/api/admin/customers"),
        ("customers, offset 50,000", lambda: people.list_customers(actor=admin, offset=50_000),
         "/api/admin/customers?offset=50000"),
        ("customers, search 'travelson'", lambda: people.list_customers(actor=admin, search="travelson"),
         "/api/admin/customers?search=travelson"),
        ("vendors, first page", lambda: people.list_vendors(actor=admin), "/api/admin/vendors"),
        ("vendors, search 'vendor12'", lambda: people.list_vendors(actor=admin, search="vendor12"),
         "/api/admin/vendors?search=vendor12"),
        ("agents, first page", lambda: catalog.list_agents(actor=admin), "/api/admin/agents"),
        ("agents, pending", lambda: catalog.list_agents(actor=admin, status="pending"),
         "/api/admin/agents?status=pending"),
        ("agents, rejected", lambda: catalog.list_agents(actor=admin, status="rejected"),
         "/api/admin/agents?status=rejected"),
        ("agents, search 'legal'", lambda: catalog.list_agents(actor=admin, search="legal"),
         "/api/admin/agents?search=legal"),
        ("sales summary", lambda: sales.summary(actor=admin), "/api/admin/sales"),
        ("commissions, first page (10)", lambda: sales.list_commissions(actor=admin), "/api/admin/commissions"),
        ("commissions, search", lambda: sales.list_commissions(actor=admin, search="customer77"),
         "/api/admin/commissions?search=customer77"),
        ("analytics", lambda: analytics.overview(actor=admin), "/api/admin/analytics"),
        ("most bought", lambda: analytics.most_bought(actor=admin), "/api/admin/analytics/most-bought"),
        ("most saved", lambda: analytics.most_saved(actor=admin), "/api/admin/analytics/most-saved"),
        ("most viewed", lambda: analytics.most_viewed(actor=admin), "/api/admin/analytics/most-viewed"),
        ("top category", lambda: analytics.top_categories(actor=admin), "/api/admin/analytics/top-category"),
        ("stats, daily (30)", lambda: stats.daily_sales(actor=admin), "/api/admin/stats/daily"),
        ("stats, weekly (12)", lambda: stats.weekly_signups(actor=admin), "/api/admin/stats/weekly"),
    ]


def _admin(engine: Engine) -> object:
    from sqlmodel import Session, select

    from marketplace.models import User

    with Session(engine) as session:
        admin = session.exec(select(User).where(User.username == ADMIN_USERNAME)).one()
        session.expunge(admin)
    return admin


def measure(url: str, runs: int, *, http: bool, only: str | None) -> list[Result]:
    from marketplace import db

    engine = _engine(url)
    db.set_engine(engine)
    admin = _admin(engine)
    cases = [c for c in _cases(admin) if not only or only in c[0]]
    results = [_time(f"service: {name}", call, runs) for name, call, _ in cases]
    if http:
        from fastapi.testclient import TestClient

        from marketplace.api.app import create_api

        with TestClient(create_api(), base_url="http://localhost:3000",
                        headers={"Origin": "http://localhost:3000"}) as client:  # a write needs the Origin
            client.post("/api/login", json={"username": ADMIN_USERNAME, "password": PASSWORD}).raise_for_status()
            for name, _, path in cases:
                assert client.get(path).status_code == 200, path

                def get(path: str = path) -> None:
                    client.get(path)

                results.append(_time(f"HTTP: {name}", get, runs))
    engine.dispose()
    return results


def explain(url: str, only: str | None) -> None:
    """EXPLAIN ANALYZE every SELECT of each service call (but the session's user lookup)."""
    from marketplace import db

    engine = _engine(url)
    db.set_engine(engine)
    admin = _admin(engine)
    cases = [(name, call) for name, call, _ in _cases(admin) if not only or only in name]
    explain_calls(engine, cases, lambda sql: "users.id = %(" not in sql)


def _migrate(url: str) -> None:
    from marketplace import migrate

    engine = _engine(url)
    migrate.upgrade(engine)
    engine.dispose()


def report(results: list[Result], spec: Seed, database: str = "PostgreSQL") -> tuple[str, bool]:
    """The reads against the read budget, then the searches against theirs."""
    heading = f"### {database}, {spec.users:,} users, {spec.agents:,} agents, {spec.orders:,} orders, concurrency 1"
    reads = [r for r in results if "search" not in r.case]
    searches = [r for r in results if "search" in r.case]
    tables = [p99_table(heading, reads, P99_BUDGET_MS)] if reads else []
    if searches:
        tables.append(p99_table(heading + ", searches", searches, SEARCH_P99_BUDGET_MS))
    return "\n\n".join(t for t, _ in tables), all(ok for _, ok in tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help=f"PostgreSQL URL to wipe and load (default: BENCH_ADMIN_DATABASE_URL "
                                               f"or {DEFAULT_URL})")
    parser.add_argument("--runs", type=int, default=200, help="timed calls per case (after 20 warm-up calls)")
    parser.add_argument("--skip-seed", action="store_true", help="reuse the data of the previous run")
    parser.add_argument("--no-http", action="store_true", help="service calls only")
    parser.add_argument("--only", help="cases whose name contains this text")
    parser.add_argument("--explain", action="store_true", help="print query plans instead of timings")
    parser.add_argument("--sqlite", type=Path, help="measure the same data in this SQLite file (wiped) instead")
    args = parser.parse_args()
    spec = Seed()
    if args.sqlite:
        url = f"sqlite:///{args.sqlite.resolve()}"
        os.environ["DATABASE_URL"] = url
        if not args.skip_seed:
            seed_sqlite(args.sqlite, spec)
        else:
            _migrate(url)  # data seeded by an older revision gets what later ones build (0022's shadows)
        table, ok = report(measure(url, args.runs, http=not args.no_http, only=args.only), spec, "SQLite")
        print("\n" + table)
        return
    url = _ensure_database(args.database_url or os.environ.get("BENCH_ADMIN_DATABASE_URL") or DEFAULT_URL)
    os.environ["DATABASE_URL"] = url  # before the app's settings are first read
    if not args.skip_seed:
        seed(url, spec)
    else:
        _migrate(url)
    if args.explain:
        explain(url, args.only)
        return
    table, ok = report(measure(url, args.runs, http=not args.no_http, only=args.only), spec)
    print("\n" + table)
    print(f"\nbudgets (p99 < {P99_BUDGET_MS:g} ms, searches < {SEARCH_P99_BUDGET_MS:g} ms, concurrency 1):",
          "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
