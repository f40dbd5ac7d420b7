"""The customer dashboard and the Demo Testing Center in a real browser.

Demo data is deterministic: maria bought 15 agents (BlogSmith and CodeReviewer Pro among them) as direct
payments, because no demo vendor has connected a Stripe account; the demo 'customer' bought nothing.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from decimal import Decimal

from playwright.sync_api import Page, Route, expect

from tests.e2e.conftest import set_value_silently
from tests.e2e.helpers import PASSWORD, dollars, expect_toast, open_page, shot, sign_in, sign_up


def _answer_with(status: int) -> Callable[[Route], None]:
    def handle(route: Route) -> None:
        route.fulfill(status=status, content_type="application/json", body='{"message": "refused"}')

    return handle


def _dashboard(page: Page, tab: str | None = None) -> None:
    open_page(page, "/dashboard" if tab is None else f"/dashboard?tab={tab}")
    expect(page.locator("#dashboard")).to_be_visible()
    expect(page.locator("#summary-agents-value")).to_be_visible()  # loaded


def test_demo_buyer_sees_agents_payment_details_orders_and_total(page: Page) -> None:
    sign_in(page, "maria", "customer123")
    purchases = page.request.get("/api/user/purchases").json()
    orders = page.request.get("/api/user/orders").json()
    assert len(purchases) == 15 and len(orders) == 15
    spent = sum(Decimal(p["purchasePrice"]) for p in purchases)

    _dashboard(page)
    expect(page.locator("#welcome")).to_have_text("Welcome back, Maria!")
    expect(page.get_by_text("Manage your AI agents and purchases")).to_be_visible()
    expect(page.locator("#role-badge")).to_have_text("user")
    expect(page.locator("#summary-agents-value")).to_have_text("15")
    expect(page.locator("#summary-spent-value")).to_have_text(dollars(spent))
    expect(page.locator("#summary-orders-value")).to_have_text("15")
    expect(page.locator(".purchase-card")).to_have_count(15)

    blogsmith = page.locator(".purchase-card", has_text="BlogSmith")
    box = blogsmith.locator(".payment-processing")
    expect(box.get_by_text("Payment Processing")).to_be_visible()
    expect(box.get_by_text("Direct Payment")).to_be_visible()
    expect(box.get_by_text("Reason: Vendor has not connected a Stripe account")).to_be_visible()
    expect(box.get_by_text(re.compile("Commission Split"))).to_have_count(0)
    expect(blogsmith.get_by_text("$29.99")).to_be_visible()
    expect(blogsmith.get_by_text(re.compile(r"^Purchased [A-Z][a-z]{2} \d{1,2}, \d{4}$"))).to_be_visible()
    demo = blogsmith.locator("a.demo-link")
    expect(demo).to_have_attribute("href", "https://example.com/demo/blogsmith")
    expect(demo).to_have_attribute("target", "_blank")
    # No demo address, no Demo button.
    expect(page.locator(".purchase-card", has_text="Refund Resolver").locator("a.demo-link")).to_have_count(0)
    shot(page, "dashboard-my-agents")

    page.click("#summary-orders")  # the summary cards switch tabs
    rows = page.locator(".order-row")
    expect(rows).to_have_count(15)
    newest = orders[0]
    first = rows.first
    expect(first.locator(".order-number")).to_have_text(f"Order #{newest['id'][-8:]}")
    expect(first.get_by_text(newest["agentName"], exact=True)).to_be_visible()
    expect(first.get_by_text(dollars(newest["totalAmount"]), exact=True)).to_be_visible()
    expect(first.get_by_text(re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4} • \d{1,2}:\d{2} [AP]M$"))).to_be_visible()
    expect(first.get_by_text("completed")).to_be_visible()
    shot(page, "dashboard-order-history")

    page.click("#summary-agents")
    expect(page.locator(".purchase-card")).to_have_count(15)


def test_download_saves_the_agent_zip_and_strangers_get_403(page: Page) -> None:
    sign_in(page, "maria", "customer123")
    purchases = page.request.get("/api/user/purchases").json()
    agent_id = next(p["agent"]["id"] for p in purchases if p["agent"]["name"] == "CodeReviewer Pro")
    _dashboard(page)
    card = page.locator(".purchase-card", has_text="CodeReviewer Pro")
    with page.expect_download() as info:
        card.get_by_role("button", name="Download").click()
    download = info.value
    assert download.suggested_filename == "CodeReviewer_Pro_files.zip"
    with zipfile.ZipFile(io.BytesIO(download.path().read_bytes())) as archive:
        assert sorted(archive.namelist()) == ["LICENSE-KEY.txt", "README.md", "agent.json", "agent.py"]
        assert archive.read("README.md").startswith(b"# CodeReviewer Pro")
    expect_toast(page, "Download started", "Downloading CodeReviewer Pro files...")
    shot(page, "dashboard-download-started")

    # What the server can answer instead of a zip (intercepted here), as the toast tells it.
    for status, description in ((403, "You don't have access to download this file."), (404, "File not found."),
                                (500, "Failed to download file.")):
        page.route("**/api/agents/*/download", _answer_with(status))
        card.get_by_role("button", name="Download").click()
        expect_toast(page, "Download failed", description)
        page.unroute("**/api/agents/*/download")
    shot(page, "dashboard-download-failed")

    page.context.clear_cookies()
    sign_in(page, "customer", "customer123")  # bought nothing
    response = page.request.get(f"/api/agents/{agent_id}/download")
    assert response.status == 403
    assert response.json() == {"message": "You don't have access to download this file."}


def test_fresh_user_sees_empty_states(page: Page) -> None:
    username = sign_up(page, "dash", form=True)
    # No name given yet: the home page, the dashboard and the avatar menu all call the user by the username.
    expect(page.locator("#welcome")).to_have_text(f"Welcome back, {username}!")
    _dashboard(page)
    expect(page.locator("#welcome")).to_have_text(f"Welcome back, {username}!")
    page.click("#avatar-menu")
    expect(page.get_by_role("menu").get_by_text(username, exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#summary-agents-value")).to_have_text("0")
    expect(page.locator("#summary-spent-value")).to_have_text("$0.00")
    expect(page.locator("#summary-orders-value")).to_have_text("0")
    empty = page.locator("#purchases-empty")
    expect(empty.get_by_text("No agents purchased yet")).to_be_visible()
    expect(empty.get_by_text("Start building your AI toolkit by browsing our marketplace.")).to_be_visible()
    expect(empty.get_by_role("link", name="Browse Agents")).to_have_attribute("href", "/")
    shot(page, "dashboard-empty-agents")

    page.click("#tab-favorites")
    favorites = page.locator("#favorites-empty")
    expect(favorites.get_by_text("No favorite agents yet")).to_be_visible()
    expect(favorites.get_by_role("link", name="Browse Agents")).to_have_attribute("href", "/agents")

    page.click("#tab-orders")
    orders = page.locator("#orders-empty")
    expect(orders.get_by_text("No orders found")).to_be_visible()
    expect(orders.get_by_text("Your purchase history will appear here.")).to_be_visible()
    shot(page, "dashboard-empty-orders")

    page.click("#tab-payment")
    expect(page.get_by_text("No payment methods saved")).to_be_visible()
    expect(page.get_by_role("button", name="Add Payment Method")).to_be_visible()
    expect(page.get_by_text("No payment history")).to_be_visible()


def test_favorites_show_agents_and_already_purchased(page: Page) -> None:
    sign_in(page, "maria", "customer123")
    agents = page.request.get("/api/agents?limit=100").json()
    by_name = {a["name"]: a for a in (agents["items"] if isinstance(agents, dict) else agents)}
    origin = page.evaluate("location.origin")
    for name in ("BlogSmith", "AdCraft"):  # maria owns BlogSmith, not AdCraft
        response = page.request.post("/api/favorites", data={"agentId": by_name[name]["id"]},
                                     headers={"Origin": origin})
        assert response.ok, response.text()
    _dashboard(page, "favorites")
    cards = page.locator("a.favorite-card")
    expect(cards).to_have_count(2)
    blogsmith = cards.filter(has_text="BlogSmith")
    expect(blogsmith).to_have_attribute("href", f"/agents/{by_name['BlogSmith']['id']}")
    expect(blogsmith.get_by_text("Already purchased")).to_be_visible()
    expect(blogsmith.get_by_text("$29.99")).to_be_visible()
    expect(cards.filter(has_text="AdCraft").get_by_text("Already purchased")).to_have_count(0)
    shot(page, "dashboard-favorites")
    for name in ("BlogSmith", "AdCraft"):
        page.request.delete("/api/favorites", data={"agentId": by_name[name]["id"]}, headers={"Origin": origin})


def test_a_later_visit_shows_what_changed_and_the_next_user_only_their_own(page: Page) -> None:
    """The dashboard keeps the lists a visit shows again (it sends only what changed): a favourite added meanwhile
    shows on the next visit inside the app, and another user signed in in the same tab sees nothing of the
    first user's."""
    sign_in(page, "maria", "customer123")
    agents = page.request.get("/api/agents?limit=100").json()
    adcraft = next(a for a in (agents["items"] if isinstance(agents, dict) else agents) if a["name"] == "AdCraft")
    _dashboard(page)
    expect(page.locator(".purchase-card")).to_have_count(15)
    origin = page.evaluate("location.origin")
    added = page.request.post("/api/favorites", data={"agentId": adcraft["id"]}, headers={"Origin": origin})
    assert added.ok, added.text()
    try:
        page.get_by_role("link", name="Browse Agents").first.click()  # away and back, inside the app
        expect(page).to_have_url(re.compile(r"/agents/?$"))
        page.click("#avatar-menu")
        page.get_by_role("menuitem", name="Dashboard").click()
        expect(page.locator("#summary-agents-value")).to_have_text("15")
        page.click("#tab-favorites")
        expect(page.locator("a.favorite-card", has_text="AdCraft")).to_be_visible()
    finally:
        page.request.delete("/api/favorites", data={"agentId": adcraft["id"]}, headers={"Origin": origin})

    page.click("#avatar-menu")
    page.get_by_role("menuitem", name="Log out").click()
    expect(page.get_by_role("link", name="Sign In", exact=True)).to_be_visible()
    sign_up(page, "next", form=True)  # in the same tab: someone who bought nothing, with no favourites
    page.click("#avatar-menu")
    page.get_by_role("menuitem", name="Dashboard").click()
    expect(page.locator("#summary-agents-value")).to_have_text("0")
    expect(page.locator("#purchases-empty")).to_be_visible()
    expect(page.locator(".purchase-card")).to_have_count(0)
    page.click("#tab-favorites")
    expect(page.locator("#favorites-empty")).to_be_visible()


