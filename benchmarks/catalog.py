"""Benchmark the public catalogue API with 100,000 agents, on PostgreSQL and SQLite, through the real server.

What it does, per database:
1. wipes the target database, migrates it and bulk-loads N agents (COPY on PostgreSQL, executemany on
   SQLite) with vendors, categories, tags, varied prices, ratings, sales, statuses and dates;
2. starts the app the way `make run` does (`reflex run --env prod --single-port`, loopback only);
3. drives each case with `wrk` at concurrency 1 and 16 (bounded runs) and reports p50, p99 and
   requests/second, next to the same server's `/ping` (a trivial JSON endpoint; run first and last,
   as the host is shared) as the ceiling;
4. does it twice: with the app's caches on (how `make run` serves: every public GET, concurrency 1
   and 16, then purchase completions against the local Stripe stand-in) and off (the searches at
   concurrency 1: every request runs the queries), and checks issue 12's budgets:
   - every public GET (agent, reviews, categories, stats, listing, search) >= 50% of `/ping`'s
     requests/second at concurrency 16, on both databases (caches on);
   - uncached search p99 < 30 ms at concurrency 1 for every search case (caches off);
   - purchase completion (`POST /api/purchase/complete`) p99 < 100 ms (issue 21; issue 12 asked < 200 ms).

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.catalog                       # both databases, 100k agents, 10 s per case
    python -m benchmarks.catalog --only postgresql --duration 5
    python -m benchmarks.catalog --skip-seed           # reuse the data of the previous run
    python -m benchmarks.catalog --cache off --cases search   # only the queries, only the searches
    python -m benchmarks.catalog --explain --only postgresql --skip-seed   # EXPLAIN ANALYZE, no server
    python -m benchmarks.catalog --skip-seed --service-runs 200 --cases typo,search   # in process, no server

The PostgreSQL URL comes from --pg-url, else BENCH_DATABASE_URL, else a local `catalog_bench`
database (created if missing). It is wiped: never point it at data you want to keep. The database
named `test` is refused. Needs `wrk` (Debian: `apt-get install -y wrk`) and `bun` on PATH (or in
`.tools/node_modules/.bin`, as `make setup` installs it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import event, text
from sqlalchemy.engine import Engine, make_url

if __package__ in (None, ""):  # also runnable as `python benchmarks/catalog.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.server import ROOT, free_port, running, tool_path

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/catalog_bench"
DEFAULT_SQLITE_PATH = ROOT / "data" / "bench" / "catalog.db"

THROUGHPUT_BUDGET = 0.50  # of /ping's req/s, every public GET at concurrency 16 (caches on)
SEARCH_P99_BUDGET_MS = 30.0  # uncached search, concurrency 1
PURCHASE_P99_BUDGET_MS = 100.0  # POST /api/purchase/complete (issue 21; issue 12 had 200)

# ---- data ------------------------------------------------------------------------------------------

def _words(text: str) -> list[str]:
    return text.split()


CATEGORIES = [
    ("content-creation", "Content Creation", "✍️"),
    ("business-automation", "Business Automation", "⚙️"),
    ("data-analysis", "Data Analysis", "📊"),
    ("customer-support", "Customer Support", "💬"),
    ("marketing", "Marketing", "📣"),
    ("development-tools", "Development Tools", "🛠️"),
    ("productivity", "Productivity", "⏱️"),
    ("ai-assistance", "AI Assistance", "🧠"),
]
ADJECTIVES = _words(
    """Smart Rapid Deep Clever Swift Insightful Precise Friendly Tireless Adaptive Autonomous Bright Lean
Nimble Quiet Bold Steady Sharp Agile Careful Creative Curious Efficient Expert Fluent Honest Keen
Lucid Modern Neat Patient Polished Proactive Reliable Robust Savvy Simple Sturdy Thorough Tidy
Trusty Vivid Wise"""
)
TOPICS = _words(
    """Email Invoice Lead Resume Blog SEO Tweet Meeting Contract Support Sales Code SQL Data Report
Translation Research Podcast Video Image Recipe Travel Tax Budget Inventory Recruiting Onboarding
Ticket Survey Newsletter Kubernetes Security Compliance Legal Medical Fitness Tutor Calendar
Shopping Mortgage Payroll Logistics Pricing Churn Forecast Spreadsheet Slide Transcript Chatbot"""
)
ROLES = _words(
    """Assistant Agent Bot Copilot Writer Analyst Planner Optimizer Summarizer Generator Helper Manager
Reviewer Tracker Scout Coach Drafter Monitor"""
)
VERBS = _words(
    """drafts summarizes classifies extracts translates schedules analyzes monitors answers generates
