"""Two revisions' worker CPU per step, measured in turn: an A/B that a busy host's load swings do not decide.

    python -m benchmarks.step_ab --base main --head HEAD              # SQLite, demo data, 60 of each kind
    python -m benchmarks.step_ab --base main --head HEAD --repeat 30 --rounds 2

`benchmarks/step_cpu.py` run on one revision and then the other saw its figures move 10-30% between runs of the
same code on a shared host (benchmarks/README.md, "CPU per step, by kind"), more than the cuts it was to measure.
This serves both revisions at once (each from its own checkout, `git archive`d under data/bench/ab/, one worker,
SQLite with states in memory, demo data) and drives the same step on one and then on the other, kind by kind, so
both see the same load. Per step: the worker's CPU (`step_cpu.Worker`: its threads' `schedstat`, less its idle
burn over the step's window), and what the browser was sent (updates and their JSON bytes, counted as the
simulated browser of `benchmarks/ws_browser.py` receives them). Kinds: a new tab, the navigations of a visit
(`/agents`, `/agents/{id}`, `/dashboard` first in its tab, again unchanged, again after a new favourite), and the
catalogue's filter and search. Figures in benchmarks/README.md ("CPU per step, by kind").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.load import Server, serve
from benchmarks.server import ROOT
from benchmarks.step_cpu import Worker
from benchmarks.ws_load import OUT, fresh_database

AB_DIR = OUT / "ab"
SIDES = ("base", "head")


def checkout(revision: str, side: str) -> tuple[Path, str]:
    """The revision's files under data/bench/ab/<side>-<commit> (kept, with their build, for the next run; one per
    side, so that a revision against itself, the method's own noise, builds twice), sharing this project's
    virtualenv and tools; and the commit."""
    commit = subprocess.run(["git", "rev-parse", "--short", revision], cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout.strip()
    root = AB_DIR / f"{side}-{commit}"
    if not (root / "scripts" / "run.sh").exists():
        archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
    for name in (".venv", ".tools"):
        link, target = root / name, (ROOT / name).resolve()
        if target.exists() and not link.exists():
            link.symlink_to(target)
    return root, commit


@dataclass
class Side:
    """One revision's server, its worker and its simulated browsers."""

    name: str
    commit: str
    server: Server
    worker: Worker
    browsers: list[Any] = field(default_factory=list)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    updates: dict[str, list[int]] = field(default_factory=dict)
    sent: dict[str, list[int]] = field(default_factory=dict)


def _counting_browser() -> type:
    """`ws_browser.Browser` that counts the updates it is sent and their JSON bytes."""
    from benchmarks import ws_browser as wb

    class Counting(wb.Browser):  # type: ignore[misc]
        received_updates: int = 0
        received_bytes: int = 0

        async def _on_update(self, update: dict[str, Any]) -> None:
            self.received_updates += 1
            self.received_bytes += len(json.dumps(update, separators=(",", ":")))
            await super()._on_update(update)

    return Counting