def test_profile_edit_validates_and_saves(page: Page) -> None:
    username = sign_up(page, "dash", form=True)
    _dashboard(page, "profile")
    expect(page.locator("#profile-first-name")).to_have_text("Not set")
    expect(page.locator("#profile-last-name")).to_have_text("Not set")
    expect(page.locator("#profile-email")).to_have_text(f"{username}@example.com")
    expect(page.locator("#profile-username")).to_have_text(username)

    page.click("#edit-profile")
    save = page.locator("#save-profile")
    expect(save).to_be_disabled()  # nothing changed yet
    expect(page.locator("#profile-email-input")).to_have_attribute("type", "email")
    page.fill("#profile-email-input", "not-an-email")
    expect(save).to_be_enabled()
    save.click()
    for message in ("First name is required", "Last name is required", "Invalid email address"):
        expect(page.get_by_text(message)).to_be_visible()
    shot(page, "dashboard-profile-errors")

    page.click("#cancel-profile")  # Cancel resets the form
    expect(page.locator("#profile-email")).to_have_text(f"{username}@example.com")
    page.click("#edit-profile")
    expect(page.locator("#profile-email-input")).to_have_value(f"{username}@example.com")
    expect(page.get_by_text("Invalid email address")).to_have_count(0)

    page.fill("#profile-first-name-input", "Grace")
    page.fill("#profile-last-name-input", "Hopper")
    page.fill("#profile-email-input", "maria@agentmarket.test")  # taken by a demo account
    save.click()  # a new e-mail needs the current password
    expect(page.locator("#profile-current-password-input-error")).to_have_text(
        "Enter your current password to change your e-mail")
    page.fill("#profile-current-password-input", "wrong-password")
    save.click()
    expect_toast(page, "Update Failed", "Current password is incorrect")
    page.fill("#profile-current-password-input", PASSWORD)
    save.click()
    expect_toast(page, "Update Failed", "An account with this email already exists")
    expect(page.locator("#profile-email-input-error")).to_have_text("An account with this email already exists")

    page.fill("#profile-email-input", f"grace.{username}@example.com")
    page.fill("#profile-current-password-input", PASSWORD)
    save.click()
    expect_toast(page, "Profile Updated", f"We sent a confirmation link to grace.{username}@example.com. "
                                          "Your e-mail changes once you open it.")
    expect(page.locator("#profile-first-name")).to_have_text("Grace")
    expect(page.locator("#profile-last-name")).to_have_text("Hopper")
    # the new address is used only once confirmed
    expect(page.locator("#profile-email")).to_have_text(f"{username}@example.com")
    expect(page.locator("#profile-pending-email")).to_have_text(
        f"Waiting for confirmation: grace.{username}@example.com")
    expect(page.locator("#welcome")).to_have_text("Welcome back, Grace!")
    shot(page, "dashboard-profile-updated")
    me = page.request.get("/api/user").json()
    assert (me["firstName"], me["pendingEmail"]) == ("Grace", f"grace.{username}@example.com")


