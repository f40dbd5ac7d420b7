"""Two app processes behind one address, sharing PostgreSQL, Redis and file storage (issue 12, scale-out).

Process A is started as `make run` starts the app (it builds the frontend); process B is a second backend
serving the same build, as a second host would. A small load balancer in front (tests/e2e/balancer.py) sends
the browser to A, then takes A out of its pool: the browser's websocket is closed and reconnects through
the balancer to B. The browser signs in and posts a review through A; B's cached listing shows it, the page
reconnects to B as the same Reflex client (same token, no `new_token`) and keeps working there (the category
chosen on A still filters what B sorts), the session holds on B, and a file uploaded through one process is
stored, attached and downloaded through the other.

Reflex re-runs a page's on_load after every websocket reconnect (to the same process or another), and this
app's pages rebuild their state there from the address and the database: what the page shows after the move
would look the same even if B did not share A's Redis state. What the test checks of the shared Redis is the
client's token: it keys the state, and a client B took for a second tab would get a new one.

Needs PostgreSQL and Redis (`E2E_DATABASE_URL`, `E2E_REDIS_URL`): scripts/test.sh selects it (marker
`scale_out`) only in its PostgreSQL + Redis phase. It uses its own database (`<E2E database>_scale`) and Redis
database (SCALE_REDIS_DB), so the shared app of the other browser tests is not disturbed.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import redis
import redis.asyncio
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.e2e.balancer import Balancer
from tests.e2e.conftest import ROOT, _wait_for, new_context
from tests.e2e.helpers import buy, expect_toast, open_page, shot, sign_up, wait_for_scans
from tests.ports import free_port

pytestmark = pytest.mark.scale_out

SCALE_REDIS_DB = int(os.environ.get("E2E_SCALE_REDIS_DB", "7"))  # not the shared app's (E2E_REDIS_URL's)
WEB_WORKDIR = ".web-scale"  # its own build folder: the shared app's build is not touched
RECORD_PREFIX = "token_manager_socket_record_"  # Reflex's RedisTokenManager: which process has which client
MARKETING_BY_PRICE = ["Social Scheduler", "SEO Scout", "AdCraft"]  # demo data (see test_catalog.py)
AGENT_FILE = b"def run(task: str) -> str:\n    return f'scaled: {task}'\n"


@dataclass
class Pair:
    public: str  # the balancer: the only address the browser knows (PUBLIC_URL of both processes)
    a: str
    b: str
    balancer: Balancer


def _own_database(url: str) -> str:
    """A fresh database next to the E2E one (`<name>_scale`), created on the same server."""
    parsed = make_url(url.replace("postgresql://", "postgresql+psycopg://", 1))
    name = f"{parsed.database}_scale"
    engine = create_engine(parsed, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return str(make_url(url).set(database=name).render_as_string(hide_password=False))


def _drop_database(url: str) -> None:
    parsed = make_url(url.replace("postgresql://", "postgresql+psycopg://", 1))
    engine = create_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)'))
    engine.dispose()


def _records_gone(redis_url: str) -> Callable[[list[str]], Awaitable[None]]:
    """For the balancer's drain: wait until the old process has deleted its record of each client (Reflex's
    token manager, on the client's disconnect), so the reconnecting page keeps its token and its state."""

    async def released(tokens: list[str]) -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        try:
            deadline = time.monotonic() + 10
            while await client.exists(*(f"{RECORD_PREFIX}{t}" for t in tokens)) if tokens else False:
                assert time.monotonic() < deadline, "the old process kept its clients' records"
                await asyncio.sleep(0.02)
        finally:
            await client.aclose()

    return released


