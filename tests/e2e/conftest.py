"""Browser tests: one built app (fresh SQLite + demo data) shared by every test, driven by Chromium."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Frame, Page, WebSocket, expect, sync_playwright

from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]

E2E_DIR = Path(__file__).resolve().parent
# A loaded CI box (several app workers, PostgreSQL, Redis, on two cores) can take a few seconds to answer.
expect.set_options(timeout=10_000)

# Every page of a test's browser contexts records each toast it shows (title and description) in the tab's
# sessionStorage from the moment it opens: a toast stays about four seconds, and a test that looks for it after a
# stall (a loaded CI host) would miss a toast the page did show. `expect_toast` takes the record's entries one by
# one, so a toast expected twice must be shown twice.
TOAST_RECORDER = """
(() => {
  if (window.__toastRecorder) return;
  window.__toastRecorder = true;
  const KEY = "__e2e_toasts";
  const slots = new WeakMap();  // toast element -> its entry's index (a description may render after the title)
  const text = (el, part) => (el.querySelector(part)?.textContent || "").replace(/\\s+/g, " ").trim();
  const record = (el) => {
    const entry = {title: text(el, "[data-title]"), description: text(el, "[data-description]")};
    if (!entry.title && !entry.description) return;
    let list;
    try { list = JSON.parse(sessionStorage.getItem(KEY) || "[]"); } catch (e) { list = []; }
    if (slots.has(el)) {
      const at = slots.get(el);
      if (!list[at] || (list[at].title === entry.title && list[at].description === entry.description)) return;
      list[at] = entry;
    } else {
      slots.set(el, list.length);
      list.push(entry);
    }
    sessionStorage.setItem(KEY, JSON.stringify(list));
  };
  const scan = () => document.querySelectorAll("[data-sonner-toast]").forEach(record);
  new MutationObserver(scan).observe(document, {childList: true, subtree: true, characterData: true});
})();
"""

# The app's event loop reports every callback that holds it longer than this (asyncio debug mode, set up when
# the app starts serving; marketplace/loop_watch.py): a state doing blocking work on the loop stalls every browser
# of that worker, and the test during which a state's event did so fails. `SLOW_CALLBACK_MS=0` turns it off.
SLOW_CALLBACK_MS = os.environ.get("SLOW_CALLBACK_MS", "50")
SLOW_CALLBACK = re.compile(r"Executing .+? took \d+\.\d+ seconds")
# A state's event runs as a task named after its handler. Other callbacks (socket.io's writer, Reflex's own
# book-keeping) name no state: on a busy box they are seen waiting for the interpreter lock while the worker's
# threads run the services, so they are shown as warnings, not failures.
STATE_EVENT = "name='reflex_event|"
APP_LOG = pytest.StashKey[Path]()
LOG_START = pytest.StashKey[int]()  # where the app's log stood when a test began
BROWSER_LOG = pytest.StashKey[list[str]]()  # what the test's page saw (`record_browser`)
FRAME_CHARS = 300  # of each websocket frame in that record: enough for the event's name and the delta's states


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder drives a browser: mark each `e2e` (`-m "not e2e"` skips them all). A
    `pytestmark` here would mark nothing: pytest reads it from test modules only."""
    for item in items:
        if E2E_DIR in item.path.resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A failed browser test's report shows what the app logged meanwhile (the app runs in its own process)."""
    outcome = yield
    report = outcome.get_result()
    log, start = item.config.stash.get(APP_LOG, None), item.stash.get(LOG_START, None)
    # The session's app (and its log) is gone when the last test's teardown fails after it was stopped.
    if report.failed and log is not None and start is not None and log.exists():
        report.sections.append(("app log during the test (last 8,000 characters)", logged_since(log, start)[-8000:]))
    if report.failed and (seen := item.stash.get(BROWSER_LOG, None)):
        report.sections.append(("browser during the test: navigations, console, websockets (last 12,000 characters)",
                                "\n".join(seen)[-12000:] + _tab_lock(seen)))


# The tab's session token in the record: in its event websocket's address, or as Reflex renamed the tab.
TAB_TOKEN = re.compile(r'token=([0-9a-f-]{36})|"new_token",\s*"([0-9a-f-]{36})"')