reviews forecasts cleans tags routes prioritizes rewrites explains compares detects audits tracks
plans organizes researches scores transcribes reconciles validates publishes"""
)
OBJECTS = _words(
    """emails invoices leads resumes posts articles tweets meetings contracts tickets orders receipts
reports dashboards spreadsheets documents transcripts slides campaigns keywords prospects customers
suppliers budgets forecasts metrics logs alerts incidents deployments pull-requests queries datasets
charts surveys reviews newsletters podcasts videos images recipes itineraries expenses payrolls
shipments prices contracts policies notes tasks calendars proposals briefs"""
)
QUALIFIERS = _words(
    """automatically instantly accurately securely in-bulk overnight in-real-time with-citations
for-small-teams for-enterprises for-freelancers for-agencies for-startups in-multiple-languages
using-gpt using-claude with-human-review on-schedule from-your-inbox from-slack from-notion
from-google-drive"""
)
TAGS = _words(
    """automation chatgpt productivity analytics writing marketing sales support seo email finance legal hr
coding devops data research translation video audio image education health ecommerce crm slack
notion excel python javascript api nocode llm gpt-4 claude open-source enterprise startup free-trial"""
)
PRICES = [0, 0, 0, 499, 900, 999, 1499, 1900, 1999, 2499, 2900, 2999, 3900, 4900, 4999, 7900, 9900, 9999, 14900,
          19900, 29900]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(VERBS), rng.choice(OBJECTS), "and", rng.choice(OBJECTS), rng.choice(QUALIFIERS)]
    return " ".join(words).replace("-", " ").capitalize() + "."


@dataclass
class Seed:
    agents: int
    vendors: int = 2_000
    customers: int = 3_000
    seed: int = 42


def _generate(spec: Seed) -> tuple[list[tuple], list[tuple], list[tuple], list[tuple]]:
    """Rows for users, categories, agents and agent_tags, in column order of the COPY statements below."""
    rng = random.Random(spec.seed)
    now = datetime.now(UTC)
    users = []
    for n in range(spec.vendors + spec.customers):
        vendor = n < spec.vendors
        name = f"{rng.choice(ADJECTIVES).lower()}{rng.choice(TOPICS).lower()}{n}" if vendor else f"customer{n}"
        users.append((uuid.UUID(int=rng.getrandbits(128)).hex, name, f"{name}@bench.test", "vendor" if vendor else
                      "user", vendor, now - timedelta(days=rng.uniform(0, 900))))
    categories = [(i + 1, slug, name, emoji, f"{name} agents", i) for i, (slug, name, emoji) in enumerate(CATEGORIES)]
    agents, tags = [], []
    for _ in range(spec.agents):
        agent_id = uuid.UUID(int=rng.getrandbits(128)).hex
        topic = rng.choice(TOPICS)
        name = f"{rng.choice(ADJECTIVES)} {topic} {rng.choice(ROLES)}"
        short = f"{rng.choice(VERBS).capitalize()} your {topic.lower()} {rng.choice(OBJECTS)} {rng.choice(QUALIFIERS)}"
        description = " ".join(_sentence(rng) for _ in range(rng.randint(3, 7)))
        roll = rng.random()
        status = "approved" if roll < 0.90 else "pending" if roll < 0.96 else "rejected"
        created = now - timedelta(days=rng.uniform(0, 730))
        reviews = int(rng.paretovariate(1.2)) - 1 if rng.random() < 0.8 else 0
        reviews = min(reviews, 5_000)
        mean = rng.uniform(2.0, 5.0)
        rating_sum = min(5 * reviews, max(reviews, round(mean * reviews)))
        agents.append((
            agent_id, rng.choice(users[: spec.vendors])[0], rng.randint(1, len(CATEGORIES)) if rng.random() < 0.97
            else None, name, short[:500], description, rng.choice(PRICES), None, None, status,
            "Needs a clearer description" if status == "rejected" else None, rng.random() < 0.005, rating_sum,
            reviews, rating_sum / reviews if reviews else 0.0, int(rng.paretovariate(1.1)) - 1, rng.randint(0, 40),
            created, created + timedelta(days=rng.uniform(0, 30)), created if status != "pending" else None,
            now if rng.random() < 0.01 else None,
        ))
        chosen = dict.fromkeys(rng.sample(TAGS[:12], 1) + rng.sample(TAGS, rng.randint(0, 4)))
        tags.extend((agent_id, tag, position) for position, tag in enumerate(chosen))
    return users, categories, agents, tags


USER_COLS = "id, username, email, role, is_vendor_approved, created_at"
CATEGORY_COLS = "id, slug, name, emoji, description, sort_order"
AGENT_COLS = ("id, vendor_id, category_id, name, short_description, description, price_cents, image_url, demo_url, "
              "status, rejection_reason, is_featured, rating_sum, review_count, avg_rating, sales_count, "
              "favorites_count, created_at, updated_at, reviewed_at, deleted_at")
TAG_COLS = "agent_id, tag, position"
USER_DEFAULTS = "totp_enabled, stripe_charges_enabled, stripe_payouts_enabled, updated_at"


def _engine(url: str) -> Engine:
    from marketplace.db import build_engine

    return build_engine(url)


def _reset_and_migrate(url: str) -> None:
    from marketplace import migrate

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(parsed.database or "")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        engine = _engine(url)
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        engine.dispose()
    engine = _engine(url)
    migrate.upgrade(engine)
    engine.dispose()


def _seed_postgres(url: str, rows: tuple[list, list, list, list]) -> None:
    import psycopg

    users, categories, agents, tags = rows
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo) as conn, conn.cursor() as cur:
        # Load with triggers off, then build the search index and the listing counts in one pass each.
        cur.execute("SET session_replication_role = replica")
        now = datetime.now(UTC)
        with cur.copy(f"COPY users ({USER_COLS}, {USER_DEFAULTS}) FROM STDIN") as copy:
            for row in users:
                copy.write_row((*row, False, False, False, now))
        with cur.copy(f"COPY categories ({CATEGORY_COLS}) FROM STDIN") as copy:
            for row in categories:
                copy.write_row(row)
        cur.execute("SELECT setval(pg_get_serial_sequence('categories', 'id'), (SELECT max(id) FROM categories))")
        with cur.copy(f"COPY agents ({AGENT_COLS}) FROM STDIN") as copy:
            for row in agents:
                copy.write_row(row)
        with cur.copy(f"COPY agent_tags ({TAG_COLS}) FROM STDIN") as copy:
            for row in tags:
                copy.write_row(row)
        cur.execute("SET session_replication_role = origin")
        conn.commit()
    from marketplace.services import catalog
    from marketplace.services.catalog import search

    engine = _engine(url)
    with engine.begin() as connection:
        search.rebuild_index(connection)
        catalog.rebuild_listing_counts(connection)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql("VACUUM ANALYZE")
    engine.dispose()


def _sqlite_time(value: datetime) -> str:
    """The text SQLAlchemy stores for an aware UTC datetime on SQLite."""
    return f"{value.astimezone(UTC):%Y-%m-%d %H:%M:%S.%f}"


def _seed_sqlite(url: str, rows: tuple[list, list, list, list]) -> None:
    import sqlite3

    users, categories, agents, tags = rows
    conn = sqlite3.connect(make_url(url).database or "")
    try:
        # Tags go in before their agents (foreign keys off for the load), so each agent's search
        # document is written once, complete, by the agents insert trigger.
        conn.execute("PRAGMA foreign_keys=OFF")
        conn.execute("PRAGMA journal_mode=WAL")
        now = _sqlite_time(datetime.now(UTC))
        with conn:
            conn.executemany(
                f"INSERT INTO users ({USER_COLS}, {USER_DEFAULTS}) VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0, ?)",
                [(*r[:5], _sqlite_time(r[5]), now) for r in users],
            )
            conn.executemany(f"INSERT INTO categories ({CATEGORY_COLS}) VALUES (?, ?, ?, ?, ?, ?)", categories)
            conn.executemany(f"INSERT INTO agent_tags ({TAG_COLS}) VALUES (?, ?, ?)", tags)
            conn.executemany(
                f"INSERT INTO agents ({AGENT_COLS}) VALUES ({', '.join('?' * 21)})",
                [tuple(_sqlite_time(v) if isinstance(v, datetime) else v for v in r) for r in agents],
            )
        conn.execute("ANALYZE")
        conn.execute("PRAGMA optimize")
    finally:
        conn.close()


def seed(url: str, spec: Seed) -> None:
    started = time.perf_counter()
    _reset_and_migrate(url)
    rows = _generate(spec)
    if make_url(url).get_backend_name() == "sqlite":
        _seed_sqlite(url, rows)
    else:
        _seed_postgres(url, rows)
    print(f"  seeded {len(rows[2]):,} agents, {len(rows[3]):,} tags, {len(rows[0]):,} users "
          f"in {time.perf_counter() - started:.1f} s")


# ---- cases -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    kind: str  # get | list | search | ceiling


# `{agent}`: the live agent with the most reviews; `{agents}`: a wrk script rotating over 1,000 live agents.
CASES = [
    Case("agent by id", "/api/agents/{agent}", "get"),
    Case("agent by id (1,000 ids)", "/api/agents/{agents}", "get"),
    Case("reviews", "/api/agents/{agent}/reviews", "get"),
    Case("categories", "/api/categories", "get"),
    Case("stats", "/api/stats", "get"),
    Case("default (newest)", "/api/agents", "list"),
    Case("category", "/api/agents?category=data-analysis", "list"),
    Case("price + rating", "/api/agents?price=10-50&rating=4%2B", "list"),
    Case("sort=popularity", "/api/agents?sort=popularity", "list"),
    Case("sort=rating", "/api/agents?sort=rating", "list"),
    Case("sort=newest", "/api/agents?sort=newest", "list"),
    Case("sort=price-low", "/api/agents?sort=price-low", "list"),
    Case("sort=price-high", "/api/agents?sort=price-high", "list"),
    Case("search 'invoice assistant'", "/api/agents?search=invoice%20assistant", "search"),
    Case("search 'kubernetes'", "/api/agents?search=kubernetes", "search"),
    Case("search 'emails' (common)", "/api/agents?search=emails", "search"),
    # Typos (one edit away from the vocabulary): corrected to the words they miss, found after any exact match.
    Case("typo search 'invoce'", "/api/agents?search=invoce", "search"),
    Case("typo search 'kubernets'", "/api/agents?search=kubernets", "search"),
    Case("typo search 'emials' (common)", "/api/agents?search=emials", "search"),
    Case("typo search 'invoce assistnt'", "/api/agents?search=invoce%20assistnt", "search"),
    Case("typo search 'invoce assitant' (known last word)", "/api/agents?search=invoce%20assitant", "search"),
    Case("trivial /ping", "/ping", "ceiling"),
]


def _params(path: str) -> dict[str, str]:
    from urllib.parse import parse_qsl, urlsplit

    return dict(parse_qsl(urlsplit(path).query))


# ---- in-process search timings ---------------------------------------------------------------------


def service_timings(url: str, runs: int, only: str | None) -> list[str]:
    """Each search case's listing call in this process (`catalog.list_agents`, caches off): wall and CPU p50/p99
    over `runs` calls. CPU time is what a busy shared host changes least; wall adds the database's own time."""
    from marketplace import db
    from marketplace.services import catalog
    from marketplace.services.catalog import listing_cache

    engine = _engine(url)
    db.set_engine(engine)
    listing_cache.cache.capacity = 0
    words = only.split(",") if only else None
    lines = ["| case | matches | wall p50 ms | wall p99 ms | CPU p50 ms | CPU p99 ms | load |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for case in CASES:
        if case.kind != "search" or (words and not any(w in case.name for w in words)):
            continue
        params = _params(case.path)
        total = catalog.list_agents(**params).total  # warm
        wall, cpu = [], []
        for _ in range(runs):
            started, started_cpu = time.perf_counter(), time.process_time()
            catalog.list_agents(**params)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
        wall.sort()
        cpu.sort()
        p99 = min(len(wall) - 1, round(0.99 * (len(wall) - 1)))
        lines.append(f"| {case.name} | {total:,} | {statistics.median(wall):.2f} | {wall[p99]:.2f} | "
                     f"{statistics.median(cpu):.2f} | {cpu[p99]:.2f} | {os.getloadavg()[0]:.1f} |")
        print(lines[-1], flush=True)
    engine.dispose()
    return lines


# ---- EXPLAIN ---------------------------------------------------------------------------------------


def explain(url: str) -> None:
    """EXPLAIN ANALYZE every statement the listing service runs for each case."""
    from marketplace import db
    from marketplace.services import catalog
    from marketplace.services.catalog import listing_cache

    engine = _engine(url)
    db.set_engine(engine)
    listing_cache.cache.capacity = 0  # plans of the queries, not of cache hits
    captured: list[tuple[str, object]] = []

    def _capture(_conn, _cursor, statement, parameters, _context, _many) -> None:
        captured.append((statement, parameters))

    for case in CASES:
        if case.kind not in ("list", "search"):
            continue
        params = _params(case.path)
        catalog.list_agents(**params)  # warm
        captured.clear()
        event.listen(engine, "before_cursor_execute", _capture)
        started = time.perf_counter()
        catalog.list_agents(**params)
        elapsed = (time.perf_counter() - started) * 1000
        event.remove(engine, "before_cursor_execute", _capture)
        print(f"\n=== {case.name}: {case.path}  (service call {elapsed:.1f} ms)")
        for statement, parameters in captured:
            if not statement.lstrip().upper().startswith(("SELECT", "WITH")):
                continue
            prefix = "EXPLAIN (ANALYZE, BUFFERS) " if engine.dialect.name == "postgresql" else "EXPLAIN QUERY PLAN "
            with engine.connect() as conn:
                plan = conn.exec_driver_sql(prefix + statement, parameters).all()
            print("--", " ".join(statement.split())[:300])
            for row in plan:
                print("   ", row[-1] if engine.dialect.name == "sqlite" else row[0])
    engine.dispose()


# ---- server and load ---------------------------------------------------------------------------------


@contextlib.contextmanager
def server(url: str, port: int, log_path: Path, *, cache: bool = True, extra_env: dict[str, str] | None = None
           ) -> Iterator[str]:
    """Serve the app like `make run` (prod, single port) on loopback; stop it (its process group) after."""
    path = tool_path()
    if shutil.which("bun", path=path) is None:
        sys.exit("bun not found: run `make setup` (installs it into .tools) or put it on PATH")
    env = {
        **os.environ,
        "PATH": path,
        "REFLEX_USE_SYSTEM_BUN": "1",
        "REFLEX_TELEMETRY_ENABLED": "false",
        "REFLEX_CHECK_LATEST_VERSION": "false",
        "REFLEX_WEB_WORKDIR": ".web-bench",
        "DATABASE_URL": url,
        "PORT": str(port),
        "PUBLIC_URL": f"http://localhost:{port}",
        "CATALOG_CACHE_ENTRIES": os.environ.get("CATALOG_CACHE_ENTRIES", "512") if cache else "0",
    }
    env.update(extra_env or {})  # e.g. the Stripe stand-in and the mail catcher, as `make run` has them
    reflex = shutil.which("reflex", path=path) or "reflex"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    base = f"http://127.0.0.1:{port}"
    command = [reflex, "run", "--env", "prod", "--single-port", "--loglevel", "warning", "--backend-host", "127.0.0.1"]
    with running(command, env=env, log_path=log_path, ready_url=f"{base}/api/stats", timeout=600):
        yield base


# ---- the agents the GET cases and the purchases use -------------------------------------------------

STANDIN_SECRET_KEY = "sk_test_standin"
STANDIN_PUBLISHABLE_KEY = "pk_test_standin"
REVIEWS_ON_BENCH_AGENT = 50
ROTATING_IDS = 1_000


@dataclass
class Targets:
    agent: str  # the live agent with the most reviews (it gets REVIEWS_ON_BENCH_AGENT review rows)
    rotating_script: Path  # wrk script requesting ROTATING_IDS live agents in turn


def prepare_targets(url: str) -> Targets:
    """Pick the agents of the GET cases (and give the first real review rows: the seed has only totals)."""
    from marketplace.models import Review
    from marketplace.models.base import new_id, utcnow

    engine = _engine(url)
    live = "status = 'approved' AND deleted_at IS NULL"
    with engine.begin() as conn:
        agent = conn.exec_driver_sql(
            f"SELECT id FROM agents WHERE {live} ORDER BY review_count DESC, id LIMIT 1").scalar_one()
        have = conn.exec_driver_sql(f"SELECT count(*) FROM reviews WHERE agent_id = '{agent}'").scalar_one()
        if have < REVIEWS_ON_BENCH_AGENT:
            authors = conn.exec_driver_sql(
                "SELECT id FROM users WHERE role = 'user' AND id NOT IN (SELECT user_id FROM reviews "
                f"WHERE agent_id = '{agent}' AND user_id IS NOT NULL) ORDER BY username LIMIT "
                f"{REVIEWS_ON_BENCH_AGENT - have}").scalars().all()
            rng = random.Random(7)
            now = utcnow()
            conn.execute(Review.__table__.insert(), [
                {"id": new_id(), "agent_id": agent, "user_id": user_id, "rating": rng.randint(2, 5),
                 "comment": _sentence(rng), "is_verified_purchase": False,
                 "created_at": now - timedelta(hours=n), "updated_at": now - timedelta(hours=n)}
                for n, user_id in enumerate(authors)
            ])
        ids = conn.exec_driver_sql(
            f"SELECT id FROM agents WHERE {live} ORDER BY id LIMIT {ROTATING_IDS}").scalars().all()
    engine.dispose()
    script = ROOT / "data" / "bench" / "rotating-agents.lua"
    script.parent.mkdir(parents=True, exist_ok=True)
    paths = ",\n".join(f'  "/api/agents/{i}"' for i in ids)
    script.write_text(
        f"local paths = {{\n{paths}\n}}\nlocal n = 0\n"
        "request = function()\n  n = n + 1\n  return wrk.format(\"GET\", paths[(n % #paths) + 1])\nend\n"
    )
    return Targets(agent=agent, rotating_script=script)


def _resolve(case: Case, targets: Targets) -> tuple[str, Path | None]:
    """The URL path of a case, and the wrk script it needs (if any)."""
    if "{agents}" in case.path:
        return case.path.replace("{agents}", ""), targets.rotating_script
    return case.path.replace("{agent}", targets.agent), None


@dataclass
class Result:
    case: str
    path: str
    kind: str
    concurrency: int
    p50_ms: float
    p99_ms: float
    rps: float
    errors: int
    total: int | None
    load: float  # 1-minute load average of the machine after the run (the host is shared)


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(value: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", value.strip())
    if not match:
        raise ValueError(f"unexpected wrk latency {value!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def run_wrk(url: str, *, concurrency: int, duration: int, script: Path | None = None
            ) -> tuple[float, float, float, int]:
    threads = min(concurrency, 2)
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{concurrency}", f"-d{duration}s", "--latency", "--timeout", "5s",
         *(["-s", str(script)] if script else []), url],
        capture_output=True, text=True, check=True,
    ).stdout
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses:\s+(\d+)", out))
    errors += sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    return p50, p99, rps, errors


