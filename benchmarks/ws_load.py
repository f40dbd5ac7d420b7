"""Load the page path: N simulated browsers on Reflex's websocket (`/_event`), as people use the pages.

    python -m benchmarks.ws_load --browsers 200 --workers 1 --db postgresql
    python -m benchmarks.ws_load --browsers 1000 --workers 3 --db postgresql --procs 2
    python -m benchmarks.ws_load --browsers 200 --workers 1 --db sqlite

It serves the app as `make run` does (`scripts/run.sh`: migrations, demo data, the Stripe stand-in, the mail
catcher, `reflex run --env prod --single-port`; `benchmarks/load.py`'s `serve`) on a wiped database (PostgreSQL:
`--pg-url`, else BENCH_DATABASE_URL, else a local `ws_load_bench`; with Redis, `--redis-url`, flushed; SQLite:
`data/bench/ws_load.db`, one worker, no Redis), signs the browsers' people in (sessions written to the database,
as `benchmarks/load.py` does: a sign-in costs an argon2 hash on purpose), and starts the browsers over `--ramp`
seconds, spread over `--procs` generator processes. Each browser (`benchmarks/ws_browser.py`) repeats a visit:
`/` loaded (HTML, assets the first time, a new websocket: hydrate + on_load), `/agents` with a category and a
search typed in two bursts, `/agents/{id}` (favourite, a review typed and sent), `/checkout/{id}` (the
PaymentIntent, the card confirmed at the stand-in as Stripe.js does, the purchase completed), `/purchase-success`,
`/dashboard`, with `--wait` seconds between steps.

The app trusts the generator as a proxy (`TRUSTED_PROXIES=127.0.0.1`) and each browser sends its own
`X-Forwarded-For`, so per-address limits count each browser, as they would count people.

Reported per step: count, errors, p50/p95/p99 of 'event sent -> first state delta' and 'event sent -> the step's
last delta' (the page shows the result: e.g. `loading` false again, `is_hydrated` true), measured over
`--duration` seconds after the ramp. Alongside: CPU (share of one core) per app worker (the event-loop thread on
its own, and how long it sat ready while other processes had the CPU), the stand-in, PostgreSQL's backends for
this database, Redis (the server process; shared with anything else using it) and the generator itself, from
/proc. Figures in benchmarks/README.md ("Websocket load").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.load import reset_database, reset_redis, serve
from benchmarks.server import ROOT

OUT = ROOT / "data" / "bench"
WEB_DIR = ROOT / ".web-bench"  # serve() builds there (REFLEX_WEB_WORKDIR)
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/ws_load_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/8"
SQLITE_PATH = OUT / "ws_load.db"
BUDGETS = {(200, 1): 150.0, (1000, 3): 300.0}  # issue 21: p95 ms of every event
CLOCK = os.sysconf("SC_CLK_TCK")


# ---- the generator (one process: --child) ---------------------------------------------------------------------


async def _drive(config: dict[str, Any]) -> list[tuple[str, float, float | None, float | None, str | None]]:
    """Run this process's browsers; every step as (name, ended at, first delta s, done s, error)."""
    import aiohttp

    from benchmarks.ws_browser import Browser, Frontend, Site

    samples: list[tuple[str, float, float | None, float | None, str | None]] = []
    measure_from = config["measure_from"]
    stop_at = config["stop_at"]

    def record(name: str, first: float | None, done: float | None, error: str | None) -> None:
        now = time.time()
        if measure_from <= now < stop_at:
            samples.append((name, now, first, done, error))

    site = Site(base=config["base"], standin=config["standin"], frontend=Frontend(**config["frontend"]),
                agents=config["agents"], wait=tuple(config["wait"]), record=record)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as http:

        async def one(index: int, session: str) -> None:
            await asyncio.sleep(max(config["start_at"] + config["ramp"] * random.random() - time.time(), 0))
            browser = Browser(site=site, session=session, address=config["addresses"][index], http=http)
            try:
                while time.time() < stop_at:
                    try:
                        await browser.visit()
                    except Exception as error:  # counted; the browser starts a new visit
                        record("visit aborted", None, None, f"{type(error).__name__}: {error}"[:300])
                        await asyncio.sleep(1)
            finally:
                await browser.close()

        tasks = [asyncio.create_task(one(i, s)) for i, s in enumerate(config["sessions"])]
        await asyncio.wait(tasks, timeout=max(stop_at - time.time(), 0))
        for task in tasks:  # the end: steps under way are dropped, as recorded only before it
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return samples


