"""Benchmark checkout with and without a promotion code: `POST /api/purchase/create-payment-intent` at
concurrency 16, each request by another customer (a new PaymentIntent at the stand-in every time), on SQLite
and PostgreSQL. Issue 31's budget: with a code, p99 within 10% of without.

What it does, per database:
1. wipes the target database, migrates it and loads N customers (each with a session), two one-time agents of a
   vendor without a connected account (a direct charge: no account to create at the stand-in) and one code for
   the second agent with no limit (`--max-redemptions N`: with a limit, so each hold also counts on its row);
2. starts the Stripe stand-in and the mail catcher (`benchmarks.catalog.payment_services`) and the API under
   uvicorn in its own process (`marketplace.api.app:create_api`, the routes `/api` serves; the pages are not
   involved in this call);
3. runs rounds alternating without / with the code (the host is shared: alternating spreads its noise over
   both), 16 threads each taking the next unused customer: without a code on the first agent, with the code
   on the second (the code's checks, the counted hold and the intent attached to it);
4. reports p50 and p99 of each variant over all its rounds and the ratio of the p99s.

Usage (from the project root, with the project's virtualenv; not part of `make test`):
    python -m benchmarks.promotion_codes                     # SQLite, 1,600 customers, 4 rounds each
    python -m benchmarks.promotion_codes --database-url postgresql://postgres@127.0.0.1:5432/bench_promo

The database is wiped: never point it at data you want to keep.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from benchmarks.server import ROOT, free_port, running

CONCURRENCY = 16
BUDGET = 1.10  # p99 with a code / p99 without
CODE = "BENCH-CODE"


def _seed(url: str, customers: int, limit: int | None = None) -> tuple[str, str, list[str]]:
    """Two one-time agents of a vendor, a code for the second, and `customers` sessions."""
    from benchmarks.catalog import _engine, _reset_and_migrate
    from marketplace import db
    from marketplace.models import Agent, AgentStatus, PricingModel, PromotionCode, PromotionCodeAgent, Role, User
    from marketplace.services import auth

    _reset_and_migrate(url)
    engine = _engine(url)
    db.set_engine(engine)
    with db.session_scope() as session:
        vendor = User(
            username="benchvendor",
            email="benchvendor@example.com",
            password_hash="x",
            role=Role.VENDOR,
            is_vendor_approved=True,
            stripe_account_id=None,
        )
        session.add(vendor)
        session.flush()
        agents = [
            Agent(
                name=f"Bench agent {n}",
                short_description="s",
                description="d",
                price_cents=2999,
                pricing_model=PricingModel.ONE_TIME,
                status=AgentStatus.APPROVED,
                vendor_id=vendor.id,
            )
            for n in range(2)
        ]
        session.add_all(agents)
        session.flush()
        code = PromotionCode(code=CODE, percent_off=20, vendor_id=vendor.id, max_redemptions=limit)
        session.add(code)
        session.flush()
        session.add(PromotionCodeAgent(code_id=code.id, agent_id=agents[1].id))
        users = [User(username=f"bench{n}", email=f"bench{n}@example.com", password_hash="x") for n in range(customers)]
        session.add_all(users)
        plain, coded = agents[0].id, agents[1].id
    tokens = [auth.create_session(user=u) for u in users]
    engine.dispose()
    return plain, coded, tokens


def _round(
    base: str, origin: str, tokens: queue.Queue[str], agent_id: str, code: str | None, requests: int
) -> tuple[list[float], int]:
    samples: list[float] = []
    errors = 0
    lock = threading.Lock()
    left = [requests]

    def worker() -> None:
        nonlocal errors
        with httpx.Client(base_url=base, headers={"Origin": origin}, timeout=60) as client:
            while True:
                with lock:
                    if left[0] <= 0:
                        return
                    left[0] -= 1
                token = tokens.get_nowait()
                body = {"agentId": agent_id, **({"promotionCode": code} if code else {})}
                started = time.perf_counter()
                answer = client.post("/api/purchase/create-payment-intent", json=body, cookies={"mp_session": token})
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    if answer.status_code == 200:
                        samples.append(elapsed)
                    else:
                        errors += 1
                        if errors < 3:
                            print(f"  error {answer.status_code}: {answer.text[:200]}", flush=True)

    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return samples, errors


def _cpu_seconds(pid: int) -> float:
    """A process's CPU so far (user + system, all threads): what each variant costs the server and the stand-in,
    which on a saturated host is what latency grows with."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _standin_pid(stripe_base: str) -> int | None:
    """The stand-in's process (it answers on `stripe_base`'s port), to count what each variant costs it too."""
    port = stripe_base.rsplit(":", 1)[1]
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                args = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"dev.stripe_standin" in args and port.encode() in args:
                return int(proc.name)
    return None


