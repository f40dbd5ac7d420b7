"""Benchmark seller webhooks: what queueing a delivery adds to a sale, and how fast the sender drains 1,000.

What it does:
1. wipes the target database (PostgreSQL by default; `--sqlite` for a file under data/bench/) and migrates it;
   makes a vendor with three endpoints (two listening to `sale.completed`, one to refunds only) on a local
   HTTP receiver (demo mode: plain http to loopback is allowed), and one agent;
2. the purchase path's added cost: `--sales` transactions shaped as a sale's (an order inserted, then committed),
   timed with and without webhooks (the vendor's endpoints read as a column of the sale's own read, the delivery
   rows inserted in the same transaction), alternating; prints p50/p99 of both and of the enqueue (to its flush);
3. the drain: `--deliveries` (1,000) pending deliveries drained by the app's sender (`webhooks.drain`, one
   sender, then again with two at once; each sends a claimed batch's POSTs on `SEND_THREADS` threads), each a
   signed POST to the receiver, which checks every signature;
   prints the wall time and deliveries per second.

Usage (from the project root, with the project's virtualenv; not part of `make test`):
    python -m benchmarks.webhooks                       # PostgreSQL bench_webhooks, 500 sales, 1,000 deliveries
    python -m benchmarks.webhooks --sqlite --sales 300

The URL comes from --database-url, else BENCH_WEBHOOKS_DATABASE_URL, else a local `bench_webhooks` database
(created through the `postgres` database when missing). It is wiped: never point it at data you want to keep.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

if __package__ in (None, ""):  # also runnable as `python benchmarks/webhooks.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.server import ROOT
from benchmarks.vendor import _ensure_database

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_webhooks"
SECRET = "whsec_bench"
BUDGET_MS = 50.0
WARMUP = 20


class Receiver:
    """A local endpoint in a process of its own (as a vendor's server is; in this process it would compete with
    the sender for the interpreter lock): answers 204, counts the deliveries whose signature checks out, and
    tells the counts on GET."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.webhooks", "--serve-receiver"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        port = int((self.proc.stdout.readline() if self.proc.stdout else "").strip())
        self.url = f"http://127.0.0.1:{port}/hooks"

    def counts(self) -> dict[str, int]:
        with urllib.request.urlopen(self.url, timeout=10) as answer:
            return json.load(answer)

    def reset(self) -> None:
        urllib.request.urlopen(urllib.request.Request(self.url, method="DELETE"), timeout=10).close()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def serve_receiver() -> None:
    counts = {"good": 0, "bad": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: bytes = b"") -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            parts = dict(p.split("=", 1) for p in self.headers["X-AgentMarket-Signature"].split(","))
            mac = hmac.new(SECRET.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
            with lock:
                counts["good" if hmac.compare_digest(mac, parts["v1"]) else "bad"] += 1
            self._answer(204)

        def do_GET(self) -> None:
            with lock:
                self._answer(200, json.dumps(counts).encode())

        def do_DELETE(self) -> None:
            with lock:
                counts.update(good=0, bad=0)
            self._answer(204)

        def log_message(self, *_args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # the default backlog (5) drops the connections of 16 POSTs at once
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _setup(receiver: Receiver) -> tuple[str, str]:
    from sqlalchemy import text

    from marketplace import migrate
    from marketplace.db import engine, session_scope
    from marketplace.models import Agent, User, WebhookEndpoint

    with engine().begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    migrate.upgrade()
    with session_scope() as session:
        vendor = User(
            username="bench-vendor",
            email="vendor@bench.test",
            password_hash="x",
            role="vendor",
            is_vendor_approved=True,
        )
        session.add(vendor)
        session.flush()
        agent = Agent(
            name="Bench Agent",
            short_description="s",
            description="d",
            vendor_id=vendor.id,
            status="approved",
            price_cents=2900,
        )
        session.add(agent)
        for events in ("sale.completed", "sale.completed,refund.completed", "refund.completed"):
            session.add(WebhookEndpoint(vendor_id=vendor.id, url=receiver.url, events=events, secret=SECRET))
        return vendor.id, agent.id


def _sale(vendor_id: str, agent_id: str, n: int, *, enqueue: bool) -> tuple[float, float]:
    """One sale-shaped transaction, as services/purchases/completion.py makes it: one read of the agent (with
    its vendor's endpoints when webhooks are on: `endpoints_column`), the order inserted, then the deliveries
    (`enqueue` with the endpoints read), committed. Answers (its whole time, the enqueue's part) in ms."""
    from sqlmodel import select

    from marketplace.db import session_scope
    from marketplace.models import Agent, Order
    from marketplace.services import webhooks

    started = time.perf_counter()
    part = 0.0
    with session_scope() as session:
        if enqueue:
            _agent, hooks = session.exec(
                select(Agent, webhooks.endpoints_column(Agent.vendor_id)).where(Agent.id == agent_id)
            ).one()
        else:
            session.exec(select(Agent).where(Agent.id == agent_id)).one()
        order = Order(
            vendor_id=vendor_id,
            agent_id=agent_id,
            agent_name="Bench Agent",
            total_amount_cents=2900,
            original_price_usd_cents=2900,
            commission_rate=20,
            vendor_amount_cents=2320,
            platform_fee_cents=580,
            payment_intent_id=f"pi_bench_{n}_{enqueue}",
        )
        session.add(order)
        session.flush()
        if enqueue:
            before = time.perf_counter()
            webhooks.enqueue(
                session,
                vendor_id=vendor_id,
                type="sale.completed",
                obj=webhooks.order_object(order),
                endpoints=webhooks.endpoints_of(hooks),
            )
            session.flush()
            part = (time.perf_counter() - before) * 1000
    return (time.perf_counter() - started) * 1000, part


def measure_sales(vendor_id: str, agent_id: str, sales: int) -> None:
    with_hook, without, parts = [], [], []
    for n in range(WARMUP + sales):
        total, part = _sale(vendor_id, agent_id, n, enqueue=True)
        plain, _ = _sale(vendor_id, agent_id, n, enqueue=False)
        if n >= WARMUP:
            with_hook.append(total)
            without.append(plain)
            parts.append(part)
    print(f"\nsale transaction, {sales} each (2 endpoints listening, 2 deliveries per sale):")
    print(f"  without webhooks: p50 {statistics.median(without):.2f} ms, p99 {_pct(without, 0.99):.2f} ms")
    print(f"  with webhooks:    p50 {statistics.median(with_hook):.2f} ms, p99 {_pct(with_hook, 0.99):.2f} ms")
    p99 = _pct(parts, 0.99)
    print(f"  enqueue itself:   p50 {statistics.median(parts):.2f} ms, p99 {p99:.2f} ms, max {max(parts):.2f} ms")
    added = _pct(with_hook, 0.99) - _pct(without, 0.99)
    print(
        f"  added p99 (with - without): {added:.2f} ms; budget (p99 added < {BUDGET_MS:.0f} ms):",
        "met" if max(p99, added) < BUDGET_MS else "NOT met",
    )


def _clear_deliveries() -> None:
    from sqlmodel import delete

    from marketplace.db import session_scope
    from marketplace.models import WebhookDelivery

    with session_scope() as session:
        session.exec(delete(WebhookDelivery))


def _queue(vendor_id: str, count: int) -> None:
    """`count` pending deliveries (sales to one endpoint listening alone), written as a batch."""
    from sqlmodel import select

    from marketplace.db import session_scope
    from marketplace.models import WebhookEndpoint
    from marketplace.models.base import new_id, utcnow
    from marketplace.services.webhooks import outbox

    with session_scope() as session:
        endpoint = session.exec(
            select(WebhookEndpoint).where(
                WebhookEndpoint.vendor_id == vendor_id, WebhookEndpoint.events == "sale.completed"
            )
        ).one()
        now = utcnow()
        for n in range(count):
            body = outbox.payload(
                event_id=f"evt_{new_id()}",
                type="sale.completed",
                created=now,
                obj={"object": "order", "id": f"order{n}"},
            )
            session.add(
                outbox.delivery(endpoint_id=endpoint.id, event_id=f"evt_{n}", type="sale.completed", body=body, now=now)
            )


def measure_drain(vendor_id: str, receiver: Receiver, count: int, senders: int) -> None:
    from marketplace.services.webhooks import sender

    _clear_deliveries()
    _queue(vendor_id, count)
    receiver.reset()
    sent: list[int] = []
    started = time.perf_counter()
    threads = [threading.Thread(target=lambda: sent.append(sender.drain())) for _ in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    got = receiver.counts()
    print(
        f"\ndrain of {count:,} deliveries, {senders} sender(s): {elapsed:.2f} s ({count / elapsed:.0f}/s); "
        f"succeeded {sum(sent):,}; receiver: {got['good']:,} signatures valid, {got['bad']} invalid"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url", help=f"PostgreSQL URL to wipe (default: BENCH_WEBHOOKS_DATABASE_URL or {DEFAULT_URL})"
    )
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file under data/bench/ instead")
    parser.add_argument("--sales", type=int, default=500)
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--serve-receiver", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_receiver:
        serve_receiver()
        return
    if args.sqlite:
        path = ROOT / "data" / "bench" / "webhooks.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        url = f"sqlite:///{path}"
    else:
        url = _ensure_database(args.database_url or os.environ.get("BENCH_WEBHOOKS_DATABASE_URL") or DEFAULT_URL)
    # Before the app's settings are first read: the database, demo mode (http to the loopback receiver).
    os.environ |= {"DATABASE_URL": url, "DEMO_MODE": "1", "APP_ENV": "local"}
    receiver = Receiver()
    try:
        vendor_id, agent_id = _setup(receiver)
        print(f"database: {url.split('@')[-1]}")
        measure_sales(vendor_id, agent_id, args.sales)
        measure_drain(vendor_id, receiver, args.deliveries, senders=1)
        measure_drain(vendor_id, receiver, args.deliveries, senders=2)
    finally:
        receiver.close()


if __name__ == "__main__":
    main()
