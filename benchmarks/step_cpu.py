"""Where a page event's CPU goes: the app worker's CPU per step, by kind, one step at a time.

    python -m benchmarks.step_cpu --db sqlite
    python -m benchmarks.step_cpu --db postgresql --repeat 100

`benchmarks/ws_load.py` gives the worker's CPU per step of the whole visit mix under load; this splits it by what
the step is. It serves the app as `make run` does (`benchmarks/load.py`'s `serve`, one worker; PostgreSQL with
Redis, or SQLite with states in memory), then drives the simulated browsers of `benchmarks/ws_browser.py` through
each kind of step `--repeat` times, strictly one after another (no other step runs meanwhile), and divides the
worker's CPU (its threads' `schedstat`, in nanoseconds) over those steps, less what the idle worker burns in as long
(its tickers and background loops, measured first). Kinds: a field set (the review's rating), a navigation's
`on_load` (to `/agents`, `/agents/{id}`, `/dashboard`), the catalogue's filter and search, the favourite, a review,
the purchase's steps (the checkout page's PaymentIntent, the card confirmed at the stand-in as Stripe.js does, the
completion), and a new tab (its HTML, then connect + hydrate). The visit mix weighs them as one visit of
`ws_browser.Browser.visit` has them. With `--slow-ms N` the worker reports loop callbacks holding it over N ms of
their own work (`marketplace/loop_watch.py`): their count per kind is printed (asyncio's debug mode costs CPU:
figures from such a run are not the budget's). Budgets (issue 35): the visit mix <= 6 ms, a field set <= 0.5 ms, a
navigation <= 3 ms, a new tab's connect + hydrate holding the loop <= 20 ms. Figures in benchmarks/README.md
("Websocket load").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.load import serve
from benchmarks.server import ROOT
from benchmarks.ws_load import DEFAULT_PG_URL, DEFAULT_REDIS_URL, OUT, WEB_DIR, fresh_database, processes

SQLITE_PATH = OUT / "step_cpu.db"
BUDGETS_MS = {"field set": 0.5, "navigation": 3.0, "visit mix": 6.0}
# One visit of ws_browser.Browser.visit, by kind (its checkout runs when an unbought paid agent is left).
VISIT = {"new tab: GET / (HTML) + connect + hydrate + on_load": 1, "navigate /agents": 1,
         "set_category": 1, "set_search": 2, "navigate /agents/{id}": 1, "toggle_favorite": 1,
         "set_review_rating (field set)": 1, "set_review_comment (field set)": 1, "submit_review": 1,
         "navigate /checkout/{id} (PaymentIntent)": 1, "payment_started (field set)": 1,
         "payment_succeeded (purchase completed)": 1, "navigate /purchase-success": 1, "navigate /dashboard": 1}
SLOW = re.compile(r"Executing <.*?> took (\d+\.\d+) seconds")


@dataclass
class Measured:
    kind: str
    steps: int
    cpu_ms: float  # worker CPU per step, idle burn taken off
    wall_ms: float  # per step, event sent to the step's last delta
    slow: int  # loop reports over --slow-ms during these steps


class Worker:
    """The app worker's CPU, read from /proc, less its idle burn rate."""

    def __init__(self, server_pgid: int, database: str) -> None:
        roles = processes(server_pgid, database, [])
        self.paths = {role: paths for role, paths in roles.items()
                      if role.startswith("worker") and "thread" not in role}
        if len(self.paths) != 1:
            raise SystemExit(f"expected one app worker, found {sorted(self.paths)}")
        self.idle_rate = 0.0

    def cpu(self) -> float:
        """CPU seconds of all the worker's threads, in nanoseconds (`schedstat`): `stat`'s 10 ms ticks would
        blur a step of a millisecond."""
        total = 0
        for paths in self.paths.values():
            for path in paths:
                for task in Path(path, "task").iterdir():
                    with contextlib.suppress(OSError):  # a thread that ended
                        total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9

    def measure_idle(self, seconds: float) -> None:
        started, before = time.monotonic(), self.cpu()
        time.sleep(seconds)
        self.idle_rate = (self.cpu() - before) / (time.monotonic() - started)


