"""What browser tests do over and over: open a page, sign up, sign in, read a toast, switch to phone width."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page, shot

__all__ = [
    "PASSWORD", "PHONE", "expect_toast", "open_page", "phone", "shot", "sign_in", "sign_up", "submit_sign_in",
    "submit_sign_up", "unique",
]

PASSWORD = "secret123"
TOAST = "[data-sonner-toast]"
PHONE = {"width": 390, "height": 844}


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


def sign_in(page: Page, username: str, password: str, *, api: bool = False) -> None:
    """Through the login form, as a person would, until the app says so; `api=True` signs the page's context
    in through the API instead (no page is opened)."""
    if api:
        answer = page.request.post("/api/login", data={"username": username, "password": password})
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
                                                      "password": password})
    assert answer.status == 201, answer.text()
    return username


def expect_toast(page: Page, title: str, description: str | None = None) -> None:
    """The newest toast with this title (and description) is on screen; older ones may linger, hidden."""
    toast = page.locator(TOAST).filter(has=page.get_by_text(title, exact=True))
    if description is not None:
        toast = toast.filter(has=page.get_by_text(description, exact=True))
    expect(toast.last).to_be_visible()


def phone(page: Page) -> None:
    page.set_viewport_size(PHONE)
