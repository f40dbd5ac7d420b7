"""Page speed: time from navigation start to the main content, in Chromium, at 0, 100 and 300 ms round trip.

What it does:
1. serves the app the way `make run` does (`scripts/run.sh`: migrations, demo data, the mail catcher, the Stripe
   stand-in, `reflex run --env prod --single-port`) on its own port, with its own build folder
   (`REFLEX_WEB_WORKDIR=.web-bench-pages`), database and files under `data/bench/pages/`;
2. for each page (`/`, `/agents`, `/agents/{id}`, `/categories`, `/dashboard` signed in as the demo customer) and
   each round trip, opens it in a fresh browser context (cold) and then once more in the same context (warm),
   three times, and records from navigation start (`performance.now()` of the page):
   - `frame`: the page frame (the top bar) or a skeleton is in the document,
   - `fcp`: the browser's first contentful paint,
   - `main`: what the user came for is there (real agent cards, the agent's title and price, the category cards,
     the dashboard's summary figures and its purchases tab);
   plus the requests, the 307 redirects and the websocket frames each load took, and when the event websocket
   was dialled and its upgrade answered (from the document's request);
3. prints a table of medians with PASS/FAIL against the budgets (cold: main <= 0.8 s on loopback, <= 1.2 s at
   100 ms, <= 2.0 s at 300 ms; frame or skeleton within 0.3 s on loopback); `--json FILE` writes every run.

Latency: Chromium's DevTools network emulation (`Network.emulateNetworkConditions`, `latency` = the round trip)
delays HTTP requests only: it leaves the websocket that carries Reflex's events untouched (checked by `--check-ws`:
the same event takes the same time with and without it). So the browser reaches the app through a small TCP proxy
that, for the `/_event` websocket connection only, holds every chunk for half the round trip in each direction
and the connection set-up for one round trip; HTTP requests pass through it untouched and get their latency from
DevTools. PUBLIC_URL points at the proxy, so the pages open their websocket through it.

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.pages                         # every page, 0/100/300 ms, 3 runs each
    python -m benchmarks.pages --pages /agents,/ --rtt 0,300 --runs 3 --json data/bench/pages.json
    python -m benchmarks.pages --check-ws              # does DevTools latency reach the websocket?
    python -m benchmarks.pages --base http://localhost:3000   # measure a server that is already running
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
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, CDPSession, Page, sync_playwright

if __package__ in (None, ""):  # also runnable as `python benchmarks/pages.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.server import ROOT, free_port, running, tool_path

WORK = ROOT / "data" / "bench" / "pages"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
MAIN_BUDGET_S = {0: 0.8, 100: 1.2, 300: 2.0}
FRAME_BUDGET_S = 0.3  # loopback only
CUSTOMER = ("customer", "customer123")

# JS predicates, evaluated in the page on every DOM change. `frame`: the top bar (the "AgentMarket" heading) or a
# skeleton; `main`: per page, the content the user came for.
FRAME_JS = ("Array.from(document.querySelectorAll('.rt-Heading')).some(e => e.textContent.trim() === 'AgentMarket')"
            " || !!document.querySelector('.rt-Skeleton, .agent-card-skeleton')")
MAIN_JS = {
    "/": "!!document.querySelector('#featured-agents .agent-card')",
    "/agents": "!!document.querySelector('#agents-grid .agent-card')",
    "/agents/{id}": "(() => { const n = document.querySelector('#agent-name'), p = document.querySelector("
                    "'#agent-price'); return !!(n && p && n.textContent.trim() && p.textContent.trim()); })()",
    "/categories": "!!document.querySelector('#categories-grid > *')",
    "/dashboard": "(() => { const v = document.querySelector('[id^=\"summary-\"][id$=\"-value\"]');"
                  " return !!(v && v.textContent.trim() && document.querySelector('#purchase-grid, "
                  "#purchases-empty')); })()",
}
PAGES = list(MAIN_JS)

INIT_SCRIPT = """
(() => {
  const marks = {};
  window.__bench = marks;
  const tests = {frame: () => (%s), main: () => (%s)};
  const check = () => {
    for (const [name, test] of Object.entries(tests)) {
      if (!(name in marks)) { try { if (test()) marks[name] = performance.now(); } catch (e) {} }
    }
  };
  new MutationObserver(check).observe(document, {childList: true, subtree: true, characterData: true});
  document.addEventListener('DOMContentLoaded', check);
})();
"""


# ---- the websocket delay proxy ------------------------------------------------------------------------------


class DelayProxy:
    """A loopback TCP proxy: the `/_event` websocket gets `rtt_ms` of latency, everything else passes through."""

    def __init__(self, listen_port: int, target_port: int) -> None:
        self.listen_port, self.target_port = listen_port, target_port
        self.rtt_ms = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(10)

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", self.listen_port))
        self._ready.set()
        self._loop.run_forever()
        server.close()
        pending = asyncio.all_tasks(self._loop)  # connections still open when the run ends
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        first = await reader.read(65536)
        delay = self.rtt_ms / 2000 if b"/_event" in first.split(b"\r\n", 1)[0] else 0.0
        if delay:
            await asyncio.sleep(2 * delay)  # TCP set-up: one round trip before the first byte can go
        await asyncio.gather(self._pipe(reader, upstream_writer, delay, first),
                             self._pipe(upstream_reader, writer, delay, b""))

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float, first: bytes) -> None:
        """Copy one direction; each chunk is written `delay` seconds after it arrived, order kept."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                if not chunk:
                    break
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(chunk)
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
            with contextlib.suppress(OSError, RuntimeError):
                writer.close()

        task = asyncio.ensure_future(deliver())
        try:
            if first:
                queue.put_nowait((time.monotonic() + delay, first))
            while chunk := await reader.read(65536):
                queue.put_nowait((time.monotonic() + delay, chunk))
        except (ConnectionError, OSError):
            pass
        queue.put_nowait((0.0, b""))
        await task