def _run_case(base: str, case: Case, concurrency: int, duration: int, total: int | None,
              targets: Targets | None = None) -> Result:
    path, script = _resolve(case, targets) if targets else (case.path, None)
    p50, p99, rps, errors = run_wrk(base + path, concurrency=concurrency, duration=duration, script=script)
    load = os.getloadavg()[0]
    print(f"  {case.name:<28} c={concurrency:<3} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  {rps:8.1f} req/s"
          f"  load {load:.1f}" + (f"  ERRORS {errors}" if errors else ""), flush=True)
    return Result(case.name, path, case.kind, concurrency, p50, p99, rps, errors, total, load)


def measure(base: str, *, duration: int, concurrencies: list[int], targets: Targets, only: str | None = None,
            kinds: tuple[str, ...] = ("get", "list", "search")) -> list[Result]:
    """Every case at every concurrency; the ceiling (/ping) runs first and last, as the host is shared."""
    ceiling = next(c for c in CASES if c.kind == "ceiling")
    cases = [c for c in CASES if c.kind in kinds
             and (not only or any(word in c.name for word in only.split(",")))]
    run_wrk(base + ceiling.path, concurrency=max(concurrencies), duration=3)  # warm the fresh server; not counted
    results = [_run_case(base, ceiling, n, duration, None) for n in concurrencies]
    for case in cases:
        total = None
        path, script = _resolve(case, targets)
        if script is None:
            for _ in range(20):  # warm caches and connections
                with urllib.request.urlopen(base + path, timeout=30) as response:
                    header = response.headers.get("X-Total-Count")
                    total = int(header) if header is not None else None
        else:
            run_wrk(base + path, concurrency=max(concurrencies), duration=2, script=script)  # warm; not counted
        results += [_run_case(base, case, n, duration, total, targets) for n in concurrencies]
    results += [_run_case(base, ceiling, n, duration, None) for n in concurrencies]
    return results