def test_profile_saves_what_is_on_screen_when_submitted_before_typing_reached_the_app(page: Page) -> None:
    sign_up(page, "dash", form=True)
    _dashboard(page, "profile")
    page.click("#edit-profile")
    page.fill("#profile-first-name-input", "Ada")
    set_value_silently(page, "#profile-last-name-input", "Lovelace")
    page.click("#save-profile")
    expect_toast(page, "Profile Updated", "Your profile has been successfully updated.")
    expect(page.locator("#profile-last-name")).to_have_text("Lovelace")
    assert page.request.get("/api/user").json()["lastName"] == "Lovelace"


def test_become_a_vendor_shows_pending_application(page: Page) -> None:
    sign_up(page, "dash", form=True)
    _dashboard(page, "account")
    expect(page.locator("#account-type")).to_have_text("user")
    box = page.locator("#become-vendor")
    expect(box.get_by_text("Start selling your own AI agents on our platform")).to_be_visible()
    box.get_by_role("button", name="Apply Now").click()
    expect_toast(page, "Application Submitted", "Your vendor application has been submitted for review.")
    expect(page.locator("#vendor-application-pending")).to_be_visible()
    expect(box.get_by_role("button", name="Apply Now")).to_have_count(0)
    shot(page, "dashboard-vendor-pending")
    application = page.request.get("/api/vendor/application").json()
    assert application["status"] == "pending" and application["businessName"]
    _dashboard(page, "account")  # still pending on a later visit
    expect(page.locator("#vendor-application-pending")).to_be_visible()


