"""Benchmark `GET /api/agents` with 100,000 agents, on PostgreSQL and SQLite, through the real server.

What it does, per database:
1. wipes the target database, migrates it and bulk-loads N agents (COPY on PostgreSQL, executemany on
   SQLite) with vendors, categories, tags, varied prices, ratings, sales, statuses and dates;
2. starts the app the way `make run` does (`reflex run --env prod --single-port`, loopback only);
3. drives each case with `wrk` at concurrency 1 and 16 (bounded runs) and reports p50, p99 and
   requests/second, next to the same server's `/ping` (a trivial JSON endpoint; run first and last,
   as the host is shared) as the ceiling;
4. does it twice: with the app's listing cache on (how `make run` serves) and off (every request
   runs the queries), and checks the budgets on the first: p99 < 50 ms at concurrency 1,
   list/search throughput >= 30% of `/ping`'s.

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.catalog                       # both databases, 100k agents, 10 s per case
    python -m benchmarks.catalog --only postgresql --duration 5
    python -m benchmarks.catalog --skip-seed           # reuse the data of the previous run
    python -m benchmarks.catalog --cache off --cases search   # only the queries, only the searches
    python -m benchmarks.catalog --explain --only postgresql --skip-seed   # EXPLAIN ANALYZE, no server

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
import signal
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

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # also runnable as `python benchmarks/catalog.py`
    sys.path.insert(0, str(ROOT))
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/catalog_bench"
DEFAULT_SQLITE_PATH = ROOT / "data" / "bench" / "catalog.db"

P99_BUDGET_MS = 50.0
THROUGHPUT_BUDGET = 0.30

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
    kind: str  # list | search | ceiling


CASES = [
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
    Case("trivial /ping", "/ping", "ceiling"),
]


def _params(path: str) -> dict[str, str]:
    from urllib.parse import parse_qsl, urlsplit

    return dict(parse_qsl(urlsplit(path).query))


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
        if case.kind == "ceiling":
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


def _tool_path() -> str:
    extra = [str(Path(sys.executable).parent), str(ROOT / ".venv" / "bin"), str(ROOT / ".tools" / "node_modules" /
                                                                              ".bin")]
    return os.pathsep.join([*extra, os.environ.get("PATH", "")])


@contextlib.contextmanager
def server(url: str, port: int, log_path: Path, *, cache: bool = True) -> Iterator[str]:
    """Serve the app like `make run` (prod, single port) on loopback; stop it (its process group) after."""
    path = _tool_path()
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
    reflex = shutil.which("reflex", path=path) or "reflex"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    # A build rewrites reflex.lock/ from the bench web folder; put the project's files back afterwards.
    lock_files = {p: p.read_bytes() for p in (ROOT / "reflex.lock").glob("*") if p.is_file()}
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [reflex, "run", "--env", "prod", "--single-port", "--loglevel", "warning", "--backend-host", "127.0.0.1"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 600
            while True:
                if process.poll() is not None:
                    sys.exit(f"server exited ({process.returncode}); see {log_path}")
                with contextlib.suppress(OSError), urllib.request.urlopen(f"{base}/api/stats", timeout=2) as response:
                    if response.status == 200:
                        break
                if time.monotonic() > deadline:
                    sys.exit(f"server did not answer in time; see {log_path}")
                time.sleep(1)
            yield base
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            for lock_path, content in lock_files.items():
                lock_path.write_bytes(content)


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


def run_wrk(url: str, *, concurrency: int, duration: int) -> tuple[float, float, float, int]:
    threads = min(concurrency, 2)
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{concurrency}", f"-d{duration}s", "--latency", "--timeout", "5s", url],
        capture_output=True, text=True, check=True,
    ).stdout
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses:\s+(\d+)", out))
    errors += sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    return p50, p99, rps, errors


def _run_case(base: str, case: Case, concurrency: int, duration: int, total: int | None) -> Result:
    p50, p99, rps, errors = run_wrk(base + case.path, concurrency=concurrency, duration=duration)
    load = os.getloadavg()[0]
    print(f"  {case.name:<28} c={concurrency:<3} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  {rps:8.1f} req/s"
          f"  load {load:.1f}" + (f"  ERRORS {errors}" if errors else ""), flush=True)
    return Result(case.name, case.path, case.kind, concurrency, p50, p99, rps, errors, total, load)


def measure(base: str, *, duration: int, concurrencies: list[int], only: str | None = None) -> list[Result]:
    """Every case at every concurrency; the ceiling (/ping) runs first and last, as the host is shared."""
    ceiling = next(c for c in CASES if c.kind == "ceiling")
    cases = [c for c in CASES if c.kind != "ceiling"
             and (not only or any(word in c.name for word in only.split(",")))]
    run_wrk(base + ceiling.path, concurrency=max(concurrencies), duration=3)  # warm the fresh server; not counted
    results = [_run_case(base, ceiling, n, duration, None) for n in concurrencies]
    for case in cases:
        total = None
        for _ in range(20):  # warm caches and connections
            with urllib.request.urlopen(base + case.path, timeout=30) as response:
                header = response.headers.get("X-Total-Count")
                total = int(header) if header is not None else None
        results += [_run_case(base, case, n, duration, total) for n in concurrencies]
    results += [_run_case(base, ceiling, n, duration, None) for n in concurrencies]
    return results


def report(backend: str, results: list[Result], agents: int) -> tuple[str, bool]:
    """A markdown table; "% of /ping" compares with the mean of the ceiling runs at that concurrency."""
    runs: dict[int, list[float]] = {}
    for r in results:
        if r.kind == "ceiling":
            runs.setdefault(r.concurrency, []).append(r.rps)
    ceilings = {n: statistics.mean(v) for n, v in runs.items()}
    lines = [
        f"### {backend}, {agents:,} agents",
        "",
        "| case | matches | c | p50 ms | p99 ms | req/s | % of /ping | load |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    ok = True
    for r in results:
        share = r.rps / ceilings[r.concurrency] if ceilings.get(r.concurrency) else 0.0
        flags = []
        if r.kind != "ceiling":
            if r.concurrency == 1 and r.p99_ms >= P99_BUDGET_MS:
                flags.append("p99 over budget")
            if share < THROUGHPUT_BUDGET:
                flags.append("throughput under budget")
        if r.errors:
            flags.append(f"{r.errors} errors")
        ok = ok and not flags
        lines.append(
            f"| {r.case} | {'' if r.total is None else f'{r.total:,}'} | {r.concurrency} | {r.p50_ms:.2f} | "
            f"{r.p99_ms:.2f} | {r.rps:.0f} | {share:.0%}{' ⚠ ' + ', '.join(flags) if flags else ''} | {r.load:.1f} |"
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
                        help="listing cache of the app (on is how `make run` serves; off measures the queries)")
    args = parser.parse_args()

    if not args.explain and shutil.which("wrk") is None:
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
        for cache in {"on": [True], "off": [False], "both": [True, False]}[args.cache]:
            label = f"{backend}, listing cache {'on' if cache else 'off'}"
            print(f"-- {label}")
            log = ROOT / "data" / "bench" / f"server-{backend}-cache-{'on' if cache else 'off'}.log"
            with server(url, args.port, log, cache=cache) as base:
                results = measure(base, duration=args.duration, concurrencies=concurrencies, only=args.cases)
            table, ok = report(label, results, args.agents)
            if backend == "postgresql" and cache:
                all_ok = all_ok and ok  # the budgets are for PostgreSQL as `make run` serves it
            outputs.append(table)
            raw[label] = [asdict(r) for r in results]
    if outputs:
        print("\n" + "\n\n".join(outputs))
        medians = {b: statistics.median(r["p99_ms"] for r in rs if r["kind"] != "ceiling") for b, rs in raw.items()}
        print("\nmedian p99 of list/search cases:", {b: f"{m:.2f} ms" for b, m in medians.items()})
        if any(label.startswith("postgresql, listing cache on") for label in raw):
            print("PostgreSQL budgets (listing cache on, as `make run` serves):", "met" if all_ok else "NOT met")
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=2))


if __name__ == "__main__":
    main()
