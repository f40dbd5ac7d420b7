"""Benchmark the public license API: `POST /api/licenses/validate` at concurrency 16 next to `/ping`, with 100,000
keys, on SQLite and PostgreSQL, through the real server.

What it does, per database:
1. wipes the target database, migrates it and bulk-loads N buyers, each with a one-time purchase (its order and
   its license key) of one of 50 agents;
2. starts the app the way `make run` does (`benchmarks.catalog.server`: `reflex run --env prod --single-port`);
3. drives `/ping` (the ceiling, run first and last, as the host is shared), then `validate` with `wrk` at
   concurrency 16, each request naming another of 10,000 keys (the lookup by hash, the status rule, and both
   rate limits, per address and per key, counted as in production: the per-address limit is raised so that the
   one benchmarking address is never refused);
4. reports p50, p99, requests/second and validate's share of `/ping`; the budget is >= 50%.

Usage (from the project root, with the project's virtualenv; not part of `make test`):
    python -m benchmarks.licenses                     # both databases, 100,000 keys, 10 s per run
    python -m benchmarks.licenses --only sqlite --duration 5
    python -m benchmarks.licenses --skip-seed         # reuse the data of the previous run

The PostgreSQL URL comes from --pg-url, else BENCH_LICENSES_DATABASE_URL, else a local `bench_licenses` database
(created when missing; `benchmarks.vendor._ensure_database`). It is wiped: never point it at data you want to
keep. Needs `wrk` (Debian: `apt-get install -y wrk`) and bun, as `benchmarks/catalog.py` does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from sqlalchemy import insert, text

if __package__ in (None, ""):  # also runnable as `python benchmarks/licenses.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.catalog import _engine, _reset_and_migrate, run_wrk, server
from benchmarks.server import ROOT
from benchmarks.vendor import _ensure_database

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/bench_licenses"
DEFAULT_SQLITE_PATH = ROOT / "data" / "bench" / "licenses.db"
BUDGET = 0.50  # validate's req/s over /ping's, at concurrency 16
CONCURRENCY = 16
AGENTS = 50
ROTATING_KEYS = 10_000
BATCH = 5_000


def _id() -> str:
    return uuid.uuid4().hex


def seed(url: str, count: int) -> list[str]:
    """`count` buyers with one licence each (order, purchase, key); returns the keys."""
    from marketplace.models import Agent, LicenseKey, Order, Purchase, User
    from marketplace.services.licenses import keys

    started = time.perf_counter()
    _reset_and_migrate(url)
    engine = _engine(url)
    now = datetime.now(UTC)
    vendor = {"id": _id(), "username": "bench-vendor", "email": "vendor@bench.test", "password_hash": "x",
              "role": "vendor", "is_vendor_approved": True, "created_at": now, "updated_at": now}
    agents = [{"id": _id(), "name": f"Agent {n}", "short_description": "s", "description": "d",
               "vendor_id": vendor["id"], "status": "approved", "price_cents": 1000, "pricing_model": "one_time",
               "activation_limit": 3, "created_at": now, "updated_at": now} for n in range(AGENTS)]
    with engine.begin() as conn:
        conn.execute(insert(User), [vendor])
        conn.execute(insert(Agent), agents)
    made: list[str] = []
    for start in range(0, count, BATCH):
        users, orders, purchases, licence_keys = [], [], [], []
        for n in range(start, min(start + BATCH, count)):
            user_id, order_id, purchase_id = _id(), _id(), _id()
            agent = agents[n % AGENTS]
            key = keys.new_key()
            made.append(key)
            users.append({"id": user_id, "username": f"buyer{n}", "email": f"buyer{n}@bench.test",
                          "password_hash": "x", "role": "user", "created_at": now, "updated_at": now})
            orders.append({"id": order_id, "user_id": user_id, "agent_id": agent["id"], "vendor_id": vendor["id"],
                           "agent_name": agent["name"], "customer_email": f"buyer{n}@bench.test",
                           "status": "completed", "currency": "usd", "total_amount_cents": 1000,
                           "original_price_usd_cents": 1000, "exchange_rate": Decimal(1),
                           "commission_rate": Decimal(20), "vendor_amount_cents": 800, "platform_fee_cents": 200,
                           "payment_intent_id": f"pi_bench_{n}", "created_at": now})
            purchases.append({"id": purchase_id, "user_id": user_id, "agent_id": agent["id"], "order_id": order_id,
                              "purchase_price_cents": 1000, "currency": "usd", "purchased_at": now})
            licence_keys.append({"id": _id(), "purchase_id": purchase_id, "agent_id": agent["id"],
                                 "user_id": user_id, "key": key, "key_hash": keys.key_hash(key),
                                 "activation_usage": 0, "created_at": now})
        with engine.begin() as conn:
            conn.execute(insert(User), users)
            conn.execute(insert(Order), orders)
            conn.execute(insert(Purchase), purchases)
            conn.execute(insert(LicenseKey), licence_keys)
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")
    else:
        with engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE")
    engine.dispose()
    print(f"  seeded {count:,} licence keys (buyers, orders, purchases) in {time.perf_counter() - started:.1f} s")
    return made


def stored_keys(url: str) -> list[str]:
    engine = _engine(url)
    with engine.connect() as conn:
        found = list(conn.execute(text(f"SELECT key FROM license_keys ORDER BY id LIMIT {ROTATING_KEYS}")).scalars())
    engine.dispose()
    return found


def validate_script(keys: list[str]) -> Path:
    """A wrk script posting `{"licenseKey": ...}` with each of `keys` in turn."""
    script = ROOT / "data" / "bench" / "validate-keys.lua"
    script.parent.mkdir(parents=True, exist_ok=True)
    bodies = ",\n".join(f"  '{json.dumps({'licenseKey': key})}'" for key in keys)
    script.write_text(
        f"local bodies = {{\n{bodies}\n}}\nlocal n = 0\n"
        'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
        "request = function()\n  n = n + 1\n"
        "  return wrk.format(nil, \"/api/licenses/validate\", nil, bodies[(n % #bodies) + 1])\nend\n"
    )
    return script


def _server_session(port: int) -> int | None:
    """The session of the process listening on `port` (the server runs in a session of its own), from /proc."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":  # LISTEN
                    inodes.add(f"socket:[{fields[9]}]")
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        with contextlib.suppress(OSError):
            if any(os.readlink(fd) in inodes for fd in fd_dir.iterdir()):
                return int((fd_dir.parent / "stat").read_text().rsplit(")", 1)[1].split()[3])
    return None


