"""Does one browser's slow page hold up another's? The catalogue filter while the vendor dashboard asks Stripe.

What it does:
1. serves the app the way `make run` does (`scripts/run.sh`: migrations, demo data, the mail catcher, the Stripe
   stand-in, `reflex run --env prod --single-port`) on free ports, with its own build folder
   (`REFLEX_WEB_WORKDIR=.web-bench-loop`), SQLite database and files under `data/bench/event_loop/`, and the
   stand-in answering every API call after `--stripe-ms` (500 by default: `STANDIN_DELAY_MS`);
2. opens two browser contexts in Chromium (two sessions, two websockets): A on `/agents`, B signed in as the demo
   vendor;
3. per run and per offset (`--offsets`, default 0, 100 and 300 ms): A alone presses a tag filter (`toggle_tag`, on
   and off in turn), then B opens `/vendor` and, that many ms after B's browser sent the dashboard tab's `load`
   event (which reads the sales figures and the track record from the database, then the connected account's
   payouts from Stripe), A presses the filter again;
4. the filter's latency is the time from A's browser sending the event to it receiving the event's last answer
   (the address update, `history.pushState`), both taken from Chromium's DevTools websocket frame timestamps; the
   dashboard's time is from B's `load` sent to its payout card's answer. Prints median, p95 and max of A alone
   and A beside B per offset, and the delay B caused (each run's filter beside B minus the median of A alone:
   median, p95 and max). The budget: a median delay <= 50 ms at every offset. The p95 is printed, not judged: on
   a shared host it mostly shows the host's noise (compare A alone's own p95 with its median).

Usage (from the project root, with the project's virtualenv; not part of `make test`):
    python -m benchmarks.event_loop                    # 20 runs per offset, Stripe answers after 500 ms
    python -m benchmarks.event_loop --runs 40 --offsets 150 --json data/bench/event_loop.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, CDPSession, Page, async_playwright

if __package__ in (None, ""):  # also runnable as `python benchmarks/event_loop.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.server import ROOT, free_port, running, tool_path

WORK = ROOT / "data" / "bench" / "event_loop"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
VENDOR = ("vendor", "vendor123")
TAG = "automation"
FILTER_EVENT = "browse_state.toggle_tag"
FILTER_DONE = "pushState"  # the event's last answer: the filters written into the address
DASHBOARD_LOAD = "vendor_dashboard_state.load"
DASHBOARD_DONE = '"payments_loading_rx_state_":false'
BUDGET_MS = 50.0
TIMEOUT_S = 30.0


class Frames:
    """The websocket frames one page sent and received, with DevTools' timestamps (seconds, one clock per
    browser)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, float, str]] = []
        self._changed = asyncio.Event()

    def listen(self, cdp: CDPSession) -> None:
        cdp.on("Network.webSocketFrameSent", lambda e: self._add("sent", e))
        cdp.on("Network.webSocketFrameReceived", lambda e: self._add("received", e))

    def _add(self, kind: str, event: dict) -> None:
        text = event["response"].get("payloadData", "").replace(" ", "")  # needles are written without spaces
        self.items.append((kind, event["timestamp"], text))
        self._changed.set()

    def mark(self) -> int:
        return len(self.items)

    async def wait_for(self, kind: str, needle: str, start: int) -> tuple[int, float]:
        """The first frame of `kind` from index `start` on whose text holds `needle`: (its index, its time)."""
        async with asyncio.timeout(TIMEOUT_S):
            while True:
                for index in range(start, len(self.items)):
                    seen_kind, stamp, text = self.items[index]
                    if seen_kind == kind and needle in text:
                        return index, stamp
                start = len(self.items)
                self._changed.clear()
                await self._changed.wait()


async def _watched(context: BrowserContext) -> tuple[Page, Frames]:
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("Network.enable")
    frames = Frames()
    frames.listen(cdp)
    return page, frames


async def _filter(page: Page, frames: Frames) -> float:
    """Press the tag filter; its latency in ms."""
    start = frames.mark()
    await page.click(f"#tag-{TAG}")
    index, sent = await frames.wait_for("sent", FILTER_EVENT, start)
    _, done = await frames.wait_for("received", FILTER_DONE, index)
    return (done - sent) * 1000


async def _vendor_load(page: Page, frames: Frames, dashboard_sent: asyncio.Future[None]) -> float:
    """Open /vendor; the dashboard tab's time from its `load` sent to its payout card's answer, in ms."""
    start = frames.mark()
    await page.goto("/vendor", wait_until="commit")
    index, sent = await frames.wait_for("sent", DASHBOARD_LOAD, start)
    dashboard_sent.set_result(None)
    _, done = await frames.wait_for("received", DASHBOARD_DONE, index)
    await page.locator("#payment-state").wait_for()
    return (done - sent) * 1000