def _pick(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run(url: str, *, customers: int, rounds: int, limit: int | None = None) -> dict[str, float]:
    from benchmarks.catalog import payment_services

    plain, coded, tokens = _seed(url, customers, limit)
    per_round = customers // (2 * rounds + 2)
    pool: queue.Queue[str] = queue.Queue()
    for token in tokens:
        pool.put(token)
    logs = Path(tempfile.mkdtemp(prefix="bench-promo-"))
    port = free_port()
    base, origin = f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    with payment_services(logs / "services.log") as payment_env:
        env = {**os.environ, **payment_env, "DATABASE_URL": url, "DEMO_MODE": "1", "PUBLIC_URL": origin}
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            "marketplace.api.app:create_api",
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ]
        with running(command, env=env, log_path=logs / "api.log", ready_url=f"{base}/api/stats",
                     timeout=120) as app:
            _round(base, origin, pool, plain, None, per_round // 2)  # warm-up, not counted
            _round(base, origin, pool, coded, CODE, per_round // 2)
            results: dict[str, list[float]] = {"without": [], "with": []}
            errors = {"without": 0, "with": 0}
            standin = _standin_pid(payment_env["STRIPE_API_BASE"])
            cpu = {f"{name}_{part}": 0.0 for name in ("without", "with") for part in ("app", "standin", "client")}
            for _ in range(rounds):
                for name, agent, code in (("without", plain, None), ("with", coded, CODE)):
                    before = (_cpu_seconds(app.pid), _cpu_seconds(standin) if standin else 0.0, time.process_time())
                    samples, failed = _round(base, origin, pool, agent, code, per_round)
                    after = (_cpu_seconds(app.pid), _cpu_seconds(standin) if standin else 0.0, time.process_time())
                    for part, spent in zip(("app", "standin", "client"), map(float.__sub__, after, before),
                                           strict=True):
                        cpu[f"{name}_{part}"] += spent
                    results[name] += samples
                    errors[name] += failed
    out: dict[str, float] = {}
    for name, samples in results.items():
        out[f"{name}_p50"], out[f"{name}_p99"] = _pick(samples, 0.50), _pick(samples, 0.99)
        out[f"{name}_n"], out[f"{name}_errors"] = len(samples), errors[name]
        out[f"{name}_mean"] = statistics.mean(samples) if samples else 0.0
        for part in ("app", "standin", "client"):
            out[f"{name}_{part}"] = cpu[f"{name}_{part}"] * 1000 / (len(samples) + errors[name]) if samples else 0.0
    out["ratio"] = out["with_p99"] / out["without_p99"] if out["without_p99"] else 0.0
    out["load"] = os.getloadavg()[0]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'data' / 'bench_promotion_codes.db'}")
    parser.add_argument("--customers", type=int, default=1600)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--max-redemptions", type=int, default=None,
                        help="give the code a limit (its holds are then counted on its row)")
    args = parser.parse_args()
    r = run(args.database_url, customers=args.customers, rounds=args.rounds, limit=args.max_redemptions)
    print("\n| variant | n | p50 ms | p99 ms | mean ms | CPU ms / request: app, stand-in, client | errors |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in ("without", "with"):
        print(
            f"| {name} a code | {r[f'{name}_n']:.0f} | {r[f'{name}_p50']:.1f} | {r[f'{name}_p99']:.1f} | "
            f"{r[f'{name}_mean']:.1f} | {r[f'{name}_app']:.1f}, {r[f'{name}_standin']:.1f}, "
            f"{r[f'{name}_client']:.1f} | {r[f'{name}_errors']:.0f} |"
        )
    verdict = "PASS" if r["ratio"] <= BUDGET and not r["with_errors"] else "FAIL"
    limit = f"code limited to {args.max_redemptions}" if args.max_redemptions else "code without a limit"
    print(f"\np99 with / without: {r['ratio']:.2f} ({verdict}, budget <= {BUDGET:.2f}); load {r['load']:.1f}; {limit}")


if __name__ == "__main__":
    main()
