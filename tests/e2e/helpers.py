"""What browser tests do over and over: open a page, sign up, sign in, read a toast, switch to phone width."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page, shot

__all__ = ["PHONE", "expect_toast", "open_page", "phone", "shot", "sign_in", "sign_up", "unique"]

TOAST = "[data-sonner-toast]"
PHONE = {"width": 390, "height": 844}


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def sign_in(page: Page, username: str, password: str) -> None:
    """Through the login form, as a person would."""
    open_page(page, "/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#sign-in")
    expect(page.get_by_text("You have successfully logged in.")).to_be_visible()


def sign_up(page: Page, prefix: str = "user", *, password: str = "secret123") -> str:
    """A fresh customer through the API; the page's context then carries its session cookie."""
    username = unique(prefix)
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