def child(config_path: Path, out: Path) -> None:
    config = json.loads(config_path.read_text())
    out.write_text(json.dumps(asyncio.run(_drive(config))))


# ---- measuring processes ----------------------------------------------------------------------------------------


def _stat(path: str) -> tuple[float, float]:
    """(CPU seconds, seconds waiting for a CPU) of a process or thread, from its stat and schedstat."""
    fields = Path(f"{path}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLOCK
    waited = int(Path(f"{path}/schedstat").read_text().split()[1]) / 1e9
    return cpu, waited


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def processes(server_pgid: int, database: str, generators: list[int]) -> dict[str, list[str]]:
    """/proc paths to read, per role: each app worker (process, its event-loop thread), the stand-in, the
    database's backends, Redis, the generator."""
    roles: dict[str, list[str]] = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        command = _cmdline(pid)
        try:
            pgid = os.getpgid(pid)
        except OSError:
            continue
        if pgid == server_pgid and "reflex run" in command and "reflex run" in _cmdline(_ppid(pid)):
            roles[f"worker {pid}"].append(str(entry))
            roles[f"worker {pid} event-loop thread"].append(f"{entry}/task/{pid}")
        elif pgid == server_pgid and "dev.stripe_standin" in command:
            roles["stand-in"].append(str(entry))
        elif database and command.startswith("postgres:") and f" {database} " in command:
            roles["PostgreSQL (this database's backends)"].append(str(entry))
        elif command.startswith("redis-server"):
            roles["Redis (whole server)"].append(str(entry))
        elif pid in generators:
            roles["load generator"].append(str(entry))
    return roles


def read_cpu(roles: dict[str, list[str]]) -> dict[str, dict[str, tuple[float, float]]]:
    """Per role, per /proc path: (CPU seconds, seconds waited for a CPU) so far."""
    totals: dict[str, dict[str, tuple[float, float]]] = {}
    for role, paths in roles.items():
        totals[role] = {}
        for path in paths:
            with contextlib.suppress(OSError):  # a backend that ended
                totals[role][path] = _stat(path)
    return totals


def cpu_shares(before: dict[str, dict[str, tuple[float, float]]], after: dict[str, dict[str, tuple[float, float]]],
               wall: float) -> dict[str, tuple[float, float]]:
    """Share of one core used, and waited for, per role over `wall` seconds. A process that started meanwhile
    (a new database connection) counts from zero; one that ended is not counted (its last figures are gone)."""
    shares = {}
    for role, paths in after.items():
        cpu = sum(used - before.get(role, {}).get(path, (0.0, 0.0))[0] for path, (used, _) in paths.items())
        waited = sum(w - before.get(role, {}).get(path, (0.0, 0.0))[1] for path, (_, w) in paths.items())
        shares[role] = (cpu / wall, waited / wall)
    return shares


# ---- the run -----------------------------------------------------------------------------------------------------


@dataclass
class Row:
    step: str
    count: int
    errors: int
    first_p50: float
    first_p95: float
    first_p99: float
    done_p50: float
    done_p95: float
    done_p99: float


def _cuts(values: list[float]) -> tuple[float, float, float]:
    if not values:
        return (float("nan"),) * 3
    if len(values) == 1:
        return (values[0] * 1000,) * 3
    q = statistics.quantiles(values, n=100, method="inclusive")
    return q[49] * 1000, q[94] * 1000, q[98] * 1000


def summarise(samples: list[list[Any]]) -> tuple[list[Row], list[str]]:
    by_step: dict[str, list[list[Any]]] = defaultdict(list)
    errors: list[str] = []
    for sample in samples:
        by_step[sample[0]].append(sample)
        if sample[4]:
            errors.append(f"{sample[0]}: {sample[4]}")
    rows = []
    for step, group in sorted(by_step.items()):
        first = _cuts([s[2] for s in group if s[2] is not None and not s[4]])
        done = _cuts([s[3] for s in group if s[3] is not None and not s[4]])
        rows.append(Row(step, len(group), sum(1 for s in group if s[4]), *first, *done))
    return rows, errors


def fresh_database(db: str, pg_url: str, redis_url: str, sqlite_path: Path) -> tuple[str, str, str]:
    """A wiped database for a run: (its URL, the Redis URL or "" for states in memory, the PostgreSQL database's
    name or "")."""
    OUT.mkdir(parents=True, exist_ok=True)
    if db == "postgresql":
        reset_database(pg_url)
        reset_redis(redis_url)
        return pg_url, redis_url, pg_url.rsplit("/", 1)[1].split("?")[0]
    sqlite_path.unlink(missing_ok=True)
    return f"sqlite:///{sqlite_path}", "", ""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ws_load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--browsers", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--db", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--pg-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_PG_URL))
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--ramp", type=float, default=30, help="seconds over which the browsers start")
    parser.add_argument("--duration", type=float, default=120, help="seconds measured, after the ramp")
    parser.add_argument("--wait", default="1,3", help="a person's pause between steps, min,max seconds")
    parser.add_argument("--procs", type=int, default=1, help="generator processes (the browsers are shared out)")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)  # internal: config, output
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return
    if args.db == "sqlite" and args.workers != 1:
        sys.exit("SQLite runs one worker (no Redis): --workers 1")

    database_url, redis_url, database = fresh_database(args.db, args.pg_url, args.redis_url, SQLITE_PATH)
    tag = f"ws-{args.db}-{args.browsers}x{args.workers}"
    extra = {"TRUSTED_PROXIES": "127.0.0.1, ::1"}
    print(f"==> {tag}: starting the app", flush=True)
    with serve(database_url, redis_url, args.workers, OUT / f"{tag}-server.log", extra_env=extra) as server:
        sessions_file = OUT / f"{tag}-sessions.txt"
        subprocess.run([sys.executable, "-m", "benchmarks.load", "--make-sessions", str(args.browsers),
                        "--sessions-file", str(sessions_file)], cwd=ROOT,
                       env={**os.environ, "DATABASE_URL": database_url}, check=True)
        sessions = sessions_file.read_text().split()
        import httpx

        agents = httpx.get(f"{server.base}/api/agents", params={"limit": 100}, timeout=30).json()
        from benchmarks.ws_browser import Frontend

        frontend = Frontend.read(WEB_DIR)
        start_at = time.time() + 3
        measure_from = start_at + args.ramp
        stop_at = measure_from + args.duration
        procs = []
        for n in range(args.procs):
            mine = list(range(n, args.browsers, args.procs))
            config = {"base": server.base, "standin": server.standin, "agents": agents,
                      "frontend": {"hashes": frontend.hashes, "schema": frontend.schema},
                      "wait": [float(x) for x in args.wait.split(",")], "sessions": [sessions[i] for i in mine],
                      "addresses": [f"198.18.{i // 250}.{i % 250 + 1}" for i in mine],
                      "start_at": start_at, "ramp": args.ramp, "measure_from": measure_from, "stop_at": stop_at}
            config_path = OUT / f"{tag}-gen{n}.json"
            config_path.write_text(json.dumps(config))
            procs.append((subprocess.Popen([sys.executable, "-m", "benchmarks.ws_load", "--child", str(config_path),
                                            str(config_path.with_suffix(".out"))], cwd=ROOT),
                          config_path.with_suffix(".out")))
        server_pgid = os.getpgid(server.pid)
        time.sleep(max(measure_from - time.time(), 0))
        generators = [p.pid for p, _ in procs]
        cpu_before, wall_before = read_cpu(processes(server_pgid, database, generators)), time.monotonic()
        load_before = os.getloadavg()[0]
        time.sleep(max(stop_at - time.time(), 0))
        cpu_after = read_cpu(processes(server_pgid, database, generators))
        wall = time.monotonic() - wall_before
        print("==> measured; waiting for the browsers to finish their step", flush=True)
        samples: list[list[Any]] = []
        for process, out in procs:
            process.wait(timeout=300)
            samples += json.loads(out.read_text()) if out.exists() else []
        log = OUT / f"{tag}-server.log"
        tracebacks = log.read_text(errors="replace").count("Traceback") if log.exists() else 0
    rows, errors = summarise(samples)
    cpu = cpu_shares(cpu_before, cpu_after, wall)
    report(args, tag, rows, errors, cpu, tracebacks, load_before, os.getloadavg()[0])
    if args.json:
        args.json.write_text(json.dumps({"rows": [r.__dict__ for r in rows], "errors": errors[:100], "cpu": cpu,
                                         "server_tracebacks": tracebacks}, indent=2))