async def _drive(sides: list[Side], repeat: int, log: Callable[[str], None]) -> None:
    import aiohttp

    from benchmarks import ws_browser as wb
    from marketplace.state.dashboard import DashboardState

    dash_loading = wb.field_key(DashboardState, "loading")
    counting = _counting_browser()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        sites = {}
        for side in sides:
            agents = await (await http.get(f"{side.server.base}/api/agents", params={"limit": 100})).json()
            frontend = wb.Frontend.read(AB_DIR / f"{side.name}-{side.commit}" / ".web-bench")
            sites[side.name] = (wb.Site(base=side.server.base, standin=side.server.standin, frontend=frontend,
                                        agents=agents, wait=(0.0, 0.0)), agents)
            side.browsers = [counting(site=sites[side.name][0], session=s, address=f"198.18.1.{i % 250 + 1}",
                                      http=http) for i, s in enumerate(side.browsers)]

        async def dashboard(b: Any) -> bool:
            """A link to /dashboard, done when its lists are shown (its reads end after the navigation's own
            `is_hydrated`; the first visit of a tab also answers the time zone question)."""
            b.path = "/dashboard"
            b.state.setdefault(wb.HYDRATED[0], {})[wb.HYDRATED[1]] = False
            b.state.setdefault(dash_loading[0], {})[dash_loading[1]] = True
            event = b._event("on_load_internal", {}, {})
            return bool(await b._step("/dashboard navigate", lambda: b._emit(event),
                                      lambda: b._value(wb.HYDRATED) is True and b._value(dash_loading) is False))

        async def kind(name: str, step: Callable[[Side, int], Awaitable[Any]],
                       setup: Callable[[Side, int], Awaitable[Any]] | None = None) -> None:
            """`step(side, i)` for i < repeat, on one side and then the other (which goes first alternates)."""
            for i in range(repeat):
                for side in (sides if i % 2 == 0 else sides[::-1]):
                    if setup is not None:
                        await setup(side, i)
                    b = side.browsers[i]
                    await asyncio.sleep(0.02)  # the previous step's trailing work settles
                    updates, sent = b.received_updates, b.received_bytes
                    before, started = side.worker.cpu(), time.monotonic()
                    ok = await step(side, i)
                    await asyncio.sleep(0.05)  # deltas after 'done' (a toast, the options' counts) are the step's
                    spent = side.worker.cpu() - before - side.worker.idle_rate * (time.monotonic() - started)
                    if ok is False:
                        raise SystemExit(f"{name}: step {i} failed on {side.name} ({side.commit})")
                    side.cpu.setdefault(name, []).append(spent * 1000)
                    side.updates.setdefault(name, []).append(b.received_updates - updates)
                    side.sent.setdefault(name, []).append(b.received_bytes - sent)
            log(name)

        for side in sides:  # warm: the worker's first events pay one-time costs
            await side.browsers[0].load_page("/")
            await side.browsers[0].navigate("/agents")
            await side.browsers[0].close()

        def site_agent(side: Side) -> dict[str, Any]:
            return sites[side.name][1][0]

        await kind("new tab: GET / + connect + hydrate + on_load", lambda s, i: s.browsers[i].load_page("/"))
        await kind("navigate /agents", lambda s, i: s.browsers[i].navigate("/agents"))
        await kind("navigate /agents again", lambda s, i: s.browsers[i].navigate("/agents"))
        words = ["invoice", "support", "writer", "data", "email", "code"]
        categories = sorted({a["category"]["slug"] for a in sites["base"][1] if a.get("category")}) or [""]
        await kind("set_category", lambda s, i: s.browsers[i].send(
            "set_category", "set_category", {"value": categories[i % len(categories)]},
            lambda: s.browsers[i]._value(wb.BROWSE_LOADING) is False))
        await kind("set_search", lambda s, i: s.browsers[i].send(
            "set_search", "set_search", {"value": words[i % len(words)][: 3 + i % 4]},
            lambda: s.browsers[i]._value(wb.BROWSE_LOADING) is False))
        await kind("navigate /agents/{id}", lambda s, i: s.browsers[i].navigate(
            f"/agents/{site_agent(s)['id']}", {"agent_id": site_agent(s)["id"]}))
        await kind("navigate /dashboard (first in the tab)", lambda s, i: dashboard(s.browsers[i]))
        await kind("navigate /dashboard (again, nothing changed)", lambda s, i: dashboard(s.browsers[i]))

        async def favourite(side: Side, i: int) -> None:  # a list that changed: the next visit must send it
            b, agent = side.browsers[i], site_agent(side)
            query = {"agent_id": agent["id"]}
            await b.navigate(f"/agents/{agent['id']}", query)
            await b.send("fav", "toggle_favorite", {}, lambda: b._value(wb.FAVORITE_BUSY) is False, query)

        await kind("navigate /dashboard (a new favourite)", lambda s, i: dashboard(s.browsers[i]), setup=favourite)
        for side in sides:
            for b in side.browsers:
                await b.close()


def give_lists(sessions: Path, agent_ids: list[str]) -> None:
    """Each session's user three purchases (orders, license keys) and two favourites, as a customer's dashboard
    has them: fresh users' empty lists would hide what re-sending lists costs. Run in a subprocess whose
    DATABASE_URL is the server's."""
    from marketplace.db import session_scope
    from marketplace.models import Agent
    from marketplace.services import auth, favorites
    from tests.factories import make_purchase

    with session_scope() as session:
        agents = [agent for agent_id in agent_ids if (agent := session.get(Agent, agent_id)) is not None]
    for token in sessions.read_text().split():
        user = auth.user_for_token(token)
        assert user is not None and len(agents) >= 6, "a user and six agents"
        for agent in agents[1:4]:
            make_purchase(user, agent)
        for agent in agents[4:6]:
            favorites.add_favorite(actor=user, agent_id=agent.id)