async def measure(browser: Browser, base: str, *, runs: int, offsets: list[float],
                  warmup: int) -> dict[str, list[float]]:
    shopper = await browser.new_context(base_url=base, viewport={"width": 1280, "height": 900})
    vendor = await browser.new_context(base_url=base, viewport={"width": 1280, "height": 900})
    answer = await vendor.request.post("/api/login", data={"username": VENDOR[0], "password": VENDOR[1]},
                                       headers={"Origin": base})
    if answer.status != 200:
        sys.exit(f"could not sign the demo vendor in: {answer.status} {await answer.text()}")
    a_page, a_frames = await _watched(shopper)
    b_page, b_frames = await _watched(vendor)
    await a_page.goto("/agents")
    await a_page.locator("#hydrated").wait_for(state="attached")
    await a_page.locator("#agents-grid .agent-card").first.wait_for()
    for _ in range(warmup):
        await _filter(a_page, a_frames)
        await _vendor_load(b_page, b_frames, asyncio.get_running_loop().create_future())
    result: dict[str, list[float]] = {"alone_ms": [], "dashboard_ms": [], **{_key(o): [] for o in offsets}}
    for run in range(1, runs + 1):
        for offset in offsets:
            alone = await _filter(a_page, a_frames)
            dashboard_sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            loading = asyncio.create_task(_vendor_load(b_page, b_frames, dashboard_sent))
            await asyncio.wait_for(dashboard_sent, TIMEOUT_S)
            await asyncio.sleep(offset / 1000)
            beside = await _filter(a_page, a_frames)
            dashboard = await loading
            for key, value in (("alone_ms", alone), (_key(offset), beside), ("dashboard_ms", dashboard)):
                result[key].append(value)
            print(f"  run {run:>2}, offset {offset:3.0f} ms: filter alone {alone:6.1f} ms, beside /vendor "
                  f"{beside:6.1f} ms (dashboard load to payouts {dashboard:6.1f} ms)", flush=True)
    await shopper.close()
    await vendor.close()
    return result


def _key(offset: float) -> str:
    return f"beside_{offset:g}_ms"


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def report(result: dict[str, list[float]], *, stripe_ms: float, offsets: list[float]) -> bool:
    alone, dashboard = result["alone_ms"], result["dashboard_ms"]
    base = statistics.median(alone)
    print(f"\nStripe stand-in answers after {stripe_ms:.0f} ms; {len(alone) // len(offsets)} runs per offset; "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| filter event | median ms | p95 ms | max ms | delay by B: median ms | p95 ms | max ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = [("A alone", alone, None)]
    rows += [(f"A, {o:g} ms after B's dashboard load", result[_key(o)], [b - base for b in result[_key(o)]])
             for o in offsets]
    passed = True
    for label, values, delays in rows:
        figures = f"| {label} | {statistics.median(values):.1f} | {_p95(values):.1f} | {max(values):.1f} |"
        if delays is None:
            print(figures + " | | |")
            continue
        passed = passed and statistics.median(delays) <= BUDGET_MS
        print(figures + f" {statistics.median(delays):.1f} | {_p95(delays):.1f} | {max(delays):.1f} |")
    print(f"| B: dashboard load to payouts | {statistics.median(dashboard):.1f} | {_p95(dashboard):.1f} | "
          f"{max(dashboard):.1f} | | | |")
    print(f"budget: median delay <= {BUDGET_MS:.0f} ms at every offset: {'PASS' if passed else 'FAIL'}")
    return passed


@contextlib.contextmanager
def server(stripe_ms: float) -> Iterator[str]:
    """`scripts/run.sh` (what `make run` runs) on a free port, the stand-in answering `stripe_ms` late."""
    path = tool_path()
    if shutil.which("bun", path=path) is None:
        sys.exit("bun not found: run `make setup` (installs it into .tools) or put it on PATH")
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    port = free_port()
    env = {
        **os.environ,
        "PATH": path,
        "REFLEX_WEB_WORKDIR": ".web-bench-loop",
        "PORT": str(port),
        "PUBLIC_URL": f"http://localhost:{port}",
        "DATABASE_URL": f"sqlite:///{WORK / 'app.db'}",
        "STORAGE_DIR": str(WORK / "files"),
        "STRIPE_STANDIN_PORT": str(free_port()),
        "STRIPE_STANDIN_STATE": str(WORK / "stripe-standin.pickle"),
        "STANDIN_DELAY_MS": str(stripe_ms),
        "MAIL_CATCHER_PORT": str(free_port()),
        "DEV_MAILBOX_FILE": str(WORK / "mailbox.jsonl"),
        "APP_ENV": "local",
        "REDIS_URL": "",
    }
    for name in ("SMTP_URL", "STRIPE_SECRET_KEY", "REFLEX_REDIS_URL", "DEMO_MODE", "DEMO_DATA"):
        env.pop(name, None)
    base = f"http://localhost:{port}"
    with running(["bash", "scripts/run.sh"], env=env, log_path=WORK.parent / "event-loop-server.log",
                 ready_url=f"{base}/"):
        yield base


async def _run(base: str, args: argparse.Namespace) -> dict[str, list[float]]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                           args=CHROMIUM_ARGS)
        try:
            return await measure(browser, base, runs=args.runs, offsets=args.offsets, warmup=args.warmup)
        finally:
            await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.event_loop", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="runs per offset")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--stripe-ms", type=float, default=500, help="the stand-in's delay per API call")
    parser.add_argument("--offsets", type=lambda v: [float(x) for x in v.split(",")], default=[0.0, 100.0, 300.0],
                        help="ms between B's dashboard load and A's filter event, comma-separated")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()
    with server(args.stripe_ms) as base:
        print(f"serving on {base}", flush=True)
        result = asyncio.run(_run(base, args))
    passed = report(result, stripe_ms=args.stripe_ms, offsets=args.offsets)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"stripe_ms": args.stripe_ms, **result}, indent=2))
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