async def _drive(base: str, standin: str, sessions: list[str], agents: list[dict[str, Any]], repeat: int,
                 worker: Worker, log: Path) -> list[Measured]:
    import aiohttp

    from benchmarks import ws_browser as wb

    site = wb.Site(base=base, standin=standin, frontend=wb.Frontend.read(WEB_DIR), agents=agents, wait=(0.0, 0.0))
    paid = [a for a in agents if a["price"] not in ("0", "0.00") and a.get("pricingModel", "one_time") == "one_time"]
    if not paid:
        raise SystemExit("no paid one-time agent in the catalogue to buy")
    results: list[Measured] = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        browsers = [wb.Browser(site=site, session=s, address=f"198.18.0.{i % 250 + 1}", http=http)
                    for i, s in enumerate(sessions)]

        async def kind(name: str, steps: list[Callable[[], Awaitable[Any]]],
                       setup: Callable[[int], Awaitable[Any]] | None = None) -> None:
            """Time `steps[i]` for each i, after its (unmeasured) `setup(i)`; one step at a time."""
            cpu = wall = 0.0
            log_from = log.stat().st_size
            for index, step in enumerate(steps):
                if setup is not None:
                    await setup(index)
                await asyncio.sleep(0.02)  # the previous step's trailing work (a callback's answer) settles
                before, started = worker.cpu(), time.monotonic()
                ok = await step()
                elapsed = time.monotonic() - started
                await asyncio.sleep(0.05)  # deltas after 'done' (e.g. a toast) are the step's CPU too
                spent = worker.cpu() - before
                if ok is False:
                    raise SystemExit(f"{name}: step {index} failed (see {log})")
                cpu += spent - worker.idle_rate * (time.monotonic() - started)
                wall += elapsed
            slow = len(SLOW.findall(log.read_text(errors="replace")[log_from:]))
            results.append(Measured(name, len(steps), cpu * 1000 / len(steps), wall * 1000 / len(steps), slow))
            print(f"  {name}: {results[-1].cpu_ms:.2f} ms CPU, {results[-1].wall_ms:.1f} ms wall", flush=True)

        one = browsers[0]
        await one.load_page("/")  # warm: the worker's first events pay one-time costs
        await one.navigate("/agents")
        loads = [(lambda b=b: b.load_page("/")) for b in browsers[:repeat]]
        await kind("new tab: GET / (HTML)", [(lambda b=b: _get(b, "/")) for b in browsers[:repeat]])
        await kind("new tab: GET / (HTML) + connect + hydrate + on_load", loads)
        await kind("navigate /agents", [lambda: one.navigate("/agents")] * repeat)
        words = ["invoice", "support", "writer", "data", "email", "code"]
        categories = sorted({a["category"]["slug"] for a in agents if a.get("category")}) or [""]
        await kind("set_category", [(lambda c=categories[i % len(categories)]: one.send(
            "set_category", "set_category", {"value": c}, lambda: one._value(wb.BROWSE_LOADING) is False))
            for i in range(repeat)])
        await kind("set_search", [(lambda w=words[i % len(words)][: 3 + i % 4]: one.send(
            "set_search", "set_search", {"value": w}, lambda: one._value(wb.BROWSE_LOADING) is False))
            for i in range(repeat)])
        agent = paid[0]
        query = {"agent_id": agent["id"]}
        await kind("navigate /agents/{id}", [lambda: one.navigate(f"/agents/{agent['id']}", query)] * repeat)
        await kind("toggle_favorite", [lambda: one.send("fav", "toggle_favorite", {},
                                                        lambda: one._value(wb.FAVORITE_BUSY) is False, query)] * repeat)
        ratings = ["3", "4", "5"]
        await kind("set_review_rating (field set)", [(lambda r=ratings[i % 3]: one.send(
            "rating", "set_review_rating", {"value": r}, lambda: one._value(wb.REVIEW_RATING) == r, query))
            for i in range(repeat)])
        await kind("set_review_comment (field set)", [(lambda c=f"Does what it says, take {i}.": one.send(
            "comment", "set_review_comment", {"value": c}, lambda: one._value(wb.REVIEW_COMMENT) == c, query))
            for i in range(repeat)])

        # The purchase: each browser buys `agent` once (the first tab already has a socket open on /agents/{id}).
        buyers = browsers[:repeat]
        for b in buyers[1:]:
            await b.load_page(f"/agents/{agent['id']}", query)
        checkout_query = query

        async def open_checkout(b: wb.Browser) -> bool:
            ok = await b.navigate(f"/checkout/{agent['id']}", checkout_query)
            return ok and bool(b._value(wb.CHECKOUT_SECRET))

        await kind("navigate /checkout/{id} (PaymentIntent)", [(lambda b=b: open_checkout(b)) for b in buyers])
        await kind("payment_started (field set)", [(lambda b=b: b.send(
            "started", "payment_started", {}, lambda b=b: b._value(wb.CHECKOUT_PROCESSING) is True, checkout_query))
            for b in buyers])

        async def confirm(index: int) -> None:  # Stripe.js's part, at the stand-in: not the worker's
            b = buyers[index]
            intent_id = b._value(wb.CHECKOUT_SECRET).split("_secret_")[0]
            async with http.post(f"{standin}/v1/payment_intents/{intent_id}/confirm", data={
                    "key": "pk_test_standin", "client_secret": b._value(wb.CHECKOUT_SECRET), **wb.CARD}) as answer:
                answer.raise_for_status()

        await kind("payment_succeeded (purchase completed)", [(lambda b=b: b.send(
            "succeeded", "payment_succeeded",
            {"payment_intent_id": b._value(wb.CHECKOUT_SECRET).split("_secret_")[0]},
            lambda b=b: b._value(wb.CHECKOUT_REDIRECTING) is True or bool(b._value(wb.CHECKOUT_ERROR)),
            checkout_query)) for b in buyers], setup=confirm)
        await kind("navigate /purchase-success", [(lambda b=b: b.navigate("/purchase-success", checkout_query))
                                                  for b in buyers])
        for b in buyers:
            await b.navigate(f"/agents/{agent['id']}", query)
        await kind("submit_review", [(lambda b=b: b.send(
            "review", "submit_review", {"form": {"comment": "Does what it says."}},
            lambda b=b: b._value(wb.REVIEW_SUBMITTING) is False and b._value(wb.REVIEW_COMMENT) == "", query))
            for b in buyers], setup=lambda i: buyers[i].send(
                "rating", "set_review_rating", {"value": "4"}, lambda: buyers[i]._value(wb.REVIEW_RATING) == "4",
                query))
        await kind("navigate /dashboard", [(lambda b=b: b.navigate("/dashboard")) for b in buyers])
        for b in browsers:
            await b.close()
    return results


