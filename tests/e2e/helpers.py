"""What browser tests do over and over: open a page, sign up, sign in, read a toast, switch to phone width."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.conftest import ROOT, new_context, open_page, shot

__all__ = [
    "DEMO_ADMIN", "PASSWORD", "PHONE", "admin_client", "buy", "check_accessibility", "dollars", "expect_toast",
    "mail_link", "mail_text", "open_page", "pay_with_test_card", "phone", "shot", "sign_in", "sign_up",
    "submit_sign_in", "submit_sign_up", "unique", "wait_for_scans",
]

PASSWORD = "secret123"
DEMO_ADMIN = ("admin", "admin123")  # loaded with the demo data (README, Demo accounts)
TOAST = "[data-sonner-toast]"
PHONE = {"width": 390, "height": 844}


def dollars(amount: str | float) -> str:
    """An API amount ('1215.83') as pages show it: '$1,215.83' (thousands grouped)."""
    return f"${Decimal(str(amount)):,.2f}"


def pay_with_test_card(page: Page) -> None:
    """Fill the checkout's Payment Element with the stand-in's good test card and pay."""
    page.get_by_label("Card number").fill("4242 4242 4242 4242")
    page.get_by_label("Expiration date").fill("12 / 34")
    page.get_by_label("Security code").fill("123")
    page.click("#submit-payment")


def advance_demo_clock(page: Page, days: int) -> None:
    """Move the demo's Stripe test clock on by `days`, as the demo admin does from the testing center (renewals,
    trial ends and their webhooks run meanwhile)."""
    assert page.context.browser is not None
    admin = new_context(page.context.browser, base_url=same_origin(page)["Origin"])
    try:
        admin_page = admin.new_page()
        sign_in(admin_page, *DEMO_ADMIN, api=True)
        moved = admin_page.request.post("/api/dev/advance-clock", data={"days": days}, headers=same_origin(page),
                                        timeout=120_000)
        assert moved.ok, moved.text()
    finally:
        admin.close()


def vendor_code(page: Page, agent_id: str, prefix: str) -> str:
    """A code the signed-in vendor makes for its agent through its API: 25% off its first 3 months."""
    code = unique(prefix).upper()[:32]
    made = page.request.post("/api/vendor/promotion-codes", headers=same_origin(page), data={
        "code": code, "percentOff": 25, "agentIds": [agent_id], "duration": "repeating", "durationMonths": 3})
    assert made.status == 201, made.text()
    return code


def charged_agents(page: Page) -> list[dict]:
    """Live demo agents whose checkout takes a payment: priced, and without a free trial (a trial's checkout pays
    nothing and leads to My Agents, not to Purchase Successful)."""
    agents = page.request.get("/api/agents", params={"limit": 50}).json()
    return [a for a in agents if float(a["price"]) > 0 and not a.get("trialDays")]


def buy(page: Page, agent_id: str) -> None:
    """The signed-in customer pays for the agent with the good test card and reaches Purchase Successful."""
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#submit-payment")).to_be_enabled()
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/purchase-success/?$"))


# axe-core, the npm package scripts/setup.sh installs into .tools (pinned there).
AXE_JS = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
AXE_RUN = """() => axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
  resultTypes: ['violations']}).then(result => result.violations)"""


def check_accessibility(page: Page, name: str) -> None:
    """The page as it is now: no serious or critical WCAG 2.1 A/AA violation that axe-core finds, one `main`
    landmark and one `h1`. `name` says which page failed; every violation is printed with its elements."""
    assert AXE_JS.is_file(), f"{AXE_JS} is missing: run `make setup`"
    expect(page.locator("main")).to_have_count(1)
    expect(page.locator("h1")).to_have_count(1)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    violations = [v for v in page.evaluate(AXE_RUN) if v["impact"] in ("serious", "critical")]
    report = [{"id": v["id"], "impact": v["impact"], "help": v["help"],
               "nodes": [{"target": n["target"], "why": n["failureSummary"]} for n in v["nodes"][:8]]}
              for v in violations]
    assert not violations, f"{name}: axe found serious or critical violations:\n{json.dumps(report, indent=1)}"


def live_agent_id(page: Page, name: str) -> str:
    """The id of the live agent called `name` (the demo's names are unique)."""
    response = page.request.get("/api/agents", params={"search": name})
    assert response.ok, response.text()
    return next(agent["id"] for agent in response.json() if agent["name"] == name)


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def submit_sign_in(page: Page, username: str, password: str, code: str | None = None) -> None:
    """Fill in and send the login form (with a 2FA `code` if given); what follows is the caller's to check."""
    open_page(page, "/login")
    page.fill("#username", username)
    page.fill("#password", password)
    if code is not None:
        page.click("#enable-2fa")
        page.fill("#two-factor-code", code)
    page.click("#sign-in")


def api_client(app_server: str) -> httpx.Client:
    """An HTTP client for a test's own API calls; it sends the app's Origin as the pages do."""
    return httpx.Client(base_url=app_server, timeout=30, headers={"Origin": app_server})


def wait_for_scans(admin: httpx.Client, agent_id: str, *, timeout: float = 60) -> None:
    """Every file of the agent's version under review has its security scan's verdict, as the admin's Approvals
    list shows it (`admin`: a signed-in admin's client): the scan runs in the background after an upload and an
    approval waits for it (409)."""
    deadline = time.monotonic() + timeout
    while True:
        statuses = _scan_statuses(admin, agent_id)
        if statuses and "pending" not in statuses:
            return
        assert time.monotonic() < deadline, f"the files of {agent_id} were not scanned in {timeout}s: {statuses}"
        time.sleep(0.1)  # the next look at the list, as an admin would reload it


@contextmanager
def admin_client(app_server: str) -> Iterator[httpx.Client]:
    """`api_client` signed in as the demo admin."""
    with api_client(app_server) as admin:
        admin.post("/api/login", json={"username": DEMO_ADMIN[0], "password": DEMO_ADMIN[1]}).raise_for_status()
        yield admin


def _scan_statuses(admin: httpx.Client, agent_id: str) -> list[str]:
    offset = 0
    while True:
        page = admin.get("/api/admin/agents/pending", params={"limit": 100, "offset": offset})
        page.raise_for_status()
        items = page.json()
        for item in items:
            if item["id"] == agent_id:
                return [file["scan"]["status"] for file in item["files"]]
        if len(items) < 100:
            return []
        offset += 100


def api_context(browser: Browser, app_server: str) -> BrowserContext:
    """A browser context used only for API calls (`context.request`), sending the app's Origin."""
    return new_context(browser, base_url=app_server, extra_http_headers={"Origin": app_server})


def same_origin(page: Page) -> dict[str, str]:
    """Headers for a test's own unsafe `/api` call: the app refuses writes without the page's Origin, which a
    browser sends and Playwright's request context does not."""
    parts = urlsplit(page.request.get("/ping").url)
    return {"Origin": f"{parts.scheme}://{parts.netloc}"}


def sign_in(page: Page, username: str, password: str, *, api: bool = False) -> None:
    """Through the login form, as a person would, until the app says so; `api=True` signs the page's context
    in through the API instead (no page is opened)."""
    if api:
        answer = page.request.post("/api/login", data={"username": username, "password": password},
                                   headers=same_origin(page))
        assert answer.status == 200, answer.text()
        return
    submit_sign_in(page, username, password)
    expect(page.get_by_text("You have successfully logged in.")).to_be_visible()


def submit_sign_up(page: Page, username: str, *, password: str = PASSWORD, two_factor: bool = False) -> None:
    """Fill in and send the sign-up form; what follows is the caller's to check."""
    open_page(page, "/signup")
    page.fill("#username", username)
    page.fill("#email", f"{username}@example.com")
    page.fill("#password", password)
    page.fill("#confirm_password", password)
    if two_factor:
        page.click("#enable-2fa")
    page.click("#create-account")


def sign_up(page: Page, prefix: str = "user", *, password: str = PASSWORD, form: bool = False) -> str:
    """A fresh customer, signed in for the page's context: through the API, or with `form=True` through the
    sign-up form until the app welcomes them. Returns the username."""
    username = unique(prefix)
    if form:
        submit_sign_up(page, username, password=password)
        expect(page.get_by_text("Your account has been created successfully.")).to_be_visible()
        return username
    answer = page.request.post("/api/register", data={"username": username, "email": f"{username}@example.com",
                                                      "password": password}, headers=same_origin(page))
    assert answer.status == 201, answer.text()
    return username


# Takes the first toast in the tab's record (conftest.TOAST_RECORDER) with this title (and description).
_TAKE_TOAST = """({title, description}) => {
  let list;
  try { list = JSON.parse(sessionStorage.getItem("__e2e_toasts") || "[]"); } catch (e) { return false; }
  const at = list.findIndex((t) => t && t.title === title && (description === null || t.description === description));
  if (at < 0) return false;
  list[at] = null;  // taken; the slot stays so that a toast still rendering keeps its own index
  sessionStorage.setItem("__e2e_toasts", JSON.stringify(list));
  return true;
}"""


def expect_toast(page: Page, title: str, description: str | None = None, timeout: float = 10_000) -> None:
    """The page showed a toast with this title (and description) since it opened, and it was not taken by an
    earlier call: read from the tab's record of every toast shown, so a test that looks after a stall still sees
    a toast the page showed and hid meanwhile."""
    try:
        page.wait_for_function(_TAKE_TOAST, arg={"title": title, "description": description}, timeout=timeout)
    except PlaywrightTimeoutError:
        # Bounded: page.evaluate has no timeout and waits for a navigation held by the test (sent_to_sign_in).
        try:
            shown = page.wait_for_function("() => sessionStorage.getItem('__e2e_toasts') || '[]'",
                                           timeout=2_000).json_value()
        except PlaywrightTimeoutError:
            shown = "(unreadable: the page is navigating)"
        raise AssertionError(f"no toast {title!r} ({description!r}) was shown; the page showed: {shown}") from None


def phone(page: Page) -> None:
    page.set_viewport_size(PHONE)


def expect_fits_phone(page: Page, marker: str, name: str) -> None:
    """At 390 px the page shows `marker` and does not scroll sideways (wide tables scroll inside their card);
    the screenshot `name` is kept for a look."""
    phone(page)
    expect(page.locator(marker)).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name}: the page scrolls sideways at phone width ({width}px)"
    shot(page, name)


