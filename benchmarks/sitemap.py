"""Benchmark `/sitemap.xml` and its files at 100,000 agents, on PostgreSQL and SQLite (issue 29: each answer in
< 1 s and < 50 MB).

What it does, per database:
1. loads the catalog benchmark's data (`benchmarks/catalog.py`: 100,000 agents, 89,030 of them live, 8
   categories), unless `--skip-seed`;
2. in process, through the app's whole middleware stack (`TestClient` on `create_api()`, as the tests do), asks
   `/sitemap.xml` (past 50,000 addresses: the index) and each `/sitemaps/{n}.xml` with the catalogue cache emptied
   before every request, so each answer is built from the database; `--runs` times each, p50 and max, and the
   same answer again from the cache;
3. builds every address in one file (the builder with a page size above the total: 89,041 addresses, the worst
   one answer could be) the same way;
4. measures the memory each build allocates at its peak (tracemalloc, in a run of its own: tracing slows it).

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.sitemap                     # both databases, seeded afresh
    python -m benchmarks.sitemap --only sqlite --skip-seed --runs 20

PostgreSQL: --pg-url, else BENCH_DATABASE_URL, else a local `sitemap_bench` database (created if missing). It is
wiped by the seed: never point it at data you want to keep (`test` and `postgres` are refused).
SQLite: `data/bench/catalog.db` (--sqlite-path).
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.engine import make_url

if __package__ in (None, ""):  # also runnable as `python benchmarks/sitemap.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.catalog import DEFAULT_SQLITE_PATH, Seed, _engine, seed

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/sitemap_bench"
TIME_BUDGET_S = 1.0
MEMORY_BUDGET_MB = 50.0


def _timed(call: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """p50 and max wall time, and p50 of this process's CPU time (the database server's is not in it): on a
    shared host the wall time also holds the waits for a core."""
    times, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        call()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(times), max(times), statistics.median(cpu)


def _peak_mb(call: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def _pg_url(given: str | None) -> str:
    url = given or os.environ.get("BENCH_DATABASE_URL") or DEFAULT_PG_URL
    parsed = make_url(url)
    if parsed.database in (None, "", "test", "postgres"):
        sys.exit(f"refusing to wipe the database {parsed.database!r}; give a dedicated one with --pg-url")
    import psycopg

    admin = parsed.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (parsed.database,)).fetchone():
            conn.execute(f'CREATE DATABASE "{parsed.database}"')
    return url


Row = tuple[str, float, float, float, float, float, int]


def measure(url: str, runs: int) -> list[Row]:
    """(case, p50 s, max s, CPU p50 s, cached p50 s, peak MB, bytes) per answer."""
    from fastapi.testclient import TestClient

    from marketplace import db
    from marketplace.api.app import create_api
    from marketplace.services.catalog import reads
    from marketplace.services.seo import sitemap

    db.set_engine(_engine(url))
    rows = []
    with TestClient(create_api(), base_url="http://localhost:3000") as client:
        index = client.get("/sitemap.xml")
        files = index.text.count("<sitemap>")
        paths = ["/sitemap.xml", *(f"/sitemaps/{n}.xml" for n in range(1, files + 1))]
        for path in paths:
            def cold(path: str = path) -> bytes:
                reads.cache.clear()
                response = client.get(path)
                assert response.status_code == 200, path
                return response.content

            size = len(cold())
            p50, worst, cpu = _timed(cold, runs)
            cached = _timed(lambda path=path: client.get(path), runs)[0]
            rows.append((f"GET {path}", p50, worst, cpu, cached, _peak_mb(cold), size))

    def whole() -> bytes:
        reads.cache.clear()
        return sitemap.sitemap_xml(page_size=10**9)

    size = len(whole())
    p50, worst, cpu = _timed(whole, runs)
    rows.append(("every address in one file (builder)", p50, worst, cpu, float("nan"), _peak_mb(whole), size))
    db.engine().dispose()
    return rows


def report(label: str, rows: list[Row]) -> bool:
    print(f"\n{label}\n| answer | p50 | max | CPU p50 (app process) | cached p50 | peak allocated | size |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    ok = True
    for name, p50, worst, cpu, cached, peak, size in rows:
        if name.startswith("GET"):  # what the app answers; the one-file build is for scale only
            ok = ok and p50 < TIME_BUDGET_S and peak < MEMORY_BUDGET_MB
        cached_text = "-" if cached != cached else f"{cached * 1000:.2f} ms"
        print(f"| {name} | {p50 * 1000:.0f} ms | {worst * 1000:.0f} ms | {cpu * 1000:.0f} ms | {cached_text} | "
              f"{peak:.1f} MB | "
              f"{size / 1e6:.2f} MB |")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg-url", help="PostgreSQL URL to wipe and load (default: BENCH_DATABASE_URL or "
                                         f"{DEFAULT_PG_URL})")
    parser.add_argument("--sqlite-path", default=str(DEFAULT_SQLITE_PATH))
    parser.add_argument("--only", choices=["postgresql", "sqlite"])
    parser.add_argument("--agents", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=10, help="timed requests per answer")
    parser.add_argument("--skip-seed", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("SECRET_KEY", secrets.token_hex(32))  # the app's settings refuse the development key
    targets = []
    if args.only in (None, "postgresql"):
        targets.append(("PostgreSQL", _pg_url(args.pg_url)))
    if args.only in (None, "sqlite"):
        Path(args.sqlite_path).parent.mkdir(parents=True, exist_ok=True)
        targets.append(("SQLite", f"sqlite:///{Path(args.sqlite_path).resolve()}"))
    ok = True
    for label, url in targets:
        os.environ["DATABASE_URL"] = url
        if not args.skip_seed:
            print(f"{label}: seeding {args.agents:,} agents")
            seed(url, Seed(agents=args.agents))
        backend = make_url(url).get_backend_name()
        ok = report(f"{label} ({backend}), {args.agents:,} agents", measure(url, args.runs)) and ok
    print(f"\nbudgets (every answer's p50 < {TIME_BUDGET_S:g} s, its peak < {MEMORY_BUDGET_MB:g} MB):",
          "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