# ---- purchase completion against the Stripe stand-in ---------------------------------------------------


def _helper(args: list[str], health: str | None, log_path: Path) -> contextlib.AbstractContextManager[None]:
    """A helper process of `make run`, ready when `health` answers (or at once)."""
    return running([sys.executable, "-m", *args], env=dict(os.environ), log_path=log_path, ready_url=health,
                   timeout=60)


@contextlib.contextmanager
def payment_services(log_path: Path) -> Iterator[dict[str, str]]:
    """What `make run` starts next to the app without Stripe keys or SMTP: the Stripe stand-in and the mail
    catcher (receipts and sale notices are sent after each purchase). Yields the app's environment for them."""
    stripe_port, mail_port = free_port(), free_port()
    stripe_base = f"http://127.0.0.1:{stripe_port}"
    mailbox = log_path.with_suffix(".mailbox.jsonl")
    with _helper(["dev.stripe_standin", "--port", str(stripe_port), "--quiet"], f"{stripe_base}/_standin/health",
                 log_path.with_suffix(".standin.log")), \
            _helper(["dev.mail_catcher", "--port", str(mail_port), "--mailbox", str(mailbox)], None,
                    log_path.with_suffix(".mail.log")):
        yield {"STRIPE_API_BASE": stripe_base, "STRIPE_SECRET_KEY": STANDIN_SECRET_KEY,
               "STRIPE_PUBLISHABLE_KEY": STANDIN_PUBLISHABLE_KEY, "STRIPE_WEBHOOK_SECRET": "whsec_bench",
               "SMTP_URL": f"smtp://127.0.0.1:{mail_port}", "DEV_MAILBOX_FILE": str(mailbox)}