def _read_mail(page: Page, to: str, subject: str, read: Callable[[Locator], str], shot_as: str | None) -> str:
    """Find the newest mail to `to` with `subject` on the dev mailbox page (/dev/mail) as the demo admin would
    (the mailbox is for admins), in a browser of its own, refreshing until the app's outbox sender has sent it;
    `read` takes what the test needs from it. `shot_as` keeps a screenshot of the mailbox."""
    assert page.context.browser is not None
    admin = new_context(page.context.browser, base_url=same_origin(page)["Origin"],
                                             viewport={"width": 1280, "height": 900})
    try:
        mailbox = admin.new_page()
        sign_in(mailbox, *DEMO_ADMIN, api=True)
        open_page(mailbox, "/dev/mail")
        message = mailbox.locator(".mail-message").filter(has=mailbox.locator(".mail-to", has_text=to)).filter(
            has=mailbox.locator(".mail-subject", has_text=subject)).first
        for _ in range(30):
            if message.count():
                break
            mailbox.click("#refresh-mail")
            mailbox.wait_for_timeout(500)
        expect(message).to_be_visible()
        if shot_as:
            shot(mailbox, shot_as)
        return read(message)
    finally:
        admin.close()


def mail_link(page: Page, to: str, subject: str, path: str, *, shot_as: str | None = None) -> str:
    """The link to `path` (e.g. '/reset-password') in the newest mail to `to` with `subject` (see `_read_mail`)."""
    def link(message: Locator) -> str:
        href = message.locator("a.mail-link", has_text=path).first.get_attribute("href")
        assert href and path in href, f"no {path} link in the mail to {to}"
        return href
    return _read_mail(page, to, subject, link, shot_as)