def _tab_lock(seen: list[str]) -> str:
    """With Redis: who holds the state lock of the page's tab now. A page whose hydrate waits for that lock (held
    by an event of the tab's previous page until the lock expires) otherwise fails with nothing in either log."""
    tokens = [a or b for a, b in TAB_TOKEN.findall("\n".join(seen))]
    if not (url := os.environ.get("E2E_REDIS_URL")) or not tokens:
        return ""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=2)
    try:
        key = f"{tokens[-1]}_lock"
        holder, left = cast(bytes | None, client.get(key)), client.pttl(key)
    except redis.RedisError as error:
        return f"\nthe tab's state lock could not be read: {error}"
    finally:
        client.close()
    if holder is None:
        return f"\nthe tab's state lock ({key}) is free"
    return f"\nthe tab's state lock ({key}) is held by {holder.decode(errors='replace')}, for {left} ms more"


def _wait_for(url: str, proc: subprocess.Popen, log: Path, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"app exited early:\n{log.read_text()[-4000:]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"app did not answer {url} within {timeout}s:\n{log.read_text()[-4000:]}")


def _empty_postgres(url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def _warm_up(browser: Browser, base: str) -> None:
    """One page load before any test: the app hydrates a page before the first test's clock starts. The
    one-time costs a cold worker's first events paid (FastAPI's route contexts, Reflex's serializer look-ups and
    default snapshot) each worker now pays before it serves (`marketplace/warm_up.py`): measured, a cold worker's
    first tab held its loop 8-10 ms of CPU as later tabs do, where it held 23-28 ms (and its first request
    220-240 ms). This load is kept until a full run with several workers passes without it. Longer holds later on
    were full garbage collections falling in a callback (the loop watch counts them apart): start-up's objects
    are frozen out of them, a worker's tabs and requests since are not."""
    context = new_context(browser, base_url=base)
    try:
        page = context.new_page()
        page.goto("/")
        page.locator("#hydrated").wait_for(state="attached", timeout=60_000)
    finally:
        context.close()


@pytest.fixture(scope="session")
def app_server(request: pytest.FixtureRequest) -> Iterator[str]:
    """Start the app as `make run` does, on a free port with its own database and files."""
    tmp = Path(tempfile.mkdtemp(prefix="marketplace-e2e-"))
    port = int(os.environ.get("E2E_PORT") or free_port())
    base = f"http://localhost:{port}"
    database_url = os.environ.get("E2E_DATABASE_URL") or f"sqlite:///{tmp / 'e2e.db'}"
    if database_url.startswith("postgresql"):
        _empty_postgres(database_url)
    env = {
        **os.environ,
        "PORT": str(port),
        "PUBLIC_URL": base,
        "DATABASE_URL": database_url,
        "REDIS_URL": os.environ.get("E2E_REDIS_URL", ""),
        "STRIPE_STANDIN_PORT": str(free_port()),
        "STRIPE_STANDIN_STATE": str(tmp / "stripe-standin.pickle"),
        "STORAGE_DIR": str(tmp / "files"),
        "MAIL_CATCHER_PORT": str(free_port()),  # scripts/run.sh starts the catcher; /dev/mail shows its mail
        "DEV_MAILBOX_FILE": str(tmp / "mailbox.jsonl"),
        "CLAMAV_DIR": str(tmp / "clamav"),  # scripts/run.sh starts clamd there (offline signatures)
        "APP_ENV": "local",
        # 5 MB (S3's smallest part): the wizard test's 6 MB file goes multipart, its small one does not
        "UPLOAD_MULTIPART_THRESHOLD_BYTES": str(5 * 1024 * 1024),
        # Every browser test signs up and reviews from 127.0.0.1: keep the per-address limits out of their way.
        "RATE_LIMIT_REGISTER": "1000", "RATE_LIMIT_REVIEWS": "1000", "RATE_LIMIT_REPORTS": "1000",
        "SLOW_CALLBACK_MS": SLOW_CALLBACK_MS,
    }
    env.pop("TEST_DATABASE_URL", None)
    env.pop("SMTP_URL", None)
    env.pop("CLAMD_SOCKET", None)
    log = tmp / "app.log"
    with log.open("w") as out:
        proc = subprocess.Popen(["bash", "scripts/run.sh"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_for(f"{base}/ping", proc, log)
        _wait_for(f"{base}/", proc, log)
        _warm_up(request.getfixturevalue("browser"), base)
        if SLOW_CALLBACK_MS != "0":
            assert "event loop watched" in log.read_text(), "the app does not watch its event loop"
        request.config.stash[APP_LOG] = log
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def logged_since(log: Path, start: int) -> str:
    """What the app wrote to its log after byte `start`."""
    with log.open("rb") as text:
        text.seek(start)
        return text.read().decode(errors="replace")


def slow_callbacks(log: Path, start: int) -> list[str]:
    """The app's reports of callbacks that held its event loop too long, written after byte `start` of its log."""
    return [line.strip() for line in logged_since(log, start).splitlines() if SLOW_CALLBACK.search(line)]


@pytest.fixture
def admin(app_server: str) -> Iterator[httpx.Client]:
    """The demo admin, signed in through the API."""
    from tests.e2e.helpers import admin_client  # helpers imports this module

    with admin_client(app_server) as client:
        yield client


@pytest.fixture(autouse=True)
def loop_never_held(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a browser test during which a state's event held the app's event loop longer than `SLOW_CALLBACK_MS`."""
    log = None
    if "app_server" in request.fixturenames:
        request.getfixturevalue("app_server")  # started before the test's window opens
        log = request.config.stash[APP_LOG]
    start = log.stat().st_size if log else 0
    request.node.stash[LOG_START] = start
    yield
    held = slow_callbacks(log, start) if log else []
    for line in held:
        if STATE_EVENT not in line:
            warnings.warn(f"the app's event loop was held, by no state: {line}", stacklevel=1)
    if by_states := [line for line in held if STATE_EVENT in line]:
        pytest.fail(f"a state's event held the app's event loop longer than {SLOW_CALLBACK_MS} ms:\n"
                    + "\n".join(by_states), pytrace=False)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                      args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def new_context(browser: Browser, **options: object) -> BrowserContext:
    """A browser context whose pages record the toasts they show (TOAST_RECORDER)."""
    context = browser.new_context(**options)  # type: ignore[arg-type]
    context.add_init_script(TOAST_RECORDER)
    return context


def record_browser(page: Page, seen: list[str]) -> None:
    """Write into `seen` what the page does that a failure's traceback does not tell: its navigations, console
    messages, uncaught errors and event websockets (opened, each frame's start, refused, closed), each with the
    seconds since the record began. A page that never hydrates shows here whether its socket was refused, never
    answered, or answered without the hydrate's update."""
    began, sockets = time.monotonic(), itertools.count(1)

    def note(text: str) -> None:
        seen.append(f"{time.monotonic() - began:7.3f} {text}")

    def socket(ws: WebSocket) -> None:
        name = f"ws#{next(sockets)}"
        note(f"{name} opened {ws.url}")
        ws.on("framesent", lambda frame: note(f"{name} > {str(frame)[:FRAME_CHARS]}"))
        ws.on("framereceived", lambda frame: note(f"{name} < {str(frame)[:FRAME_CHARS]}"))
        ws.on("socketerror", lambda error: note(f"{name} error: {error}"))
        ws.on("close", lambda _: note(f"{name} closed"))

    def navigated(frame: Frame) -> None:
        if frame == page.main_frame:
            note(f"navigated to {frame.url}")

    page.on("framenavigated", navigated)
    page.on("console", lambda message: note(f"console.{message.type}: {message.text[:1000]}"))
    page.on("pageerror", lambda error: note(f"page error: {error}"))
    page.on("websocket", socket)


@pytest.fixture
def page(browser: Browser, app_server: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = new_context(browser, base_url=app_server, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    pg = context.new_page()
    record_browser(pg, request.node.stash.setdefault(BROWSER_LOG, []))
    yield pg
    ARTIFACTS.mkdir(exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    try:
        pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    finally:
        context.close()


def open_page(page: Page, path: str) -> Page:
    """Navigate and wait until Reflex has hydrated, so clicks reach the app."""
    page.goto(path)
    page.locator("#hydrated").wait_for(state="attached")
    expect(page.locator("#page-loading")).to_have_count(0)
    return page


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def set_value_silently(page: Page, selector: str, value: str) -> None:
    """Put text in a field without the change event reaching the app yet: what the app sees when a user
    submits before the debounced change event has been delivered."""
    page.locator(selector).evaluate(
        """(el, value) => {
            const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement : HTMLInputElement;
            Object.getOwnPropertyDescriptor(proto.prototype, 'value').set.call(el, value);
        }""",
        value,
    )