def report(args: argparse.Namespace, tag: str, rows: list[Row], errors: list[str], cpu: dict[str, tuple[float, float]],
           tracebacks: int, load_before: float, load_after: float) -> None:
    budget = BUDGETS.get((args.browsers, args.workers)) if args.db == "postgresql" else None
    print(f"\n## {tag}: {args.browsers} browsers, {args.workers} worker(s), {args.db}, {args.duration:.0f} s "
          f"measured after a {args.ramp:.0f} s ramp, pauses {args.wait} s, {args.procs} generator process(es)\n")
    print("| step | count | errors | first delta p50 | p95 | p99 | done p50 | p95 | p99 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    worst = 0.0
    for r in rows:
        worst = max(worst, r.done_p95 if r.done_p95 == r.done_p95 else 0.0)
        print(f"| {r.step} | {r.count} | {r.errors} | {r.first_p50:.0f} | {r.first_p95:.0f} | {r.first_p99:.0f} | "
              f"{r.done_p50:.0f} | {r.done_p95:.0f} | {r.done_p99:.0f} |")
    total_errors = sum(r.errors for r in rows)
    events = sum(r.count for r in rows if not r.step.startswith("GET "))
    print(f"\nerrors: {total_errors} of {sum(r.count for r in rows)} steps; server log tracebacks: {tracebacks}")
    workers_cpu = sum(used for role, (used, _) in cpu.items() if role.startswith("worker") and "thread" not in role)
    print(f"websocket steps: {events / args.duration:.1f}/s; app workers' CPU per step: "
          f"{workers_cpu * args.duration * 1000 / max(events, 1):.0f} ms (HTTP requests included)")
    for line in errors[:10]:
        print(f"  - {line}")
    print("\n| process | CPU (share of one core) | waited for a CPU |")
    print("| --- | ---: | ---: |")
    for role, (used, waited) in sorted(cpu.items()):
        print(f"| {role} | {used:.0%} | {waited:.0%} |")
    print(f"\n1-minute load average: {load_before:.1f} at the start of the measurement, {load_after:.1f} at its end")
    if budget is not None:
        verdict = "holds" if worst <= budget and total_errors == 0 else "MISSES"
        print(f"budget: p95 <= {budget:.0f} ms for every step, 0 errors: {verdict} (worst p95 {worst:.0f} ms)")


if __name__ == "__main__":
    main()
