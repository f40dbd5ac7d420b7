"""The agent wizard in a real browser with the real Uppy widget: gates and toasts, then the whole life of an agent.

A vendor creates an agent with two files (a small one in one POST, a ~6 MB zip multipart: the conftest lowers
UPLOAD_MULTIPART_THRESHOLD_BYTES to 5 MB), an admin approves it through the API, a buyer pays and downloads
both files; the vendor adds a file to the live agent, the buyer keeps the old files until the revision is
approved, then gets an `update` notification and the new files.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import zipfile
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from dev.clamav import EICAR
from tests.e2e.conftest import new_context
from tests.e2e.helpers import (
    expect_fits_phone,
    expect_toast,
    open_page,
    pay_with_test_card,
    phone,
    sent_to_sign_in,
    shot,
    sign_in,
    sign_up,
    unique,
    wait_for_scans,
)

BLOCKED = ("Please complete required fields", "Fill in all required information before proceeding.")
MB = 1024 * 1024
# Watches the Dashboard's status bar and file cards, so a test can tell which states it went through.
RECORD_UPLOAD_STATES = """() => {
  window.__uploadStates = new Set();
  const note = () => {
    for (const el of document.querySelectorAll('.uppy-StatusBar, .uppy-Dashboard-Item')) {
      for (const c of el.classList) { if (c.startsWith('is-')) { window.__uploadStates.add(c); } }
    }
  };
  new MutationObserver(note).observe(document.body,
    {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
}"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small Python file, a ~6 MB zip (multipart above the lowered threshold) and a later extra file."""
    folder = tmp_path_factory.mktemp("agent-files")
    small = folder / "agent.py"
    small.write_text("def run(task: str) -> str:\n    return f'done: {task}'\n")
    big = folder / "model.zip"
    with zipfile.ZipFile(big, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("weights.bin", os.urandom(6 * MB))
    extra = folder / "CHANGELOG.md"
    extra.write_text("# 2.0\n\nFaster answers.\n")
    return {"small": small, "big": big, "extra": extra}


def _vendor(page: Page) -> None:
    sign_in(page, "vendor", "vendor123", api=True)


def _next(page: Page) -> None:
    page.click("#wizard-next")


def _blocked_next(page: Page) -> None:
    """Next looks and reads disabled while the step is incomplete; pressing it anyway says why."""
    button = page.locator("#wizard-next")
    expect(button).to_have_attribute("aria-disabled", "true")
    button.click(force=True)
    expect_toast(page, *BLOCKED)


def _step(page: Page, number: int, title: str) -> None:
    expect(page.locator(f".wizard-step[data-step='{number}']")).to_have_attribute("data-state", "current")
    expect(page.locator("#step-title")).to_have_text(title)


def _agent_info(page: Page, name: str, *, description: str = "Sorts, labels and answers your e-mail.") -> None:
    page.fill("#name", name)
    page.fill("#shortDescription", "Inbox zero, every day")
    page.fill("#description", description)
    page.fill("#tags", "email, productivity, automation")


def _pricing(page: Page, price: str) -> None:
    page.fill("#price", price)
    page.click("#categoryId")
    page.get_by_role("option", name=re.compile("Productivity")).click()


def _add_files(page: Page, *paths: Path) -> None:
    page.locator(".uppy-Dashboard-input").first.set_input_files([str(p) for p in paths])


def _boxes(page: Page) -> list[dict]:
    """Previous, Cancel and the step's main button, as laid out."""
    return [page.locator(f"#wizard-{b}").bounding_box() for b in ("previous", "cancel", "submit")]


def _nav_in_one_row(page: Page) -> None:
    previous, cancel, submit = _boxes(page)
    assert previous["y"] == cancel["y"] == submit["y"], (previous, cancel, submit)
    assert previous["x"] < cancel["x"] < submit["x"]


def _nav_in_a_clean_stack(page: Page) -> None:
    """At phone width: one full-width button a row, the main action on top, none beside another."""
    previous, cancel, submit = _boxes(page)
    assert submit["y"] < cancel["y"] < previous["y"], (previous, cancel, submit)
    assert previous["x"] == cancel["x"] == submit["x"] and previous["width"] == cancel["width"] == submit["width"]
    assert previous["width"] > 300


def _own_agent(page: Page, name: str) -> dict:
    agents = page.request.get("/api/vendor/agents").json()
    return next(a for a in agents if a["name"] == name)


def _download(page: Page, agent_id: str) -> dict[str, bytes]:
    """The agent's files in the buyer's zip (their LICENSE-KEY.txt, checked here, aside)."""
    response = page.request.get(f"/api/agents/{agent_id}/download")
    assert response.ok, response.text()
    with zipfile.ZipFile(io.BytesIO(response.body())) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    assert files.pop("LICENSE-KEY.txt").startswith(b"License key for ")
    return files


def _buy(page: Page, agent_id: str, label: str) -> None:
    open_page(page, f"/checkout/{agent_id}")
    expect(page.locator("#submit-payment")).to_have_text(label)
    expect(page.locator("#submit-payment")).to_be_enabled()
    pay_with_test_card(page)
    expect(page.get_by_role("heading", name="Purchase Successful!", exact=True)).to_be_visible()


def test_signed_out_visitor_is_sent_to_sign_in(page: Page) -> None:
    with sent_to_sign_in(page):
        open_page(page, "/vendor/add-agent")
        expect_toast(page, "Unauthorized", "You are logged out. Logging in again...")
        expect(page.locator("#wizard-signed-out")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/login/?$"))


def test_customer_is_sent_to_the_vendor_application(page: Page) -> None:
    sign_up(page, "hopeful")
    open_page(page, "/vendor/add-agent")
    expect(page).to_have_url(re.compile(r"/vendor/?$"))
    expect(page.locator("#vendor-application")).to_be_visible()


def test_gates_and_toasts(page: Page) -> None:
    page.route("https://example.com/shot.png", lambda route: route.fulfill(status=404, body="gone"))
    _vendor(page)
    open_page(page, "/vendor/add-agent")
    expect(page.get_by_role("heading", name="Create New AI Agent")).to_be_visible()
    expect(page.locator("#back-to-dashboard")).to_have_attribute("href", "/vendor")
    steps = page.locator(".wizard-step")
    for number, (title, text) in enumerate([
        ("Agent Info", "Basic information about your agent"),
        ("Screenshots/Demo", "Visual content and demo links"),
        ("Pricing", "Set your pricing and category"),
        ("Review & Submit", "Review and submit for approval"),
    ]):
        expect(steps.nth(number)).to_contain_text(title)
        expect(steps.nth(number)).to_contain_text(text)
        expect(steps.nth(number).locator("svg").first).to_be_visible()
    _step(page, 1, "Agent Info")
    expect(page.locator("#wizard-previous")).to_be_disabled()
    _blocked_next(page)
    shot(page, "wizard-step1-blocked")

    # Six tags are refused with the spec's toast (once), and Next stays blocked until there are five.
    page.fill("#name", "Gatekeeper")
    page.fill("#shortDescription", "Checks every gate")
    page.fill("#description", "   ")  # fills the step, but is blank for the final check
    page.fill("#tags", "a, b, c, d, e, f")
    expect_toast(page, "Too many tags", "Maximum 5 tags allowed to prevent spam")
    expect(page.locator("#tags-error")).to_have_text("Maximum 5 tags allowed to prevent spam")
    page.locator("#wizard-next").click(force=True)
    expect_toast(page, "Too many tags", "Maximum 5 tags allowed to prevent spam")
    _step(page, 1, "Agent Info")
    page.fill("#tags", " a, b ,, c, d, e ")
    expect(page.locator("#tag-chips .rt-Badge")).to_have_count(5)
    _next(page)

    _step(page, 2, "Screenshots/Demo")
    expect(page.locator(".uppy-Dashboard")).to_be_visible()
    expect(page.locator("#imageUrl")).to_have_attribute("type", "url")
    expect(page.locator("#demoUrl")).to_have_attribute("type", "url")
    _blocked_next(page)
    page.fill("#imageUrl", "https://example.com/shot.png")  # an image URL alone opens the gate
    _next(page)

    _step(page, 3, "Pricing")
    price = page.locator("#price")
    expect(price).to_have_attribute("type", "number")
    expect(price).to_have_attribute("step", "0.01")
    expect(price).to_have_attribute("placeholder", "29.99")
    expect(page.get_by_text("Price (Monthly) *")).to_be_visible()
    _blocked_next(page)
    _pricing(page, "9.5")
    _next(page)

    _step(page, 4, "Review & Submit")
    expect(page.locator("#summary-name")).to_have_text("Gatekeeper")
    expect(page.locator("#summary-price")).to_have_text("$9.50/month")
    expect(page.locator("#summary-file")).to_contain_text("No")
    expect(page.locator("#summary-demo")).to_contain_text("No")
    # The tags themselves, the pricing model and the activation limit (issue 34), not a count.
    expect(page.locator("#summary-tags .summary-tag")).to_have_text(["a", "b", "c", "d", "e"])
    expect(page.locator("#summary-pricing-model")).to_have_text("Monthly subscription")
    expect(page.locator("#summary-activation-limit")).to_have_text("3")
    submit = page.locator("#wizard-submit")
    expect(submit).to_have_attribute("aria-disabled", "true")  # no file yet
    # Why it is grey, beside it, with the way back to the files (an image URL alone reached this step).
    expect(page.locator("#wizard-no-file")).to_have_text("Upload at least one agent file to submit. Go to step 2")
    shot(page, "journeys-wizard-no-file")
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#wizard-no-file")).to_be_visible()
    shot(page, "journeys-wizard-no-file-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    # The button's own click, not one at its position: step 3's toast may still cover it at the bottom right.
    submit.evaluate("button => button.click()")
    expect_toast(page, "Validation Error", "Please fill in all required fields.")

    page.click("#wizard-back-to-files")
    _step(page, 2, "Screenshots/Demo")
    page.click("#wizard-previous")
    page.fill("#description", "Checks every gate, twice.")
    for _ in range(3):
        _next(page)
    submit.click(force=True)
    expect_toast(page, "File Required", "Please upload at least one agent file before submitting.")
    assert not any(a["name"] == "Gatekeeper" for a in page.request.get("/api/vendor/agents").json())

    page.click("#toggle-preview")
    preview = page.locator("#agent-preview")
    expect(preview.locator("#preview-name")).to_have_text("Gatekeeper")
    expect(preview.locator("#preview-price")).to_have_text("$9.50/month")
    expect(preview.locator("img")).to_have_attribute("src", "https://example.com/shot.png")
    # The vendor's picture does not load (routed to a 404 below): it hides and the placeholder shows instead.
    expect(preview.locator("img")).to_have_css("visibility", "hidden")
    expect(preview.locator(".image-placeholder")).to_be_visible()
    expect(page.locator("#toggle-preview")).to_have_text("Close Preview")
    shot(page, "wizard-preview")
    page.click("#toggle-preview")
    expect(preview).to_have_count(0)

    _nav_in_one_row(page)
    shot(page, "wizard-review-desktop")
    expect_fits_phone(page, "#agent-wizard", "wizard-review-phone")
    _nav_in_a_clean_stack(page)

    # Cancel asks before it throws the draft away.
    page.click("#wizard-cancel")
    dialog = page.locator("#wizard-cancel-dialog")
    expect(dialog).to_contain_text("Discard this agent?")
    shot(page, "wizard-cancel-phone")
    page.click("#wizard-keep-editing")
    expect(dialog).to_have_count(0)
    expect(page.locator("#summary-name")).to_have_text("Gatekeeper")
    page.click("#wizard-cancel")
    page.click("#wizard-discard")
    expect(page).to_have_url(re.compile(r"/vendor/?$"))


def test_agent_life_from_wizard_to_buyer_and_a_new_version(page: Page, browser: Browser, app_server: str,
                                                           admin: httpx.Client, files: dict[str, Path]) -> None:
    name = unique("Inbox Pilot ")
    _vendor(page)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url}") if "/api/uploads/" in r.url else None)
    open_page(page, "/vendor")
    page.click("#add-agent")
    expect(page).to_have_url(re.compile(r"/vendor/add-agent$"))
    expect(page.locator("#name")).to_be_visible()
    _agent_info(page, name)
    _next(page)

    # Two files through the real widget: the small one in one POST, the 6 MB zip in 5 MB parts.
    page.evaluate(RECORD_UPLOAD_STATES)
    _add_files(page, files["small"], files["big"])
    expect(page.locator(".uppy-Dashboard-Item.is-complete")).to_have_count(2, timeout=30_000)
    expect(page.locator(".uppy-StatusBar")).to_contain_text("Complete")
    expect(page.locator("#uploaded-files .uploaded-file")).to_have_count(2)
    toasts = page.locator("[data-sonner-toast]")
    expect(toasts.filter(has_text="has been uploaded successfully.").last).to_be_visible()
    states = set(page.evaluate("[...window.__uploadStates]"))
    assert {"is-uploading", "is-complete"} <= states, states
    assert any(s.startswith("GET ") and "/api/uploads/s3/params?" in s for s in sent), sent
    assert any(s.startswith("POST ") and s.endswith("/api/uploads/s3/multipart") for s in sent), sent
    parts = [s for s in sent if re.search(r"GET .*/api/uploads/s3/multipart/[^/]+/\d+\?key=", s)]
    assert len(parts) == 2, sent  # 6 MB in parts of at least 5 MB
    assert any("/complete?key=" in s for s in sent), sent
    shot(page, "wizard-files-uploaded")
    phone(page)
    shot(page, "wizard-files-uploaded-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the upload step scrolls sideways at phone width ({width}px)"
    page.set_viewport_size({"width": 1280, "height": 900})

    page.fill("#demoUrl", "https://example.com/inbox-pilot")
    _next(page)
    _pricing(page, "12.50")
    _next(page)
    expect(page.locator("#summary-file")).to_contain_text("Yes")
    expect(page.locator("#summary-file")).to_contain_text("2 file(s)")
    expect(page.locator("#summary-demo")).to_contain_text("Yes")
    expect(page.locator("#summary-tags .summary-tag")).to_have_count(3)
    page.click("#toggle-preview")
    expect(page.locator("#preview-demo")).to_have_attribute("href", "https://example.com/inbox-pilot")
    page.click("#wizard-submit")
    expect_toast(page, "Agent submitted for review",
                 "Your agent has been submitted and is awaiting admin approval before going live.")
    expect(page.locator("[data-sonner-toast]").filter(has_text="Your agent file has been attached.")).to_have_count(2)
    expect_toast(page, "File uploaded successfully", "Your agent file has been attached.")
    expect(page).to_have_url(re.compile(r"/vendor/?$"))
    row = page.locator(f".vendor-agent[data-agent='{name}']")
    expect(row).to_have_attribute("data-status", "pending")
    shot(page, "wizard-agent-pending")
    agent = _own_agent(page, name)
    agent_id = agent["id"]
    assert agent["status"] == "pending"
    assert httpx.get(f"{app_server}/api/agents/{agent_id}").status_code == 404  # not public yet

    wait_for_scans(admin, agent_id)
    approved = admin.post(f"/api/admin/agents/{agent_id}/approve")
    assert approved.status_code == 200, approved.text
    assert httpx.get(f"{app_server}/api/agents/{agent_id}").status_code == 200  # live

    # A buyer pays and downloads both files.
    buyer_context = new_context(browser, base_url=app_server, viewport={"width": 1280, "height": 900})
    try:
        buyer = buyer_context.new_page()
        sign_up(buyer, "buyer")
        _buy(buyer, agent_id, "Complete Payment • $12.50")
        first = _download(buyer, agent_id)
        assert sorted(first) == ["agent.py", "model.zip"]
        assert first["agent.py"] == files["small"].read_bytes()
        assert first["model.zip"] == files["big"].read_bytes()

        # The vendor adds a file to the live agent: a revision; buyers keep the old files meanwhile.
        open_page(page, "/vendor")
        page.locator(f".vendor-agent[data-agent='{name}'] .edit-agent").click()
        expect(page).to_have_url(re.compile(rf"/vendor/agents/{agent_id}/edit$"))
        expect(page.get_by_role("heading", name="Edit AI Agent")).to_be_visible()
        expect(page.locator("#live-note")).to_be_visible()
        expect(page.locator("#name")).to_have_value(name)
        expect(page.locator("#tags")).to_have_value("email, productivity, automation")
        page.fill("#shortDescription", "Inbox zero, every day, now faster")
        _next(page)
        existing = page.locator("#existing-files .existing-file")
        expect(existing).to_have_count(2)
        _add_files(page, files["extra"])
        expect(page.locator(".uppy-Dashboard-Item.is-complete")).to_have_count(1, timeout=30_000)
        expect_toast(page, "File uploaded", "CHANGELOG.md has been uploaded successfully.")
        shot(page, "wizard-edit-files")
        _next(page)
        expect(page.locator("#price")).to_have_value("12.50")
        _next(page)
        expect(page.locator("#summary-file")).to_contain_text("3 file(s)")
        # New files make a new version: its label and release notes (tests/e2e/test_versions.py checks the rest).
        expect(page.locator("#current-version")).to_contain_text("Current version: 1.0.0.")
        page.fill("#versionLabel", "1.1.0")
        page.fill("#releaseNotes", "Adds a CHANGELOG.")
        page.click("#wizard-submit")
        expect_toast(page, "Changes submitted for review")
        expect(page).to_have_url(re.compile(r"/vendor/?$"))
        row = page.locator(f".vendor-agent[data-agent='{name}']")
        expect(row).to_have_attribute("data-status", "approved")
        expect(row.locator(".revision-badge")).to_be_visible()
        shot(page, "wizard-revision-pending")

        assert sorted(_download(buyer, agent_id)) == ["agent.py", "model.zip"]
        public = buyer.request.get(f"/api/agents/{agent_id}").json()
        assert public["shortDescription"] == "Inbox zero, every day"
        pending = admin.get("/api/admin/agents/pending").json()
        revision = next(p for p in pending if p["id"] == agent_id)
        assert revision["kind"] == "revision" and revision["filesAdded"] == ["CHANGELOG.md"], revision

        wait_for_scans(admin, agent_id)
        assert admin.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
        notes = buyer.request.get("/api/notifications").json()
        assert any(n["type"] == "update" for n in notes), notes
        second = _download(buyer, agent_id)
        assert sorted(second) == ["CHANGELOG.md", "agent.py", "model.zip"]
        assert second["CHANGELOG.md"] == files["extra"].read_bytes()
        public = buyer.request.get(f"/api/agents/{agent_id}").json()
        assert public["shortDescription"] == "Inbox zero, every day, now faster"
    finally:
        buyer_context.close()


def test_multipart_upload_pauses_and_resumes(page: Page, files: dict[str, Path]) -> None:
    """Parts are held on their way to storage; pausing aborts them, resuming uploads the rest and completes."""
    held: list = []
    holding = {"on": True}

    def part(route: Route) -> None:
        if holding["on"]:
            held.append(route)
        else:
            route.continue_()

    _vendor(page)
    open_page(page, "/vendor/add-agent")
    _agent_info(page, unique("Pausable "))
    _next(page)
    page.route(re.compile(r".*/api/uploads/local/uploads/.*partNumber="), part)
    _add_files(page, files["big"])
    toggle = page.locator(".uppy-StatusBar [data-cy='togglePauseResume']")
    expect(toggle).to_have_attribute("aria-label", "Pause")
    for _ in range(100):  # route handlers run while Playwright waits
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "no part upload was sent"
    toggle.click()
    expect(toggle).to_have_attribute("aria-label", "Resume")
    expect(page.locator(".uppy-StatusBar")).to_contain_text("Paused")
    shot(page, "wizard-upload-paused")
    holding["on"] = False
    for route in held:
        with contextlib.suppress(Exception):  # the browser gave up on it when pausing
            route.abort()
    toggle.click()
    expect(page.locator(".uppy-Dashboard-Item.is-complete")).to_have_count(1, timeout=30_000)
    expect_toast(page, "File uploaded", "model.zip has been uploaded successfully.")
    expect(page.locator("#uploaded-files .uploaded-file")).to_have_count(1)


def test_a_forbidden_file_is_refused_on_its_card_at_once_and_no_agent_is_left(page: Page, admin: httpx.Client,
                                                                            tmp_path: Path) -> None:
    """The picker offers only allowed endings; a file whose content is not what its name says is refused as
    soon as its upload finishes, on its own card; giving up leaves no agent, and a good file then submits."""
    fake = tmp_path / "fake.zip"
    fake.write_text("this is text, not a zip archive\n")
    tool = tmp_path / "tool.exe"
    tool.write_bytes(b"MZ\x90\x00" + bytes(60))
    good = tmp_path / "agent.py"
    good.write_text("print('ok')\n")
    name = unique("Refused files ")
    _vendor(page)
    open_page(page, "/vendor/add-agent")
    _agent_info(page, name)
    _next(page)
    accept = page.locator(".uppy-Dashboard-input").first.get_attribute("accept") or ""
    assert ".zip" in accept and ".py" in accept and ".gz" in accept and ".exe" not in accept, accept

    _add_files(page, tool)  # past the picker (as a drop would be): the widget refuses it before uploading
    expect(page.locator(".uppy-Informer").first).to_contain_text("You can only upload")
    expect(page.locator(".uppy-Dashboard-Item")).to_have_count(0)

    _add_files(page, fake)
    card = page.locator(".uppy-Dashboard-Item").filter(has_text="fake.zip")
    expect(card).to_have_class(re.compile(r"\bis-error\b"), timeout=30_000)
    expect(page.locator("[data-sonner-toast]").filter(has_text="File upload error")
           .filter(has_text="fake.zip:")).to_be_visible()
    expect(page.locator("[data-sonner-toast]").filter(has_text="fake.zip has been uploaded successfully."))\
        .to_have_count(0)
    expect(page.locator("#uploaded-files")).to_have_count(0)
    shot(page, "wizard-file-refused")
    phone(page)
    shot(page, "wizard-file-refused-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(page.locator("#wizard-next")).to_have_attribute("aria-disabled", "true")  # a refused file does not count

    # The vendor gives up: no agent, pending or otherwise, and nothing fileless for the admin.
    page.click("#wizard-cancel")
    page.click("#wizard-discard")
    expect(page).to_have_url(re.compile(r"/vendor/?$"))
    assert not any(a["name"] == name for a in page.request.get("/api/vendor/agents").json())
    assert all(p["fileCount"] > 0 for p in admin.get("/api/admin/agents/pending").json() if p["kind"] == "agent")

    # A new try with a good file: the agent is created with it, and the attach says so.
    open_page(page, "/vendor/add-agent")
    expect(page.locator(".uppy-Dashboard-Item")).to_have_count(0)  # the discarded draft's files are gone
    _agent_info(page, name)
    _next(page)
    _add_files(page, good)
    expect_toast(page, "File uploaded", "agent.py has been uploaded successfully.")
    _next(page)
    _pricing(page, "5")
    _next(page)
    page.click("#wizard-submit")
    expect_toast(page, "File uploaded successfully", "Your agent file has been attached.")
    expect_toast(page, "Agent submitted for review",
                 "Your agent has been submitted and is awaiting admin approval before going live.")
    agent = _own_agent(page, name)
    assert (agent["status"], agent["fileCount"]) == ("pending", 1)


def test_six_files_picked_at_once_keep_the_first_five(page: Page, tmp_path: Path) -> None:
    picked = []
    for n in range(1, 7):
        path = tmp_path / f"note{n}.md"
        path.write_text(f"# Note {n}\n")
        picked.append(path)
    _vendor(page)
    open_page(page, "/vendor/add-agent")
    _agent_info(page, unique("Five of six "))
    _next(page)
    _add_files(page, *picked)
    informer = page.locator(".uppy-Informer").first
    expect(informer).to_contain_text("Only 5 file(s) can be added; left out: note6.md")
    expect(page.locator(".uppy-Dashboard-Item.is-complete")).to_have_count(5, timeout=30_000)
    expect(page.locator("#uploaded-files .uploaded-file")).to_have_count(5)
    names = page.locator(".uppy-Dashboard-Item-name").all_inner_texts()
    assert sorted(names) == [f"note{n}.md" for n in range(1, 6)], names
    shot(page, "wizard-six-files")


def test_an_infected_zip_is_shown_to_its_vendor_and_never_approved(page: Page, admin: httpx.Client,
                                                                   tmp_path: Path) -> None:
    """Issue 33: a vendor uploads a zip holding the EICAR test file with a first version of their choosing; the
    scan's verdict shows on their agent list (desktop and 390 px) and the admin's approval is refused, naming it."""
    eicar = tmp_path / "toolkit.zip"
    with zipfile.ZipFile(eicar, "w") as archive:
        archive.writestr("README.md", "# Toolkit\n")
        archive.writestr("bin/eicar.txt", EICAR)
    name = unique("Toolkit ")
    _vendor(page)
    open_page(page, "/vendor/add-agent")
    _agent_info(page, name)
    _next(page)
    _add_files(page, eicar)
    expect(page.locator("#uploaded-files .uploaded-file")).to_have_count(1, timeout=30_000)
    _next(page)
    _pricing(page, "9.00")
    _next(page)
    expect(page.locator("#first-version")).to_contain_text("leave the label empty for 1.0.0")
    page.fill("#versionLabel", "0.9.0")
    page.fill("#releaseNotes", "First **beta**.")
    page.click("#wizard-submit")
    expect_toast(page, "Agent submitted for review")
    expect(page).to_have_url(re.compile(r"/vendor/?$"))
    agent_id = _own_agent(page, name)["id"]
    wait_for_scans(admin, agent_id)

    open_page(page, "/vendor")
    row = page.locator(f".vendor-agent[data-agent='{name}']")
    expect(row.locator(".agent-version")).to_have_text("Version 0.9.0")
    scan = row.locator(".agent-scan")
    expect(scan).to_have_attribute("data-scan", "infected")
    expect(scan).to_have_text("toolkit.zip: Infected: cannot be approved (Eicar-Test-Signature in bin/eicar.txt)")
    shot(page, "wizard-infected-upload")
    expect_fits_phone(page, f".vendor-agent[data-agent='{name}'] .agent-scan", "wizard-infected-upload-phone")

    refused = admin.post(f"/api/admin/agents/{agent_id}/approve")
    assert refused.status_code == 409
    assert refused.json()["message"] == ("This agent cannot be approved: a security scan found Eicar-Test-Signature "
                                         "(bin/eicar.txt) in toolkit.zip.")
