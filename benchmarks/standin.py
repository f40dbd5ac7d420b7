"""The local Stripe stand-in under many buyers at once: create + confirm PaymentIntents at concurrency 16 and 64.

    .venv/bin/python -m benchmarks.standin                     # 400 purchases per concurrency, state file on
    .venv/bin/python -m benchmarks.standin --purchases 1000 --prefill 3000 --concurrency 16,64

Each purchase is what a checkout costs the stand-in: the app creates a destination-charge PaymentIntent
(secret key, Idempotency-Key), the browser confirms it as Stripe.js does (publishable key, client secret, typed
card), and the app retrieves it on `complete`. The stand-in runs as `make run` starts it: `--state-file` and
a webhook URL (a receiver in its own process that answers 200 after `--webhook-ms`, like an app handling the
event). `--prefill N` first stores N paid intents, so the figures include a store the size a long demo session
grows to. Figures: per-purchase latency p50/p95/p99, purchases/s, the stand-in's own CPU time per purchase
and the share of one core it used (from /proc, so other load on the host does not inflate them), and the load
generator's CPU per purchase (when it exceeds the stand-in's, the generator is what limits the run).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import aiohttp
import httpx
from aiohttp import web

from benchmarks.server import ROOT, free_port, running

SECRET = "sk_test_bench"
PUBLISHABLE = "pk_test_bench"
WEBHOOK_SECRET = "whsec_bench"
CARD = {"payment_method_data[type]": "card", "payment_method_data[card][number]": "4242424242424242",
        "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034",
        "payment_method_data[card][cvc]": "123"}


def _serve_receiver(port: int, delay_ms: float) -> None:
    """The webhook endpoint (run in its own process): reads the event, waits like an app handler, answers 200."""
    count = 0

    async def hook(request: web.Request) -> web.Response:
        nonlocal count
        await request.read()
        await asyncio.sleep(delay_ms / 1000)
        count += 1
        return web.json_response({})

    async def seen(_request: web.Request) -> web.Response:
        return web.json_response({"received": count})

    app = web.Application()
    app.router.add_post("/hook", hook)
    app.router.add_get("/count", seen)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


async def _purchase(client: aiohttp.ClientSession, base: str, destination: str | None) -> float:
    """One checkout as the stand-in sees it (aiohttp: a lighter load generator than httpx at 64 connections)."""
    started = time.perf_counter()
    auth = {"Authorization": f"Bearer {SECRET}"}
    params = {"amount": "2999", "currency": "usd", "automatic_payment_methods[enabled]": "true",
              "description": "Benchmark purchase", "metadata[agent_id]": "bench"}
    if destination:
        params |= {"application_fee_amount": "600", "transfer_data[destination]": destination}
    async with client.post(f"{base}/v1/payment_intents", data=params,
                           headers={**auth, "Idempotency-Key": uuid.uuid4().hex}) as created:
        created.raise_for_status()
        intent = await created.json()
    async with client.post(f"{base}/v1/payment_intents/{intent['id']}/confirm", data={
            "key": PUBLISHABLE, "client_secret": intent["client_secret"], **CARD}) as confirmed:
        confirmed.raise_for_status()
        assert (await confirmed.json())["status"] == "succeeded"
    async with client.get(f"{base}/v1/payment_intents/{intent['id']}", headers=auth) as seen:
        seen.raise_for_status()
        await seen.read()
    return time.perf_counter() - started


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _run(base: str, *, purchases: int, concurrency: int, destination: str | None) -> list[float]:
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as client:
        queue: asyncio.Queue[int] = asyncio.Queue()
        for n in range(purchases):
            queue.put_nowait(n)
        latencies: list[float] = []

        async def worker() -> None:
            while True:
                try:
                    queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                latencies.append(await _purchase(client, base, destination))

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies


def _measure(base: str, pid: int, *, purchases: int, concurrency: int, destination: str) -> dict[str, float]:
    cpu, own = _cpu_seconds(pid), _cpu_seconds(os.getpid())
    started = time.perf_counter()
    latencies = asyncio.run(_run(base, purchases=purchases, concurrency=concurrency, destination=destination))
    elapsed = time.perf_counter() - started
    cpu, own = _cpu_seconds(pid) - cpu, _cpu_seconds(os.getpid()) - own
    cuts = statistics.quantiles(latencies, n=100)
    return {"c": concurrency, "n": purchases, "p50_ms": cuts[49] * 1000, "p95_ms": cuts[94] * 1000,
            "p99_ms": cuts[98] * 1000, "per_s": purchases / elapsed, "cpu_ms": cpu * 1000 / purchases,
            "busy": cpu / elapsed, "client_cpu_ms": own * 1000 / purchases, "load": os.getloadavg()[0]}


def _connected_account(base: str) -> str:
    auth = {"Authorization": f"Bearer {SECRET}"}
    account = httpx.post(f"{base}/v1/accounts", data={"type": "express", "email": "bench@example.com"},
                         headers=auth).json()
    httpx.post(f"{base}/_standin/connect/accounts/{account['id']}/complete").raise_for_status()
    return account["id"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.standin", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--purchases", type=int, default=400, help="purchases per concurrency level")
    parser.add_argument("--concurrency", default="16,64")
    parser.add_argument("--prefill", type=int, default=2000, help="paid intents stored before measuring")
    parser.add_argument("--webhook-ms", type=float, default=20, help="the receiver's time per webhook")
    parser.add_argument("--no-state-file", action="store_true", help="keep the store in memory only")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--standin-from", type=Path,
                        help="run the stand-in of another checkout (e.g. an export of main) to compare")
    parser.add_argument("--receiver", type=int, help=argparse.SUPPRESS)  # internal: serve the webhook endpoint
    args = parser.parse_args(argv)
    if args.receiver:
        _serve_receiver(args.receiver, args.webhook_ms)
        return

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    hook_port, port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    receiver = [sys.executable, "-m", "benchmarks.standin", "--receiver", str(hook_port),
                "--webhook-ms", str(args.webhook_ms)]
    with tempfile.TemporaryDirectory(prefix="standin-bench-") as tmp:
        module = ["-m", "dev.stripe_standin"]
        if args.standin_from:
            module = ["-c", f"import runpy, sys; sys.path.insert(0, {str(args.standin_from.resolve())!r}); "
                            "runpy.run_module('dev.stripe_standin', run_name='__main__', alter_sys=True)"]
        command = [sys.executable, *module, "--port", str(port), "--quiet",
                   "--webhook-url", f"http://127.0.0.1:{hook_port}/hook", "--webhook-secret", WEBHOOK_SECRET]
        if not args.no_state_file:
            command += ["--state-file", str(Path(tmp) / "standin.pickle")]
        logs = ROOT / "data" / "bench"
        with running(receiver, env=env, log_path=logs / "standin-receiver.log",
                     ready_url=f"http://127.0.0.1:{hook_port}/count", timeout=60), \
                running(command, env=env, log_path=logs / "standin.log", ready_url=f"{base}/_standin/health",
                        timeout=60) as standin:
            pid = standin.pid
            destination = _connected_account(base)
            if args.prefill:
                asyncio.run(_run(base, purchases=args.prefill, concurrency=16, destination=destination))
            results = [_measure(base, pid, purchases=args.purchases, concurrency=int(c), destination=destination)
                       for c in args.concurrency.split(",")]
            with contextlib.suppress(httpx.HTTPError):  # an older stand-in has no drain route
                httpx.post(f"{base}/_standin/webhooks/drain", json={"timeout": 60}, timeout=70)
            received = httpx.get(f"http://127.0.0.1:{hook_port}/count").json()["received"]
    print("| concurrency | purchases | p50 ms | p95 ms | p99 ms | purchases/s | stand-in CPU ms/purchase "
          "| stand-in busy | client CPU ms/purchase | load |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in results:
        print(f"| {row['c']} | {row['n']} | {row['p50_ms']:.0f} | {row['p95_ms']:.0f} | {row['p99_ms']:.0f} | "
              f"{row['per_s']:.1f} | {row['cpu_ms']:.1f} | {row['busy']:.0%} | {row['client_cpu_ms']:.1f} | "
              f"{row['load']:.1f} |")
    print(f"webhooks received: {received}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