# ---- the server -------------------------------------------------------------------------------------------


@contextlib.contextmanager
def server(port: int, public_port: int) -> Iterator[str]:
    """`scripts/run.sh` (what `make run` runs) on `port`, its public address on `public_port` (the proxy)."""
    path = tool_path()
    if shutil.which("bun", path=path) is None:
        sys.exit("bun not found: run `make setup` (installs it into .tools) or put it on PATH")
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    env = {
        **os.environ,
        "PATH": path,
        "REFLEX_WEB_WORKDIR": ".web-bench-pages",
        "PORT": str(port),
        "PUBLIC_URL": f"http://localhost:{public_port}",
        "DATABASE_URL": f"sqlite:///{WORK / 'pages.db'}",
        "STORAGE_DIR": str(WORK / "files"),
        "STRIPE_STANDIN_PORT": str(free_port()),
        "STRIPE_STANDIN_STATE": str(WORK / "stripe-standin.pickle"),
        "MAIL_CATCHER_PORT": str(free_port()),
        "DEV_MAILBOX_FILE": str(WORK / "mailbox.jsonl"),
        "REDIS_URL": "",
    }
    for name in ("SMTP_URL", "STRIPE_SECRET_KEY", "REFLEX_REDIS_URL"):
        env.pop(name, None)
    base = f"http://127.0.0.1:{port}"
    with running(["bash", "scripts/run.sh"], env=env, log_path=WORK.parent / "pages-server.log", ready_url=f"{base}/"):
        yield base


# ---- one load ---------------------------------------------------------------------------------------------


@dataclass
class Load:
    page: str
    rtt_ms: int
    kind: str  # cold | warm
    run: int
    main_s: float | None
    frame_s: float | None
    fcp_s: float | None
    requests: int
    redirects: list[str] = field(default_factory=list)
    cached: int = 0  # answers served from the browser's cache
    ws_sent: int = 0  # websocket frames sent before the main content showed (events, their callbacks)
    ws_dial_s: float | None = None  # the event websocket's handshake request left, from the document's request
    ws_open_s: float | None = None  # its upgrade answered (the engine.io open packet follows on it)


def _emulate(page: Page, rtt_ms: int) -> CDPSession:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": rtt_ms, "downloadThroughput": -1,
                                                  "uploadThroughput": -1})
    return cdp