def _stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    database, redis_base = os.environ.get("E2E_DATABASE_URL", ""), os.environ.get("E2E_REDIS_URL", "")
    if not database.startswith("postgresql") or not redis_base:
        pytest.fail("the scale-out test needs PostgreSQL and Redis (E2E_DATABASE_URL, E2E_REDIS_URL); "
                    "scripts/test.sh runs it in its PostgreSQL + Redis phase")
    redis_url = urlsplit(redis_base)._replace(path=f"/{SCALE_REDIS_DB}").geturl()
    redis.Redis.from_url(redis_url).flushdb()
    database = _own_database(database)
    tmp = Path(tempfile.mkdtemp(prefix="marketplace-scale-"))
    port_a, port_b, port_public = free_port(), free_port(), free_port()
    standin_port, mail_port = free_port(), free_port()
    public = f"http://localhost:{port_public}"
    shared = {
        **os.environ,
        "PUBLIC_URL": public,
        "DATABASE_URL": database,
        "REDIS_URL": redis_url,
        "STORAGE_DIR": str(tmp / "files"),  # one folder for both: a shared disk (or, in production, S3)
        "APP_ENV": "local",
        "DEMO_MODE": "1",  # what scripts/run.sh gives A; B, started without it, must match
        "REFLEX_WEB_WORKDIR": WEB_WORKDIR,
        "GRANIAN_WORKERS": "1",  # one worker each: what is shared is shared between processes
        "DEV_MAILBOX_FILE": str(tmp / "mailbox.jsonl"),
        "RATE_LIMIT_REGISTER": "1000", "RATE_LIMIT_REVIEWS": "1000",
    }
    for name in ("TEST_DATABASE_URL", "SMTP_URL", "STRIPE_SECRET_KEY"):
        shared.pop(name, None)
    # A: as `make run` starts the app (migrations, demo data, the Stripe stand-in and mail catcher, the build).
    env_a = {**shared, "PORT": str(port_a), "STRIPE_STANDIN_PORT": str(standin_port),
             "STRIPE_STANDIN_STATE": str(tmp / "stripe-standin.pickle"), "MAIL_CATCHER_PORT": str(mail_port)}
    # B: a second host. Reflex's production backend (granian) serving A's build, with the settings
    # scripts/run.sh gives A for the stand-ins.
    env_b = {**shared, "PORT": str(port_b), "REFLEX_ENV_MODE": "prod", "__REFLEX_SKIP_COMPILE": "true",
             "__REFLEX_MOUNT_FRONTEND_COMPILED_APP": "true", "SMTP_URL": f"smtp://127.0.0.1:{mail_port}",
             "STRIPE_API_BASE": f"http://127.0.0.1:{standin_port}", "STRIPE_SECRET_KEY": "sk_test_standin",
             "STRIPE_PUBLISHABLE_KEY": "pk_test_standin", "STRIPE_WEBHOOK_SECRET": "whsec_local_standin"}
    log_a, log_b = tmp / "app-a.log", tmp / "app-b.log"
    balancer = Balancer(port_public, f"http://127.0.0.1:{port_a}", released=_records_gone(redis_url))
    procs: list[subprocess.Popen] = []
    try:
        with log_a.open("w") as out:
            procs.append(subprocess.Popen(["bash", "scripts/run.sh"], cwd=ROOT, env=env_a, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True))
        _wait_for(f"http://127.0.0.1:{port_a}/ping", procs[0], log_a)
        _wait_for(f"http://127.0.0.1:{port_a}/", procs[0], log_a)
        with log_b.open("w") as out:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "granian", "--interface", "asgi", "--factory", "--host", "127.0.0.1",
                 "--port", str(port_b), "--workers", "1", "marketplace.marketplace:app"],
                cwd=ROOT, env=env_b, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        _wait_for(f"http://127.0.0.1:{port_b}/ping", procs[1], log_b)
        _wait_for(f"http://127.0.0.1:{port_b}/", procs[1], log_b)
        balancer.start()
        yield Pair(public, f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}", balancer)
    finally:
        balancer.stop()
        for proc in procs:
            _stop(proc)
        _drop_database(database)
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def page(browser: Browser, pair: Pair) -> Iterator[Page]:
    context = new_context(browser, base_url=pair.public, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def _client(pair: Pair, backend: str) -> httpx.Client:
    """Straight to one process, as the site's origin (both processes allow PUBLIC_URL, the balancer)."""
    return httpx.Client(base_url=backend, timeout=30, headers={"Origin": pair.public})


def _listed(client: httpx.Client, name: str) -> dict:
    return next(a for a in client.get("/api/agents", params={"search": name}).json() if a["name"] == name)


def _eventually(read: Callable[[], object], expected: object, timeout: float = 5.0) -> None:
    """What another process or the browser does next (e.g. B learns of A's commit by PostgreSQL's NOTIFY,
    normally within milliseconds): read until it shows, or fail with the last value."""
    deadline = time.monotonic() + timeout
    while (value := read()) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert value == expected


def _choose(page: Page, select_id: str, option: str) -> None:
    page.click(f"#{select_id}")
    page.get_by_role("option", name=re.compile(rf"^{re.escape(option)}( \(\d+\))?$")).click()  # /agents: counts


def test_a_browser_moved_from_one_process_to_another_keeps_its_session_state_and_sees_fresh_listings(
        page: Page, pair: Pair) -> None:
    # Through A: sign up (signed in); B's listing cache warmed for the agent about to be reviewed.
    username = sign_up(page, "scale", form=True)
    with _client(pair, pair.b) as on_b:
        agent_id = _listed(on_b, "SupportPilot")["id"]
        assert _listed(on_b, "SupportPilot")["reviewCount"] == 0  # served from B's cache this time

    # A review posted through A (the page's websocket is A's), by a buyer (only buyers review, issue 33) ...
    buy(page, agent_id)
    open_page(page, f"/agents/{agent_id}")
    _choose(page, "review-rating", "4 stars")
    page.fill("#review-comment", "Still answers after a scale-out.")
    page.click("#submit-review")
    expect_toast(page, "Review submitted", "Thank you for your feedback!")
    # ... reaches B's cached listing (B learns the new catalogue version from PostgreSQL).
    with _client(pair, pair.b) as on_b:
        _eventually(lambda: _listed(on_b, "SupportPilot")["reviewCount"], 1)

    # Reflex state built on A: a category chosen on /agents.
    open_page(page, "/agents")
    _choose(page, "category-filter", "Marketing")
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    assert pair.balancer.open_websockets(pair.a) == 1 and pair.balancer.websockets[pair.b] == 0

    # A leaves the pool: its websocket is closed (A first, then the browser's side once A has let go of the
    # client) and the page reconnects, through the balancer, to B, as the same Reflex client: its token, and so
    # its state in Redis, carry over (a client B took for a second tab would get a new token and empty state).
    served_by_a = pair.balancer.http[pair.a]
    pair.balancer.switch(pair.b)
    _eventually(lambda: pair.balancer.open_websockets(pair.b), 1, timeout=15)
    assert pair.balancer.open_websockets(pair.a) == 0
    assert pair.balancer.tokens[pair.b] == pair.balancer.tokens[pair.a][-1:]
    assert pair.balancer.new_tokens[pair.b] == 0

    # B handles the next event: still Marketing (kept in the state, and in the address), now by price.
    _choose(page, "sort-filter", "Price: Low to High")
    expect(page.locator("#agents-grid .agent-name")).to_have_text(MARKETING_BY_PRICE)
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    assert pair.balancer.new_tokens[pair.b] == 0

    # The session made on A holds on B (full page loads: pages and API from B only), and B shows the review.
    assert page.request.get("/api/auth/user").json()["username"] == username
    open_page(page, "/dashboard?tab=profile")
    expect(page.locator("#profile-username")).to_have_text(username)
    open_page(page, "/agents?search=SupportPilot")
    expect(page.locator("#agents-grid").get_by_text("(1)", exact=True)).to_be_visible()
    assert pair.balancer.http[pair.a] == served_by_a, "a request still went to A after the switch"
    shot(page, "scale-out-on-b")


def test_a_file_uploaded_through_one_process_is_attached_and_downloaded_through_the_other(pair: Pair) -> None:
    with _client(pair, pair.a) as on_a, _client(pair, pair.b) as on_b:
        on_a.post("/api/login", json={"username": "vendor", "password": "vendor123"}).raise_for_status()
        on_b.cookies.update(on_a.cookies)  # the session made on A, presented to B
        assert on_b.get("/api/auth/user").json()["username"] == "vendor"

        category = on_a.get("/api/categories").json()[0]["id"]
        created = on_a.post("/api/vendor/agents", json={
            "name": "Scale Out Scout", "shortDescription": "Files that survive a second host", "price": "9.00",
            "categoryId": category, "description": "Uploaded through one process, downloaded through another.",
            "demoUrl": "https://example.com/demo/scale", "tags": ["e2e"]})
        assert created.status_code == 201, created.text
        agent_id = created.json()["id"]
        upload_url = on_a.post("/api/objects/upload", params={"filename": "agent.py", "type": "text/x-python"}
                               ).json()["uploadURL"]
        assert upload_url.startswith(pair.public)  # signed by A, for the site's address
        put = on_b.put(upload_url.removeprefix(pair.public), content=AGENT_FILE,
                       headers={"Content-Type": "text/x-python"})
        assert put.status_code == 200, put.text  # B accepts A's signature and writes to the shared storage
        attached = on_a.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": upload_url})
        assert attached.status_code == 200, attached.text  # A finds, sizes and sniffs what B stored

        with _client(pair, pair.b) as admin:
            admin.post("/api/login", json={"username": "admin", "password": "admin123"}).raise_for_status()
            wait_for_scans(admin, agent_id)
            assert admin.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200

        download = on_b.get(f"/api/agents/{agent_id}/download")
        assert download.status_code == 200, download.text
        with zipfile.ZipFile(io.BytesIO(download.content)) as archive:
            assert [archive.read(n) for n in archive.namelist()] == [AGENT_FILE]
        assert _listed(on_a, "Scale Out Scout")["id"] == agent_id  # A's listing knows B's approval