def measure_purchases(base: str, url: str, stripe_base: str, port: int, count: int) -> Result:
    """`count` paid purchases, one after the other, each by a different customer of an agent they do not own:
    checkout (`create-payment-intent`), the card confirmed at the stand-in as Stripe.js does, then the timed
    `POST /api/purchase/complete`. The first five are warm-ups."""
    import httpx
    from sqlmodel import Session, select

    from marketplace import db
    from marketplace.models import User
    from marketplace.services import auth

    engine = _engine(url)
    db.set_engine(engine)
    live = "status = 'approved' AND deleted_at IS NULL AND price_cents > 0"
    warm = 5
    with engine.connect() as conn:
        buyers = conn.exec_driver_sql(
            "SELECT id FROM users WHERE role = 'user' AND deleted_at IS NULL ORDER BY random() "
            f"LIMIT {count + warm}").scalars().all()
        agents = conn.exec_driver_sql(f"SELECT id FROM agents WHERE {live} ORDER BY random() LIMIT {count + warm}"
                                      ).scalars().all()
    origin = f"http://localhost:{port}"
    samples: list[float] = []
    errors = 0
    with Session(engine) as session:
        users = {u.id: u for u in session.exec(select(User).where(User.id.in_(buyers)))}
    with httpx.Client(base_url=base, headers={"Origin": origin}, timeout=30) as client:
        for n, (buyer, agent) in enumerate(zip(buyers, agents, strict=False)):
            token = auth.create_session(user=users[buyer])
            client.cookies.set("mp_session", token)
            intent = client.post("/api/purchase/create-payment-intent", json={
                "agentId": agent, "customerEmail": users[buyer].email, "customerName": "Bench",
                "isGuestCheckout": False})
            if intent.status_code != 200:
                errors += 1
                continue
            body = intent.json()
            intent_id = body["paymentIntentId"]
            confirmed = httpx.post(f"{stripe_base}/v1/payment_intents/{intent_id}/confirm", data={
                "key": STANDIN_PUBLISHABLE_KEY, "client_secret": body["clientSecret"],
                "payment_method_data[type]": "card", "payment_method_data[card][number]": "4242424242424242",
                "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034",
                "payment_method_data[card][cvc]": "123"})
            if confirmed.status_code != 200 or confirmed.json().get("status") != "succeeded":
                errors += 1
                continue
            started = time.perf_counter()
            done = client.post("/api/purchase/complete", json={
                "paymentIntentId": intent_id, "agentId": agent, "userId": buyer, "isGuestCheckout": False})
            elapsed = (time.perf_counter() - started) * 1000
            if done.status_code != 200:
                errors += 1
                print(f"  purchase {n}: {done.status_code} {done.text[:200]}")
                continue
            if n >= warm:
                samples.append(elapsed)
    engine.dispose()
    samples.sort()
    pick = (lambda q: samples[min(len(samples) - 1, int(q * len(samples)))]) if samples else (lambda _q: 0.0)
    p50, p99 = pick(0.50), pick(0.99)
    load = os.getloadavg()[0]
    print(f"  {'purchase completion':<28} n={len(samples):<3} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms"
          f"  load {load:.1f}" + (f"  ERRORS {errors}" if errors else ""), flush=True)
    return Result("purchase completion", "POST /api/purchase/complete", "purchase", 1, p50, p99, 0.0, errors,
                  len(samples), load)