def _load(page: Page, cdp: CDPSession, url: str, label: str, rtt_ms: int, kind: str, run: int,
          timeout_s: float) -> Load:
    requests: list[str] = []
    redirects: list[str] = []
    cached = [0]
    frames = [0]
    times: dict[str, float] = {}  # DevTools' monotonic timestamps (s): the document request, the socket's upgrade

    def on_request(event: dict) -> None:
        times.setdefault("document", event["timestamp"])
        requests.append(event["request"]["url"])
        if event.get("redirectResponse"):
            redirects.append(f"{event['redirectResponse']['status']} {event['redirectResponse']['url']}")

    def on_response(event: dict) -> None:
        if event["response"].get("fromDiskCache") or event["response"].get("fromMemoryCache"):
            cached[0] += 1

    cdp.on("Network.requestWillBeSent", on_request)
    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.requestServedFromCache", lambda _event: cached.__setitem__(0, cached[0] + 1))
    cdp.on("Network.webSocketFrameSent", lambda _event: frames.__setitem__(0, frames[0] + 1))
    cdp.on("Network.webSocketWillSendHandshakeRequest", lambda event: times.setdefault("dial", event["timestamp"]))
    cdp.on("Network.webSocketHandshakeResponseReceived", lambda event: times.setdefault("open", event["timestamp"]))
    page.goto(url, wait_until="commit")
    main_s = None
    try:
        page.wait_for_function("() => 'main' in (window.__bench || {})", timeout=timeout_s * 1000)
        marks = page.evaluate("() => window.__bench")
        main_s = marks["main"] / 1000
    except Exception:  # a timeout is a result (no main content), not a crash
        marks = page.evaluate("() => window.__bench || {}")
    sent_before_main = frames[0]
    fcp = page.evaluate("() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime ?? null")
    since = {name: round(times[name] - times["document"], 3) if name in times and "document" in times else None
             for name in ("dial", "open")}
    return Load(label, rtt_ms, kind, run, main_s, marks.get("frame", None) and marks["frame"] / 1000,
                fcp / 1000 if fcp is not None else None, len(requests), redirects, cached[0], sent_before_main,
                since["dial"], since["open"])


def _context(browser: Browser, base: str, *, signed_in: bool) -> BrowserContext:
    context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 900})
    if signed_in:
        answer = context.request.post("/api/login", data={"username": CUSTOMER[0], "password": CUSTOMER[1]},
                                      headers={"Origin": base})
        if answer.status != 200:
            sys.exit(f"could not sign the demo customer in: {answer.status} {answer.text()}")
    return context


def measure(browser: Browser, base: str, proxy: DelayProxy | None, *, pages: list[str], rtts: list[int],
            runs: int, timeout_s: float) -> list[Load]:
    with urllib.request.urlopen(f"{base}/api/agents?limit=1&sort=popularity", timeout=30) as response:
        agent_id = json.loads(response.read())[0]["id"]
    loads: list[Load] = []
    for rtt in rtts:
        if proxy:
            proxy.rtt_ms = rtt
        for label in pages:
            path = label.replace("{id}", agent_id)
            script = INIT_SCRIPT % (FRAME_JS, MAIN_JS[label])
            for run in range(1, runs + 1):
                context = _context(browser, base, signed_in=label == "/dashboard")
                context.add_init_script(script)
                for kind in ("cold", "warm"):
                    page = context.new_page()
                    cdp = _emulate(page, rtt)
                    load = _load(page, cdp, base + path, label, rtt, kind, run, timeout_s)
                    page.close()
                    loads.append(load)
                    print(f"  {label:<14} rtt {rtt:>3} ms {kind:<4} #{run}: main {_fmt(load.main_s)}  frame "
                          f"{_fmt(load.frame_s)}  fcp {_fmt(load.fcp_s)}  requests {load.requests}  307s "
                          f"{len(load.redirects)}  ws frames {load.ws_sent}  ws dialled {_fmt(load.ws_dial_s)} "
                          f"open {_fmt(load.ws_open_s)}", flush=True)
                context.close()
    return loads