@contextlib.contextmanager
def _served(name: str, revision: str, repeat: int) -> Iterator[Side]:
    root, commit = checkout(revision, name)
    database_url, _, _ = fresh_database("sqlite", "", "", AB_DIR / f"{name}.db")
    log = AB_DIR / f"{name}-server.log"
    print(f"==> {name}: {revision} ({commit}), building and serving (log: {log})", flush=True)
    extra = {"TRUSTED_PROXIES": "127.0.0.1, ::1", "RATE_LIMIT_REVIEWS": "0"}
    with serve(database_url, "", 1, log, extra_env=extra, root=root) as server:
        sessions = AB_DIR / f"{name}-sessions.txt"
        subprocess.run([sys.executable, "-m", "benchmarks.load", "--make-sessions", str(repeat),
                        "--sessions-file", str(sessions)], cwd=ROOT,
                       env={**os.environ, "DATABASE_URL": database_url}, check=True)
        import httpx

        agents = httpx.get(f"{server.base}/api/agents", params={"limit": 100}, timeout=30).json()
        paid = [a["id"] for a in agents if a["price"] not in ("0", "0.00") and a.get("pricingModel") == "one_time"]
        subprocess.run([sys.executable, "-m", "benchmarks.step_ab", "--give-lists", str(sessions), *paid[:6]],
                       cwd=ROOT, env={**os.environ, "DATABASE_URL": database_url}, check=True)
        side = Side(name, commit, server, Worker(os.getpgid(server.pid), ""))
        side.browsers = sessions.read_text().split()
        yield side


def report(sides: list[Side], loads: tuple[float, float], rounds: int) -> None:
    base, head = sides
    print(f"\n## interleaved A/B: {base.commit} (base) against {head.commit} (head), SQLite, one worker each, "
          f"{len(next(iter(base.cpu.values())))} of each kind\n")
    print("| step | base CPU (ms, median / mean) | head | head - base, paired (mean +- s.e.) |"
          " updates base / head | bytes sent base / head |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for kind_name in base.cpu:
        b, h = base.cpu[kind_name], head.cpu[kind_name]
        pairs = [after - before for before, after in zip(b, h, strict=True)]  # the same step, side by side
        error = statistics.stdev(pairs) / len(pairs) ** 0.5 if len(pairs) > 1 else float("nan")
        print(f"| {kind_name} | {statistics.median(b):.2f} / {statistics.mean(b):.2f} | "
              f"{statistics.median(h):.2f} / {statistics.mean(h):.2f} | "
              f"{statistics.mean(pairs):+.2f} +- {error:.2f} | "
              f"{statistics.mean(base.updates[kind_name]):.1f} / {statistics.mean(head.updates[kind_name]):.1f} | "
              f"{statistics.mean(base.sent[kind_name]):,.0f} / {statistics.mean(head.sent[kind_name]):,.0f} |")
    print(f"\nidle workers: {base.worker.idle_rate * 1000:.1f} / {head.worker.idle_rate * 1000:.1f} ms of CPU per s "
          f"(taken off each step); 1-minute load {loads[0]:.1f} at the start, {loads[1]:.1f} at the end"
          f"{f'; {rounds} rounds' if rounds > 1 else ''}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.step_ab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="main", help="the revision measured against (default: main)")
    parser.add_argument("--head", default="HEAD", help="the revision with the change (default: HEAD)")
    parser.add_argument("--repeat", type=int, default=60, help="steps of each kind on each side, per round")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, each with fresh tabs")
    parser.add_argument("--json", type=Path, help="also write each step's figures here")
    parser.add_argument("--give-lists", type=Path, help=argparse.SUPPRESS)  # internal: see give_lists()
    parser.add_argument("agents", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.give_lists:
        give_lists(args.give_lists, args.agents)
        return
    AB_DIR.mkdir(parents=True, exist_ok=True)
    with _served("base", args.base, args.repeat * args.rounds) as base, \
            _served("head", args.head, args.repeat * args.rounds) as head:
        sides = [base, head]
        for side in sides:
            side.worker.measure_idle(5.0)
        load_start = os.getloadavg()[0]
        sessions = {side.name: side.browsers for side in sides}
        for number in range(args.rounds):
            for side in sides:
                side.browsers = sessions[side.name][number * args.repeat:(number + 1) * args.repeat]
            asyncio.run(_drive(sides, args.repeat, lambda name: print(f"  {name}: done", flush=True)))
        report(sides, (load_start, os.getloadavg()[0]), args.rounds)
    if args.json:
        args.json.write_text(json.dumps({s.name: {"commit": s.commit, "cpu_ms": s.cpu, "updates": s.updates,
                                                  "bytes": s.sent} for s in sides}, indent=2))


if __name__ == "__main__":
    main()