async def _get(browser: Any, path: str) -> bool:
    async with browser.http.get(browser.site.base + path, headers=browser._headers()) as page:
        await page.read()
        return page.status == 200


def report(results: list[Measured], args: argparse.Namespace, idle_rate: float, loads: tuple[float, float]) -> None:
    print(f"\n## step CPU: {args.db}, one worker, {args.repeat} of each, one at a time"
          f"{f', loop watch {args.slow_ms} ms' if args.slow_ms else ''}\n")
    print("| step | worker CPU per step (ms) | wall per step (ms) |" + (" loop reports |" if args.slow_ms else ""))
    print("| --- | ---: | ---: |" + (" ---: |" if args.slow_ms else ""))
    for m in results:
        print(f"| {m.kind} | {m.cpu_ms:.2f} | {m.wall_ms:.1f} |" + (f" {m.slow} |" if args.slow_ms else ""))
    by_kind = {m.kind: m.cpu_ms for m in results}
    mix = sum(by_kind[k] * n for k, n in VISIT.items()) / sum(VISIT.values())
    print(f"| visit mix (weighted as one visit) | {mix:.2f} | |")
    fields = max(by_kind[k] for k in by_kind if "field set" in k)
    navigations = max(by_kind[k] for k in by_kind if k.startswith("navigate"))
    print(f"\nidle worker: {idle_rate * 1000:.1f} ms of CPU per second (taken off each step)")
    print(f"1-minute load average: {loads[0]:.1f} at the start, {loads[1]:.1f} at the end")
    for name, worst in (("field set", fields), ("navigation", navigations), ("visit mix", mix)):
        budget = BUDGETS_MS[name]
        print(f"budget {name} <= {budget} ms: {'holds' if worst <= budget else 'MISSES'} ({worst:.2f} ms)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.step_cpu", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["postgresql", "sqlite"], default="sqlite")
    parser.add_argument("--pg-url", default=os.environ.get("BENCH_DATABASE_URL",
                                                           DEFAULT_PG_URL.replace("ws_load", "step_cpu")))
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--repeat", type=int, default=60, help="steps of each kind")
    parser.add_argument("--slow-ms", type=int, default=0, help="report loop callbacks over this many ms")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    database_url, redis_url, database = fresh_database(args.db, args.pg_url, args.redis_url, SQLITE_PATH)
    extra = {"TRUSTED_PROXIES": "127.0.0.1, ::1", "RATE_LIMIT_REVIEWS": "0", "SLOW_CALLBACK_MS": str(args.slow_ms)}
    log = OUT / f"step-cpu-{args.db}-server.log"
    print(f"==> step CPU, {args.db}: starting the app", flush=True)
    with serve(database_url, redis_url, 1, log, extra_env=extra) as server:
        sessions_file = OUT / f"step-cpu-{args.db}-sessions.txt"
        subprocess.run([sys.executable, "-m", "benchmarks.load", "--make-sessions", str(args.repeat),
                        "--sessions-file", str(sessions_file)], cwd=ROOT,
                       env={**os.environ, "DATABASE_URL": database_url}, check=True)
        import httpx

        agents = httpx.get(f"{server.base}/api/agents", params={"limit": 100}, timeout=30).json()
        worker = Worker(os.getpgid(server.pid), database)
        worker.measure_idle(5.0)
        load_start = os.getloadavg()[0]
        results = asyncio.run(_drive(server.base, server.standin, sessions_file.read_text().split(), agents,
                                     args.repeat, worker, log))
    report(results, args, worker.idle_rate, (load_start, os.getloadavg()[0]))
    if args.json:
        args.json.write_text(json.dumps([m.__dict__ for m in results], indent=2))


if __name__ == "__main__":
    main()