def _session_cpu(session: int | None) -> float:
    """CPU seconds (user + system) of every process in `session`: the app's own cost, whatever else the host
    runs; Linux only (0 elsewhere)."""
    if session is None:
        return 0.0
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == session:
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def measure(base: str, script: Path, duration: int) -> dict[str, tuple[float, float, float, int, float]]:
    """/ping, validate, /ping again (the machine is shared: the ceiling is their mean), each with the server's CPU
    per request (all its processes, from /proc: robust to the host's load, unlike req/s)."""
    run_wrk(base + "/ping", concurrency=CONCURRENCY, duration=3)  # warm the fresh server; not counted
    run_wrk(base + "/api/licenses/validate", concurrency=CONCURRENCY, duration=3, script=script)  # warm
    session = _server_session(int(base.rsplit(":", 1)[1]))
    results = {}
    for name, path, lua in (("/ping (first)", "/ping", None), ("validate", "/api/licenses/validate", script),
                            ("/ping (last)", "/ping", None)):
        cpu = _session_cpu(session)
        p50, p99, rps, errors = run_wrk(base + path, concurrency=CONCURRENCY, duration=duration, script=lua)
        per_request = (_session_cpu(session) - cpu) / max(1.0, rps * duration) * 1000
        results[name] = (p50, p99, rps, errors, per_request)
        print(f"  {name:<14} c={CONCURRENCY} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  {rps:8.1f} req/s  "
              f"server CPU {per_request:.2f} ms/request  load {os.getloadavg()[0]:.1f}"
              + (f"  ERRORS {errors}" if errors else ""), flush=True)
    return results


def report(label: str, results: dict[str, tuple[float, float, float, int, float]], count: int
           ) -> tuple[str, bool]:
    ceiling = statistics.mean(results[name][2] for name in ("/ping (first)", "/ping (last)"))
    lines = [f"### {label}, {count:,} keys", "",
             "| case | c | p50 ms | p99 ms | req/s | % of /ping | server CPU ms/request |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, (p50, p99, rps, errors, cpu) in results.items():
        lines.append(f"| {name} | {CONCURRENCY} | {p50:.2f} | {p99:.2f} | {rps:.0f} | {rps / ceiling:.0%}"
                     f"{f' ({errors} errors)' if errors else ''} | {cpu:.2f} |")
    p50, p99, rps, errors, _cpu = results["validate"]
    ok = rps / ceiling >= BUDGET and not errors
    lines.append(f"\nvalidate at c={CONCURRENCY}: {rps / ceiling:.0%} of /ping: "
                 f"{'PASS' if ok else 'FAIL'} (>= {BUDGET:.0%})")
    return "\n".join(lines), ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg-url", help=f"PostgreSQL URL to wipe and load (default: BENCH_LICENSES_DATABASE_URL "
                                         f"or {DEFAULT_PG_URL})")
    parser.add_argument("--sqlite-path", default=str(DEFAULT_SQLITE_PATH))
    parser.add_argument("--only", choices=["postgresql", "sqlite"])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--duration", type=int, default=10, help="seconds per run")
    parser.add_argument("--port", type=int, default=3312)
    parser.add_argument("--skip-seed", action="store_true")
    args = parser.parse_args()

    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: on Debian/Ubuntu run `apt-get install -y wrk`")
    backends = {
        "sqlite": lambda: f"sqlite:///{Path(args.sqlite_path).resolve()}",
        "postgresql": lambda: _ensure_database(args.pg_url or os.environ.get("BENCH_LICENSES_DATABASE_URL")
                                               or DEFAULT_PG_URL),
    }
    outputs, all_ok = [], True
    for backend, make in backends.items():
        if args.only and backend != args.only:
            continue
        url = make()
        print(f"== {backend}")
        keys = seed(url, args.keys)[:ROTATING_KEYS] if not args.skip_seed else stored_keys(url)
        script = validate_script(keys)
        log = ROOT / "data" / "bench" / f"server-licenses-{backend}.log"
        # Counted as in production, but never refused: every request comes from this one address.
        extra = {"RATE_LIMIT_LICENSE_PER_ADDRESS": "100000000"}
        with server(url, args.port, log, extra_env=extra) as base:
            results = measure(base, script, args.duration)
        table, ok = report(backend, results, args.keys)
        outputs.append(table)
        all_ok = all_ok and ok
    if outputs:
        print("\n" + "\n\n".join(outputs))
        print("\nbudget (validate >= 50% of /ping at concurrency 16):", "met" if all_ok else "NOT met")


if __name__ == "__main__":
    main()
