"""Accounts with e-mail in a real browser: confirm the address, reset a forgotten password, sign out
everywhere, reading each message on the dev mailbox page (/dev/mail) as a person would."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import (
    DEMO_ADMIN,
    PASSWORD,
    api_context,
    expect_fits_phone,
    expect_toast,
    mail_link,
    open_page,
    same_origin,
    shot,
    sign_in,
    sign_up,
)

NEW_PASSWORD = "fresh-pass-42"


def test_confirm_email_reset_password_and_sign_out_everywhere(page: Page, browser: Browser, app_server: str) -> None:
    username = sign_up(page, "mail", form=True)
    email = f"{username}@example.com"
    expect(page.locator("#demo-banner")).to_be_visible()
    banner = page.locator("#verify-banner")
    expect(banner).to_contain_text(f"Please confirm your e-mail address {email}")
    shot(page, "verify-banner")

    # 1. Confirm the address from the mail.
    link = mail_link(page, email, "Confirm your e-mail address", "/verify-email", shot_as="dev-mailbox")
    page.goto(link)
    expect(page.locator("#verify-result")).to_have_text(f"{email} is now confirmed for your account.")
    expect(page.locator("#verify-banner")).to_have_count(0)
    shot(page, "verify-email-confirmed")
    open_page(page, "/dashboard")
    expect(page.locator("#verify-banner")).to_have_count(0)
    page.goto(link)  # a used link does not work twice
    expect(page.locator("#verify-result")).to_contain_text("invalid or has expired")

    # 2. Forget the password: sign out, ask for a link, choose a new password.
    page.request.post("/api/logout", headers=same_origin(page))
    open_page(page, "/login")
    page.click("#forgot-password")
    expect(page).to_have_url(re.compile(r"/forgot-password/?$"))
    page.locator("#hydrated").wait_for(state="attached")
    page.fill("#forgot-email", email)
    shot(page, "forgot-password")
    page.click("#send-reset-link")
    expect(page.locator("#reset-sent")).to_contain_text("If an account uses this e-mail address")
    shot(page, "forgot-password-sent")
    reset = mail_link(page, email, "Reset your password", "/reset-password")
    open_page(page, reset.removeprefix(app_server))
    expect(page.locator("#set-new-password")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/reset-password/?$"))  # the token leaves the address bar at once
    page.fill("#reset-password", NEW_PASSWORD)
    page.fill("#reset-confirm-password", "something-else")
    page.click("#set-new-password")
    expect(page.locator("#reset-confirm-password-error")).to_have_text("Passwords don't match")
    page.fill("#reset-confirm-password", NEW_PASSWORD)
    shot(page, "reset-password")
    page.click("#set-new-password")
    expect_toast(page, "Password reset", "Please sign in with your new password.")
    expect(page).to_have_url(re.compile(r"/login/?$"))
    answer = page.request.post("/api/login", data={"username": username, "password": PASSWORD},
                               headers=same_origin(page))
    assert answer.status == 401  # the old password is gone
    # The used link says so as it opens: no form that would fail only once a password was chosen.
    open_page(page, reset.removeprefix(app_server))
    expect(page.locator("#reset-link-invalid")).to_contain_text("This link is invalid or has expired.")
    expect(page.locator("#set-new-password")).to_have_count(0)
    shot(page, "reset-password-used-link")
    expect_fits_phone(page, "#reset-link-invalid", "reset-password-used-link-phone")
    page.set_viewport_size({"width": 1280, "height": 800})
    sign_in(page, username, NEW_PASSWORD)

    # 3. Signed in on a second device too; 'Sign out of all devices' ends both.
    other = api_context(browser, app_server)
    try:
        sign_in(other.new_page(), username, NEW_PASSWORD, api=True)
        assert other.request.get("/api/user").status == 200
        open_page(page, "/dashboard?tab=account")
        expect(page.locator("#security-card")).to_be_visible()
        shot(page, "dashboard-security")
        page.click("#sign-out-everywhere")  # asks first; 'Cancel' leaves every session as it was
        dialog = page.locator("#sign-out-everywhere-dialog")
        expect(dialog.get_by_text("Sign out of all devices?")).to_be_visible()
        shot(page, "sign-out-everywhere-confirm")
        page.click("#sign-out-everywhere-cancel")
        expect(dialog).to_have_count(0)
        assert page.request.get("/api/user").status == 200
        assert other.request.get("/api/user").status == 200
        page.click("#sign-out-everywhere")
        page.click("#sign-out-everywhere-confirm")
        expect_toast(page, "Signed out everywhere", "You have been signed out on every device.")
        expect(page).to_have_url(re.compile(r"/login/?$"))
        assert page.request.get("/api/user").status == 401
        assert other.request.get("/api/user").status == 401
    finally:
        other.close()


def test_change_password_in_the_account_tab(page: Page) -> None:
    username = sign_up(page, "chpw")
    open_page(page, "/dashboard?tab=account")
    page.fill("#current-password", "not-it")
    page.fill("#new-password", NEW_PASSWORD)
    page.fill("#confirm-new-password", NEW_PASSWORD)
    page.click("#change-password")
    expect(page.locator("#current-password-error")).to_have_text("Current password is incorrect")
    page.fill("#current-password", PASSWORD)
    page.fill("#new-password", NEW_PASSWORD)
    page.fill("#confirm-new-password", NEW_PASSWORD)
    page.click("#change-password")
    expect_toast(page, "Password changed", "Your password has been changed. Your other sessions were signed out.")
    assert page.request.get("/api/user").status == 200  # this device stays signed in
    answer = page.request.post("/api/login", data={"username": username, "password": NEW_PASSWORD},
                               headers=same_origin(page))
    assert answer.status == 200


def test_new_pages_fit_a_phone(page: Page) -> None:
    open_page(page, "/forgot-password")
    expect_fits_phone(page, "#send-reset-link", "forgot-password-phone")
    open_page(page, "/reset-password?token=abc")  # an unknown link: refused as the page opens
    expect_fits_phone(page, "#reset-link-invalid", "reset-password-invalid-phone")
    open_page(page, "/dev/mail")  # signed out: the mailbox is for admins, and the page says so
    expect_fits_phone(page, "#mailbox-admins-only", "dev-mailbox-admins-only-phone")
    sign_up(page, "phone")
    open_page(page, "/dashboard?tab=account")
    expect_fits_phone(page, "#security-card", "dashboard-security-phone")


def test_the_dev_mailbox_is_for_admins(page: Page) -> None:
    """It holds every link the app mailed (password resets included): a customer is told it is for admins."""
    sign_up(page, "nosy")
    open_page(page, "/dev/mail")
    notice = page.locator("#mailbox-admins-only")
    expect(notice).to_contain_text("only admins may read it")
    expect(page.locator(".mail-message")).to_have_count(0)
    expect(page.locator("#demo-banner").get_by_role("link", name="Mailbox")).to_be_visible()  # the link stays
    shot(page, "dev-mailbox-admins-only")
    assert page.request.get("/api/dev/mail").status == 403
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/dev/mail")
    expect(page.locator("#dev-mailbox")).to_be_visible()
    expect(page.locator("#mailbox-admins-only")).to_have_count(0)


def test_a_confirmation_link_confirms_the_account_it_was_sent_to(page: Page, browser: Browser,
                                                                 app_server: str) -> None:
    """Opened while signed in as someone else, it confirms its own account and says which; the signed-in
    account stays unconfirmed."""
    owner_context = api_context(browser, app_server)
    try:
        owner = owner_context.new_page()
        owner_name = sign_up(owner, "owner")
        owner_email = f"{owner_name}@example.com"
        link = mail_link(owner, owner_email, "Confirm your e-mail address", "/verify-email")
    finally:
        owner_context.close()
    viewer = sign_up(page, "viewer")
    page.goto(link)
    expect(page.locator("#verify-result")).to_have_text(
        f"{owner_email} is now confirmed for the account '{owner_name}'. "
        "You are signed in with another account, which has not changed.")
    expect(page.locator("#verify-banner")).to_contain_text(f"{viewer}@example.com")  # still unconfirmed
    assert page.request.get("/api/user").json()["emailVerified"] is False
    shot(page, "verify-email-other-account")
