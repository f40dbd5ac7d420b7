"""Load test: 200 simulated shoppers against 1 and then 3 app workers on PostgreSQL + Redis (locust, headless).

Per worker count it:
1. wipes its PostgreSQL database and its Redis database, and serves the app the way `make run` does
   (`scripts/run.sh`: migrations, demo data, the Stripe stand-in, the mail catcher, `reflex run --env prod
   --single-port`) with `REDIS_URL` set and `GRANIAN_WORKERS` workers, on a free loopback port;
2. signs USERS customers in (sessions written to the database, see make_sessions) and runs locust headless
   (benchmarks/locustfile.py): the users start at SPAWN_RATE a second, each with its session, and browse,
   search, open pages, view agents and buy through the stand-in, for DURATION;
3. reads locust's CSV and prints, per request kind, requests, failures, p50, p95 and requests/second, then
   how total throughput and p95 changed with the workers.

Locust is not one of the app's requirements: it is pinned in benchmarks/requirements-load.txt and installed
by this script, the first time, into its own virtualenv (`.venv-bench`).

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.load                                  # 200 users, 1 then 3 workers, 60 s each
    python -m benchmarks.load --workers 1,2,3 --duration 120 --json data/bench/load.json

The PostgreSQL URL comes from --pg-url, else BENCH_DATABASE_URL, else a local `load_bench` database (created
if missing); it is wiped, and `test` and `postgres` are refused. Redis: --redis-url (default database 8 of the
local server; it is flushed, database 0 is refused).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit

if __package__ in (None, ""):  # also runnable as `python benchmarks/load.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.server import ROOT, free_port, running, tool_path

BENCH_VENV = ROOT / ".venv-bench"
REQUIREMENTS = ROOT / "benchmarks" / "requirements-load.txt"
LOCUSTFILE = ROOT / "benchmarks" / "locustfile.py"
OUT = ROOT / "data" / "bench"
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/load_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/8"
STANDIN_SECRET = "sk_test_standin"  # what scripts/run.sh gives the stand-in when no Stripe keys are set


def ensure_locust() -> Path:
    """The benchmark's own virtualenv with the pinned locust, (re)installed when the pins change."""
    marker = BENCH_VENV / ".requirements.installed"
    if not (BENCH_VENV / "bin" / "python").exists():
        print("==> creating .venv-bench for locust", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
    if not marker.exists() or marker.read_bytes() != REQUIREMENTS.read_bytes():
        print("==> installing benchmarks/requirements-load.txt into .venv-bench", flush=True)
        subprocess.run([str(BENCH_VENV / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", "-r",
                        str(REQUIREMENTS)], check=True)
        shutil.copyfile(REQUIREMENTS, marker)
    return BENCH_VENV / "bin" / "locust"


def reset_database(url: str) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    parsed = make_url(url.replace("postgresql://", "postgresql+psycopg://", 1))
    if parsed.database in (None, "", "test", "postgres"):
        sys.exit(f"refusing to wipe the database {parsed.database!r}: give the benchmark its own")
    admin = create_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{parsed.database}"'))
    admin.dispose()


def reset_redis(url: str) -> None:
    import redis

    if urlsplit(url).path.strip("/") in ("", "0"):
        sys.exit("refusing Redis database 0: give the benchmark its own database number (--redis-url .../8)")
    redis.Redis.from_url(url).flushdb()


def make_sessions(count: int, out: Path) -> None:
    """`count` verified customers, each with a session (what signing in leaves behind), one token per line.

    Run in a subprocess whose DATABASE_URL is the server's. Signing 200 users in through the API is not part
    of the mix: each sign-in or sign-up costs an argon2 hash (~0.8 s of CPU here, on purpose), so 200 of them
    at once keep two cores busy for minutes; the accounts share one hash."""
    from marketplace.db import session_scope
    from marketplace.models.base import utcnow
    from marketplace.models.user import User
    from marketplace.services import auth

    password_hash = auth.hash_password("load-test-1")
    stamp = int(time.time())
    with session_scope() as session:
        users = [User(username=f"load{stamp}x{n}", email=f"load{stamp}x{n}@load.test", password_hash=password_hash,
                      email_verified_at=utcnow()) for n in range(count)]
        session.add_all(users)
        session.flush()
        ids = [u.id for u in users]
    with session_scope() as session:
        users = [session.get(User, user_id) for user_id in ids]
    out.write_text("".join(f"{auth.create_session(user=u)}\n" for u in users if u is not None))


@dataclass
class Server:
    base: str
    standin: str
    pid: int  # scripts/run.sh, leader of the app's process group


@contextlib.contextmanager
def serve(pg_url: str, redis_url: str, workers: int, log_path: Path,
          extra_env: dict[str, str] | None = None, root: Path = ROOT) -> Iterator[Server]:
    """`scripts/run.sh` (of the checkout `root`) with Redis and `workers` backend workers; stopped (its process
    group) afterwards."""
    port, standin_port = free_port(), free_port()
    tmp = Path(tempfile.mkdtemp(prefix="marketplace-load-"))
    env = {
        **os.environ,
        "PATH": tool_path(),
        "PORT": str(port),
        "PUBLIC_URL": f"http://127.0.0.1:{port}",
        "DATABASE_URL": pg_url,
        "REDIS_URL": redis_url,
        "GRANIAN_WORKERS": str(workers),
        "REFLEX_WEB_WORKDIR": ".web-bench",
        "STORAGE_DIR": str(tmp / "files"),
        "STRIPE_STANDIN_PORT": str(standin_port),
        "STRIPE_STANDIN_STATE": str(tmp / "stripe-standin.pickle"),
        "MAIL_CATCHER_PORT": str(free_port()),
        "DEV_MAILBOX_FILE": str(tmp / "mailbox.jsonl"),
        # Every simulated user signs up from 127.0.0.1: keep the per-address limit out of the way.
        "RATE_LIMIT_REGISTER": "0",
        **(extra_env or {}),
    }
    for name in ("SMTP_URL", "STRIPE_SECRET_KEY", "TEST_DATABASE_URL"):
        env.pop(name, None)
    base = f"http://127.0.0.1:{port}"
    try:
        with running(["bash", "scripts/run.sh"], env=env, log_path=log_path, ready_url=f"{base}/",
                     cwd=root) as process:
            yield Server(base, f"http://127.0.0.1:{standin_port}", process.pid)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@dataclass
class Kind:
    workers: int
    name: str
    requests: int
    failures: int
    p50_ms: float
    p95_ms: float
    rps: float


def run_locust(locust: Path, server: Server, *, users: int, spawn_rate: float, duration: str, wait: str,
               prefix: Path, pg_url: str) -> list[Kind]:
    sessions = prefix.with_name(f"{prefix.name}-sessions.txt")
    subprocess.run([sys.executable, "-m", "benchmarks.load", "--make-sessions", str(users), "--sessions-file",
                    str(sessions)], cwd=ROOT, env={**os.environ, "DATABASE_URL": pg_url}, check=True)
    env = {**os.environ, "LOAD_STANDIN_URL": server.standin, "LOAD_WAIT": wait, "LOAD_SESSIONS": str(sessions)}
    command = [str(locust), "-f", str(LOCUSTFILE), "--headless", "--host", server.base, "-u", str(users),
               "-r", str(spawn_rate), "-t", duration, "--csv", str(prefix), "--only-summary", "--loglevel", "WARNING",
               "--stop-timeout", "10"]
    subprocess.run(command, cwd=ROOT, env=env, check=False)  # locust exits 1 when any request failed
    kinds = []
    with open(f"{prefix}_stats.csv", newline="") as stats:
        for row in csv.DictReader(stats):
            kinds.append(Kind(0, row["Name"], int(row["Request Count"]), int(row["Failure Count"]),
                              float(row["50%"] or 0), float(row["95%"] or 0), float(row["Requests/s"] or 0)))
    return kinds


def table(kinds: list[Kind]) -> str:
    lines = ["| workers | request kind | requests | failures | p50 ms | p95 ms | req/s |",
             "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for k in kinds:
        lines.append(f"| {k.workers} | {k.name} | {k.requests:,} | {k.failures} | {k.p50_ms:.0f} | {k.p95_ms:.0f} | "
                     f"{k.rps:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_PG_URL))
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--workers", default="1,3", help="comma-separated worker counts, run in order")
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--spawn-rate", type=float, default=20)
    parser.add_argument("--duration", default="60s", help="locust's --run-time per worker count")
    parser.add_argument("--wait", default="1,3", help="each user's pause between actions, min,max seconds")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    parser.add_argument("--make-sessions", type=int, help=argparse.SUPPRESS)  # internal: see make_sessions()
    parser.add_argument("--sessions-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_sessions:
        make_sessions(args.make_sessions, args.sessions_file)
        return

    locust = ensure_locust()
    results: list[Kind] = []
    loads: dict[int, float] = {}
    for workers in [int(w) for w in args.workers.split(",")]:
        print(f"==> {workers} worker(s): resetting the database and Redis, starting the app", flush=True)
        reset_database(args.pg_url)
        reset_redis(args.redis_url)
        with serve(args.pg_url, args.redis_url, workers, OUT / f"load-server-{workers}.log") as server:
            print(f"==> {args.users} users for {args.duration} against {server.base}", flush=True)
            kinds = run_locust(locust, server, users=args.users, spawn_rate=args.spawn_rate, duration=args.duration,
                               wait=args.wait, prefix=OUT / f"load-{workers}", pg_url=args.pg_url)
        loads[workers] = os.getloadavg()[0]
        for kind in kinds:
            kind.workers = workers
        results.extend(kinds)
        print(table(kinds), f"\n(1-minute load average after the run: {loads[workers]:.1f})", flush=True)

    print("\n## All runs\n")
    print(table(results))
    print("\n| workers | requests | failures | error rate | req/s (all kinds) | load |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for workers, load in loads.items():
        [total] = [k for k in results if k.workers == workers and k.name == "Aggregated"]
        rate = total.failures / total.requests if total.requests else 0.0
        print(f"| {workers} | {total.requests:,} | {total.failures} | {rate:.2%} | {total.rps:.1f} | {load:.1f} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": [asdict(k) for k in results], "load": loads}, indent=2))


if __name__ == "__main__":
    main()