def _verdict(r: Result, share: float, cached: bool) -> str:
    """PASS/FAIL against issue 12's budgets, or "" where no budget applies to this row."""
    if r.kind in ("get", "list", "search") and cached and r.concurrency == 16:
        ok = share >= THROUGHPUT_BUDGET and not r.errors
        return f"{'PASS' if ok else 'FAIL'} (>= {THROUGHPUT_BUDGET:.0%} of /ping)"
    if r.kind == "search" and not cached and r.concurrency == 1:
        ok = r.p99_ms < SEARCH_P99_BUDGET_MS and not r.errors
        return f"{'PASS' if ok else 'FAIL'} (p99 < {SEARCH_P99_BUDGET_MS:.0f} ms)"
    if r.kind == "purchase":
        ok = r.p99_ms < PURCHASE_P99_BUDGET_MS and not r.errors and bool(r.total)
        return f"{'PASS' if ok else 'FAIL'} (p99 < {PURCHASE_P99_BUDGET_MS:.0f} ms)"
    return ""


def report(label: str, results: list[Result], agents: int, *, cached: bool) -> tuple[str, bool]:
    """A markdown table; "% of /ping" compares with the mean of the ceiling runs at that concurrency."""
    runs: dict[int, list[float]] = {}
    for r in results:
        if r.kind == "ceiling":
            runs.setdefault(r.concurrency, []).append(r.rps)
    ceilings = {n: statistics.mean(v) for n, v in runs.items()}
    lines = [
        f"### {label}, {agents:,} agents",
        "",
        "| case | matches | c | p50 ms | p99 ms | req/s | % of /ping | budget | load |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    ok = True
    for r in results:
        share = r.rps / ceilings[r.concurrency] if ceilings.get(r.concurrency) and r.rps else 0.0
        verdict = _verdict(r, share, cached)
        ok = ok and not verdict.startswith("FAIL")
        if r.kind == "purchase":
            lines.append(f"| {r.case} ({r.total} sequential) |  | 1 | {r.p50_ms:.2f} | {r.p99_ms:.2f} |  |  | "
                         f"{verdict} | {r.load:.1f} |")
            continue
        lines.append(
            f"| {r.case} | {'' if r.total is None else f'{r.total:,}'} | {r.concurrency} | {r.p50_ms:.2f} | "
            f"{r.p99_ms:.2f} | {r.rps:.0f} | {share:.0%} | {verdict}{f' ({r.errors} errors)' if r.errors else ''} | "
            f"{r.load:.1f} |"
        )
    return "\n".join(lines), ok


# ---- main ------------------------------------------------------------------------------------------


def _pg_url(args: argparse.Namespace) -> str:
    url = args.pg_url or os.environ.get("BENCH_DATABASE_URL") or DEFAULT_PG_URL
    parsed = make_url(url)
    if parsed.database in (None, "", "test", "postgres"):
        sys.exit(f"refusing to wipe the database {parsed.database!r}; give a dedicated one with --pg-url")
    if url == DEFAULT_PG_URL:
        import psycopg

        admin = parsed.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
        with psycopg.connect(admin, autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (parsed.database,)).fetchone():
                conn.execute(f'CREATE DATABASE "{parsed.database}"')
    return url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg-url", help="PostgreSQL URL to wipe and load (default: BENCH_DATABASE_URL or "
                                         f"{DEFAULT_PG_URL})")
    parser.add_argument("--sqlite-path", default=str(DEFAULT_SQLITE_PATH))
    parser.add_argument("--only", choices=["postgresql", "sqlite"])
    parser.add_argument("--agents", type=int, default=100_000)
    parser.add_argument("--duration", type=int, default=10, help="seconds per case and concurrency")
    parser.add_argument("--concurrency", default="1,16")
    parser.add_argument("--port", type=int, default=3311)
    parser.add_argument("--skip-seed", action="store_true")
    parser.add_argument("--explain", action="store_true", help="print query plans instead of running the server")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--cases", help="comma-separated words; run only cases whose name has one (plus /ping)")
    parser.add_argument("--cache", choices=["on", "off", "both"], default="both",
                        help="caches of the app: on (how `make run` serves; every GET at each concurrency, then "
                             "the purchases) and/or off (the searches at concurrency 1: the queries' own p99)")
    parser.add_argument("--purchases", type=int, default=200, help="purchase completions to time (0: none)")
    parser.add_argument("--service-runs", type=int, default=0,
                        help="time each search case's listing call in this process this many times (no server)")
    args = parser.parse_args()

    if not args.explain and not args.service_runs and shutil.which("wrk") is None:
        sys.exit("wrk is not installed: on Debian/Ubuntu run `apt-get install -y wrk`")
    backends = {
        "postgresql": lambda: _pg_url(args),
        "sqlite": lambda: f"sqlite:///{Path(args.sqlite_path).resolve()}",
    }
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    all_ok, outputs, raw = True, [], {}
    for backend, make in backends.items():
        if args.only and backend != args.only:
            continue
        url = make()
        print(f"== {backend}")
        if not args.skip_seed:
            seed(url, Seed(agents=args.agents))
        if args.explain:
            explain(url)
            continue
        if args.service_runs:
            outputs.append(f"{backend}, in process\n" + "\n".join(service_timings(url, args.service_runs,
                                                                                   args.cases)))
            continue
        targets = prepare_targets(url)
        for cache in {"on": [True], "off": [False], "both": [True, False]}[args.cache]:
            label = f"{backend}, caches {'on' if cache else 'off'}"
            print(f"-- {label}")
            log = ROOT / "data" / "bench" / f"server-{backend}-cache-{'on' if cache else 'off'}.log"
            with contextlib.ExitStack() as stack:
                buying = cache and args.purchases > 0
                extra = stack.enter_context(payment_services(log)) if buying else {}
                base = stack.enter_context(server(url, args.port, log, cache=cache, extra_env=extra))
                if cache:
                    results = measure(base, duration=args.duration, concurrencies=concurrencies, targets=targets,
                                      only=args.cases)
                else:  # uncached: the searches' own latency, one request at a time
                    results = measure(base, duration=args.duration, concurrencies=[1], targets=targets,
                                      only=args.cases, kinds=("search",))
                if buying:
                    results.append(measure_purchases(base, url, extra["STRIPE_API_BASE"], args.port, args.purchases))
            table, ok = report(label, results, args.agents, cached=cache)
            all_ok = all_ok and ok
            outputs.append(table)
            raw[label] = [asdict(r) for r in results]
    if outputs:
        print("\n" + "\n\n".join(outputs))
    if raw:
        print("\nissue 12 budgets:", "met" if all_ok else "NOT met")
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