def mail_text(page: Page, to: str, subject: str, *, shot_as: str | None = None) -> str:
    """The text of the newest mail to `to` with `subject` (see `_read_mail`)."""
    return _read_mail(page, to, subject, lambda message: message.locator(".mail-text").inner_text(), shot_as)


@contextmanager
def sent_to_sign_in(page: Page) -> Iterator[None]:
    """The page goes to `/api/login` (the spec's redirect) once the block has ended. The app redirects 500 ms
    after its notice (`setTimeout(() => location.assign('/api/login'))`); that timer is held until the block
    ends, so the notice stays readable however slow the machine is. Holding the navigation itself would not do:
    while a navigation waits, Playwright's locators, page functions and screenshots all wait with it."""
    if not getattr(page, "_e2e_holds_sign_in", False):
        page.add_init_script(_HOLD_SIGN_IN)
        page._e2e_holds_sign_in = True  # type: ignore[attr-defined]  # once per page: init scripts stay
    yield
    page.wait_for_function("() => (window.__e2eHeldSignIn || []).length > 0")  # the app asked to go
    with page.expect_request(re.compile(r"/api/login$")):
        page.evaluate("() => window.__e2eHeldSignIn.splice(0).forEach((go) => go())")


# In every document of a page that uses sent_to_sign_in: a timer whose callback goes to /api/login waits in
# `window.__e2eHeldSignIn` until the test lets it run; every other timer runs as usual.
_HOLD_SIGN_IN = """(() => {
  const setTimeoutFirst = window.setTimeout;
  window.__e2eHeldSignIn = [];
  window.setTimeout = function (callback, ...rest) {
    if (typeof callback === "function" && String(callback).includes("/api/login")) {
      window.__e2eHeldSignIn.push(callback);
      return 0;
    }
    return setTimeoutFirst.call(window, callback, ...rest);
  };
})();"""
