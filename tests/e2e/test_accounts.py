"""Accounts in a real browser: sign up, sign out, sign in, 2FA, role menus, 404."""

from __future__ import annotations

import re
import time
from urllib.parse import quote

import pyotp
from playwright.sync_api import Page, expect

from tests.e2e.conftest import set_value_silently
from tests.e2e.helpers import expect_toast, open_page, shot, submit_sign_in, submit_sign_up, unique


def _open_menu(page: Page) -> None:
    page.click("#avatar-menu")
    expect(page.get_by_role("menu")).to_be_visible()


def _close_menu(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.get_by_role("menu")).to_have_count(0)


def _sign_out(page: Page) -> None:
    _open_menu(page)
    page.get_by_role("menuitem", name="Log out").click()
    expect(page.get_by_role("link", name="Sign In", exact=True)).to_be_visible()


def test_sign_up_sign_out_and_sign_in(page: Page) -> None:
    username = unique("eve")
    submit_sign_up(page, username)
    expect(page.get_by_text("Your account has been created successfully.")).to_be_visible()
    shot(page, "signup-welcome")
    _open_menu(page)
    expect(page.get_by_role("menu").get_by_text(f"{username}@example.com")).to_be_visible()
    _close_menu(page)
    _sign_out(page)
    expect(page.locator("#landing")).to_be_visible()
    submit_sign_in(page, username, "secret123")
    expect(page.get_by_text("You have successfully logged in.")).to_be_visible()
    expect(page.get_by_text("Welcome back!", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(r"^http://[^/]+/$"))
    shot(page, "signed-in-home")


def test_wrong_password_shows_login_failed_toast(page: Page) -> None:
    submit_sign_in(page, "customer", "not-the-password")
    expect_toast(page, "Login Failed", "Invalid username or password")
    expect(page.locator("#sign-in")).to_be_enabled()
    expect(page.locator("#password")).to_have_value("")  # a wrong password is cleared
    shot(page, "login-failed")


def test_forms_submit_what_is_on_screen_before_typing_reached_the_app(page: Page) -> None:
    """Sign-up and sign-in with every field filled but no change event delivered (a very quick submit)."""
    username = unique("quick")
    open_page(page, "/signup")
    for selector, value in (("#username", username), ("#email", f"{username}@example.com"),
                            ("#password", "secret123"), ("#confirm_password", "secret123")):
        set_value_silently(page, selector, value)
    page.click("#create-account")
    expect(page.get_by_text("Your account has been created successfully.")).to_be_visible()
    _sign_out(page)

    open_page(page, "/login")
    set_value_silently(page, "#username", username)
    set_value_silently(page, "#password", "secret123")
    page.click("#sign-in")
    expect(page.get_by_text("You have successfully logged in.")).to_be_visible()


def test_form_validation_messages(page: Page) -> None:
    open_page(page, "/login")
    page.click("#sign-in")
    expect(page.get_by_text("Username or email is required")).to_be_visible()
    expect(page.get_by_text("Password is required")).to_be_visible()
    open_page(page, "/signup")
    page.fill("#username", "ab")
    page.fill("#email", "nope")
    page.fill("#password", "123")
    page.fill("#confirm_password", "1234")
    page.click("#create-account")
    for message in ("Username must be at least 3 characters", "Please enter a valid email address",
                    "Password must be at least 6 characters", "Passwords don't match"):
        expect(page.get_by_text(message)).to_be_visible()
    shot(page, "signup-validation")


def test_two_factor_sign_up_and_sign_in(page: Page) -> None:
    username = unique("tfa")
    submit_sign_up(page, username, two_factor=True)
    expect(page.locator("#totp-qr")).to_be_visible()
    secret = page.locator("#totp-secret").inner_text().strip()
    shot(page, "two-factor-enrolment")
    totp = pyotp.TOTP(secret)
    page.fill("#totp_code", totp.now())
    page.click("#verify-2fa")
    expect(page.get_by_text("Your account has been created successfully.")).to_be_visible()
    _sign_out(page)

    submit_sign_in(page, username, "secret123")
    expect_toast(page, "Login Failed", "Two-factor authentication code required")
    expect(page.locator("#two-factor-code")).to_be_visible()  # the code box opens by itself
    expect(page.locator("#password")).to_have_value("secret123")  # the password was right: only the code is asked
    wrong = "000000" if totp.now() != "000000" else "111111"
    page.fill("#two-factor-code", wrong)
    page.click("#sign-in")
    expect_toast(page, "Login Failed", "Invalid two-factor authentication code")
    expect(page.locator("#two-factor-code")).to_have_value("")
    expect(page.locator("#password")).to_have_value("secret123")
    page.fill("#two-factor-code", totp.at(time.time() + totp.interval))  # enrolment spent the current step
    page.click("#sign-in")
    expect(page.get_by_text("You have successfully logged in.")).to_be_visible()


def _menu_items(page: Page) -> list[str]:
    _open_menu(page)
    items = [t.strip() for t in page.get_by_role("menuitem").all_inner_texts()]
    _close_menu(page)
    return items


def test_role_specific_menu_items(page: Page) -> None:
    expected = {
        "customer": ["Dashboard", "Log out"],
        "vendor": ["Dashboard", "Vendor Dashboard", "Log out"],
        "admin": ["Dashboard", "Admin Panel", "Log out"],
    }
    for username, items in expected.items():
        submit_sign_in(page, username, f"{username}123")
        expect(page.get_by_text("You have successfully logged in.")).to_be_visible()
        assert _menu_items(page) == items
        if username == "admin":
            _open_menu(page)
            shot(page, "admin-menu")
            _close_menu(page)
        _sign_out(page)


def test_signed_in_user_is_bounced_from_login(page: Page) -> None:
    submit_sign_in(page, "customer", "customer123")
    expect(page.get_by_text("You have successfully logged in.")).to_be_visible()
    page.goto("/login")
    expect(page.locator("#home")).to_be_visible()
    expect(page).to_have_url(re.compile(r"^http://[^/]+/$"))


def test_unknown_route_shows_404_card(page: Page) -> None:
    open_page(page, "/no/such/page")
    expect(page.get_by_text("404 Page Not Found")).to_be_visible()
    expect(page.get_by_text("Did you forget to add the page to the router?")).to_be_visible()
    shot(page, "not-found")


def test_site_icon_is_served(page: Page) -> None:
    response = page.request.get("/favicon.ico")
    assert response.status == 200
    assert response.body()[:4] == b"\x00\x00\x01\x00"  # an ICO file


def test_sso_without_configuration_returns_to_login_with_message(page: Page) -> None:
    open_page(page, "/login")
    page.get_by_role("link", name="Continue with Google").click()
    expect(page).to_have_url(re.compile(r"/login/?\?error=not_configured&provider=google$"))
    expect_toast(page, "Login Failed", "Google sign-in is not configured")


def test_the_sign_in_page_shows_only_its_own_error_texts(page: Page) -> None:
    """A link anyone can send (/login?error=...) puts no words of its own on the sign-in page."""
    injected = "Your account is locked, call +1-555"
    open_page(page, f"/login?error={quote(injected)}")
    expect_toast(page, "Login Failed", "Sign-in failed. Please try again.")
    expect(page.get_by_text("call +1-555")).to_have_count(0)
    assert "+1-555" not in page.locator("body").inner_text()
    shot(page, "login-unknown-error-code")
    open_page(page, "/login?error=cancelled&provider=github")
    expect_toast(page, "Login Failed", "GitHub sign-in was cancelled")


def test_top_bar_sign_in_goes_through_api_login(page: Page) -> None:
    open_page(page, "/")
    page.get_by_role("link", name="Get Started").first.click()
    expect(page).to_have_url(re.compile(r"/login/?$"))
    expect(page.locator("#sign-in")).to_be_visible()