def check_ws(browser: Browser, base: str) -> dict[str, float]:
    """Round trip of Reflex's first event on the websocket, with DevTools latency off and at 300 ms (no proxy
    delay): if the two are close, DevTools emulation does not reach the websocket."""
    result = {}
    for rtt in (0, 300):
        context = browser.new_context(base_url=base)
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": rtt, "downloadThroughput": -1,
                                                      "uploadThroughput": -1})
        sent: list[float] = []
        gaps: list[float] = []

        def on_received(event: dict, sent: list[float] = sent, gaps: list[float] = gaps) -> None:
            if sent and len(gaps) < len(sent):
                gaps.append(event["timestamp"] - sent[-1])

        cdp.on("Network.webSocketFrameSent", lambda e, sent=sent: sent.append(e["timestamp"]))
        cdp.on("Network.webSocketFrameReceived", on_received)
        page.goto(base + "/categories")
        page.locator("#categories-grid").wait_for()
        result[f"devtools latency {rtt} ms: first event round trip (ms)"] = round(gaps[0] * 1000, 1) if gaps else -1
        context.close()
    return result


# ---- report -----------------------------------------------------------------------------------------------


def _fmt(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:5.2f}"


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if len(present) == len(values) and present else None


def report(loads: list[Load]) -> tuple[str, bool]:
    lines = ["| page | rtt ms | cold main s | warm main s | frame s (cold) | FCP s (cold) | ws dialled s (cold) | "
             "ws open s (cold) | requests (cold) | 307s | budget |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    ok = True
    groups: dict[tuple[str, int], list[Load]] = {}
    for load in loads:
        groups.setdefault((load.page, load.rtt_ms), []).append(load)
    for (label, rtt), group in groups.items():
        cold = [g for g in group if g.kind == "cold"]
        warm = [g for g in group if g.kind == "warm"]
        main = _median([g.main_s for g in cold])
        frame = _median([g.frame_s for g in cold])
        verdicts = []
        if rtt in MAIN_BUDGET_S:
            passed = main is not None and main <= MAIN_BUDGET_S[rtt]
            verdicts.append(f"main {'PASS' if passed else 'FAIL'} (<= {MAIN_BUDGET_S[rtt]})")
            ok = ok and passed
        if rtt == 0:
            passed = frame is not None and frame <= FRAME_BUDGET_S
            verdicts.append(f"frame {'PASS' if passed else 'FAIL'} (<= {FRAME_BUDGET_S})")
            ok = ok and passed
        lines.append(
            f"| {label} | {rtt} | {_fmt(main)} | {_fmt(_median([g.main_s for g in warm]))} | {_fmt(frame)} | "
            f"{_fmt(_median([g.fcp_s for g in cold]))} | {_fmt(_median([g.ws_dial_s for g in cold]))} | "
            f"{_fmt(_median([g.ws_open_s for g in cold]))} | {statistics.median(g.requests for g in cold):.0f} | "
            f"{max(len(g.redirects) for g in cold)} | {', '.join(verdicts)} |"
        )
    return "\n".join(lines), ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", default=",".join(PAGES), help=f"comma-separated, out of {', '.join(PAGES)}")
    parser.add_argument("--rtt", default="0,100,300", help="round trips in ms, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=3331, help="the app's port (the proxy takes the next one)")
    parser.add_argument("--base", help="measure this running server instead (no proxy: the websocket is not "
                                       "delayed)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for the main content")
    parser.add_argument("--check-ws", action="store_true", help="only check whether DevTools latency delays the "
                                                                "websocket")
    parser.add_argument("--json", help="also write every load to this file")
    args = parser.parse_args()
    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    unknown = [p for p in pages if p not in MAIN_JS]
    if unknown:
        sys.exit(f"unknown pages {unknown}; choose from {PAGES}")
    rtts = [int(r) for r in args.rtt.split(",")]

    with contextlib.ExitStack() as stack:
        proxy = None
        if args.base:
            base = args.base.rstrip("/")
        else:
            proxy = DelayProxy(args.port + 1, args.port)
            proxy.start()
            stack.callback(proxy.stop)
            stack.enter_context(server(args.port, args.port + 1))
            base = f"http://localhost:{args.port + 1}"
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                     args=CHROMIUM_ARGS)
        stack.callback(browser.close)
        print("websocket check (proxy delay off):", json.dumps(check_ws(browser, base)), flush=True)
        if args.check_ws:
            return
        loads = measure(browser, base, proxy, pages=pages, rtts=rtts, runs=args.runs, timeout_s=args.timeout)
    table, ok = report(loads)
    print(f"\n{table}\n\nmedian of {args.runs}; cold budgets {'all met' if ok else 'NOT all met'}; "
          f"load average {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps([asdict(load) for load in loads], indent=2))


if __name__ == "__main__":
    main()