def test_vendors_get_no_become_a_vendor_box_and_can_sign_out(page: Page) -> None:
    sign_in(page, "vendor", "vendor123")
    _dashboard(page, "account")
    expect(page.locator("#account-type")).to_have_text("vendor")
    expect(page.locator("#become-vendor")).to_have_count(0)
    page.click("#sign-out")
    expect(page.get_by_role("link", name="Sign In", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(r"^http://[^/]+/$"))


def test_signed_out_dashboard_asks_to_log_in(page: Page) -> None:
    open_page(page, "/dashboard")
    card = page.locator("#auth-required")
    expect(card.get_by_text("Authentication Required")).to_be_visible()
    expect(card.get_by_text("Please log in to access your dashboard.")).to_be_visible()
    shot(page, "dashboard-signed-out")
    card.get_by_role("link", name="Log In").click()
    expect(page).to_have_url(re.compile(r"/login/?$"))


def test_demo_setup_switches_role_and_the_menu_follows(page: Page) -> None:
    open_page(page, "/demo-setup")
    expect(page.locator("#login-required").get_by_text("Login Required")).to_be_visible()
    page.click("#login-to-continue")
    expect(page).to_have_url(re.compile(r"/login/?$"))

    username = sign_up(page, "dash", form=True)
    open_page(page, "/demo-setup")
    expect(page.get_by_role("heading", name="Demo Testing Center")).to_be_visible()
    expect(page.locator("#current-role")).to_have_text("user")
    expect(page.locator("#current-account")).to_contain_text(username)
    expect(page.locator("#switch-user")).to_have_text("Currently Active")
    expect(page.locator("#switch-user")).to_be_disabled()
    for number in ("4242 4242 4242 4242", "4000 0000 0000 0002", "4000 0000 0000 9995"):
        expect(page.locator("#payment-testing").get_by_text(number)).to_be_visible()
    for href in ("/", "/dashboard", "/admin/settings"):
        expect(page.locator(f"#quick-links a[href='{href}']")).to_have_count(1)

    # Loading demo data is an admin action (any tester may switch roles, below): a customer is told so.
    expect(page.locator("#init-demo-hint")).to_have_text("An admin action: switch to Administrator first.")
    page.click("#init-demo")
    expect_toast(page, "Initialization Failed", "Admin access required")
    shot(page, "demo-setup-customer")

    page.click("#avatar-menu")
    expect(page.get_by_role("menuitem", name="Vendor Dashboard")).to_have_count(0)
    page.keyboard.press("Escape")

    page.click("#switch-vendor")
    expect_toast(page, "Role Switched Successfully", "You are now testing as a vendor")
    expect(page.locator("#current-role")).to_have_text("vendor")
    expect(page.locator("#switch-vendor")).to_have_text("Currently Active")
    expect(page.locator("#switch-user")).to_be_enabled()
    page.click("#avatar-menu")
    expect(page.get_by_role("menuitem", name="Vendor Dashboard")).to_be_visible()
    shot(page, "demo-setup-vendor-menu")
    page.keyboard.press("Escape")

    _dashboard(page, "account")  # vendors are not offered the vendor application
    expect(page.locator("#role-badge")).to_have_text("vendor")
    expect(page.locator("#become-vendor")).to_have_count(0)

    open_page(page, "/demo-setup")
    page.click("#switch-admin")
    expect_toast(page, "Role Switched Successfully", "You are now testing as an admin")
    expect(page.locator("#current-role")).to_have_text("admin")
    expect(page.locator("#init-demo-hint")).to_have_count(0)
    page.click("#init-demo")
    expect_toast(page, "Demo Data Initialized", "Platform is ready for testing with all settings configured")
