"""Forgot password, reset password (from the e-mailed link), e-mail confirmation (from its link), and a guest
buyer's first password (from the receipt's link).

Requests that need the client's address or change the session cookie go through /api from the browser
(`fetch_api`); the confirmation link is checked by the service directly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

import reflex as rx

from marketplace.services import accounts, auth, guest_checkout, mail_texts
from marketplace.state.browser import error_message, fetch_api, response_json
from marketplace.state.forms import FormState, focus_first_error, take_submitted
from marketplace.state.service_calls import QUIET, attempt
from marketplace.state.session import SessionState, flash_and_go

RESET_PATH = "/reset-password"
GUEST_PASSWORD_PATH = mail_texts.GUEST_PASSWORD_PATH


class ForgotPasswordState(FormState, rx.State):
    FORM_FIELDS: ClassVar[dict[str, str]] = {"email": "email"}
    email: str = ""
    submitting: bool = False
    sent_message: str = ""

    @rx.event
    def on_load(self) -> None:
        self.reset()

    @rx.event
    def submit(self, form: dict | None = None) -> rx.event.EventSpec | None:
        take_submitted(self, form, {"email": "email"})
        if not self.email.strip():
            self.errors = {"email": "Email is required"}
            return focus_first_error()
        self.submitting = True
        return rx.call_script(fetch_api("POST", "/api/auth/forgot-password", {"email": self.email.strip()}),
                              callback=ForgotPasswordState.done)

    @rx.event
    def done(self, result: dict[str, Any]) -> rx.event.EventSpec | None:
        self.submitting = False
        if result.get("ok"):
            self.sent_message = error_message(result)
            return None
        return rx.toast.error("Request failed", description=error_message(result) or "Please try again.")


class PasswordLinkForm(FormState, rx.State, mixin=True):
    """A page opened from an e-mailed link that chooses a password: the link is checked as the page opens, the
    password is sent through /api (which may change the session cookie). Each page names its link check, its
    API path and where it goes after."""

    FORM_FIELDS: ClassVar[dict[str, str]] = {"password": "password", "confirm_password": "confirm_password"}
    PATH: ClassVar[str] = ""
    API_PATH: ClassVar[str] = ""
    FAILED_TITLE: ClassVar[str] = "Request failed"
    token: str = ""
    password: str = ""
    confirm_password: str = ""
    submitting: bool = False
    link_status: str = "checking"  # checking | valid | invalid (no token, unknown, used or expired)
    link_message: str = ""

    @classmethod
    def check_link(cls, token: str) -> None:
        """Raise DomainError unless the link would work now (runs on a worker thread)."""
        raise NotImplementedError

    def finished(self) -> rx.event.EventSpec:
        raise NotImplementedError

    @rx.event
    async def on_load(self) -> AsyncIterator[Any]:
        """The link is checked as the page opens: a dead one says so instead of showing a form that fails."""
        self.reset()
        self.token = self.router.url.query_parameters.get("token", "")
        yield
        checked = await attempt(QUIET, type(self).check_link, self.token)
        if checked.failed:
            self.link_status, self.link_message = "invalid", checked.message
            return
        self.link_status = "valid"
        # The token stays in state for the submit; it leaves the address bar (history, screenshots, shoulders).
        yield rx.call_script(f"window.history.replaceState(null, '', {self.PATH!r})")

    @rx.event
    def submit(self, form: dict | None = None) -> rx.event.EventSpec | None:
        take_submitted(self, form, {"password": "password", "confirm_password": "confirm_password"})
        errors: dict[str, str] = {}
        if problem := auth.password_error(self.password):
            errors["password"] = problem
        if self.confirm_password != self.password:
            errors["confirm_password"] = "Passwords don't match"
        self.errors = errors
        if errors:
            return focus_first_error()
        self.submitting = True
        body = {"token": self.token, "password": self.password}
        self.password = self.confirm_password = ""
        return rx.call_script(fetch_api("POST", self.API_PATH, body), callback=type(self).done)

    @rx.event
    def done(self, result: dict[str, Any]) -> rx.event.EventSpec | None:
        self.submitting = False
        if result.get("ok"):
            self.token, self.link_status = "", "checking"
            return self.finished()
        answer = response_json(result)
        if answer.get("field") == "password":
            self.errors = {"password": error_message(result)}
            return focus_first_error()
        if answer.get("field") == "token":  # used up meanwhile (another tab): the page says so, as on opening
            self.link_status, self.link_message = "invalid", error_message(result)
            return None
        return rx.toast.error(self.FAILED_TITLE, description=error_message(result) or "Please try again.")


class ResetPasswordState(PasswordLinkForm, rx.State):
    PATH: ClassVar[str] = RESET_PATH
    API_PATH: ClassVar[str] = "/api/auth/reset-password"
    FAILED_TITLE: ClassVar[str] = "Reset failed"

    @classmethod
    def check_link(cls, token: str) -> None:
        accounts.check_reset_link(token=token)

    def finished(self) -> rx.event.EventSpec:
        return flash_and_go("Password reset", "Please sign in with your new password.", "/login")


class VerifyEmailState(SessionState):
    """Opening the e-mailed link confirms the address; a signed-in user's banner goes at once."""

    verify_status: str = "checking"  # checking | confirmed | failed
    verify_message: str = ""

    @rx.event
    async def on_load(self) -> None:
        token = self.router.url.query_parameters.get("token", "")
        verified = await attempt(QUIET, accounts.verify_email, token=token)
        if verified.failed:
            self.verify_status, self.verify_message = "failed", verified.message
            return
        user = verified.value
        self.verify_status = "confirmed"
        self.verify_message = accounts.confirmation_notice(confirmed=user, viewer_id=self.user_id or None)
        if self.user_id == user.id:
            self._apply(user)


class GuestPasswordState(PasswordLinkForm, rx.State):
    """/set-password: a guest buyer's receipt link; setting the password confirms the address and signs in."""

    PATH: ClassVar[str] = GUEST_PASSWORD_PATH
    API_PATH: ClassVar[str] = "/api/auth/guest-password"
    FAILED_TITLE: ClassVar[str] = "Could not set the password"

    @classmethod
    def check_link(cls, token: str) -> None:
        guest_checkout.check_link(token=token)

    def finished(self) -> rx.event.EventSpec:
        return flash_and_go("Password set", "You are signed in. Your agents are in My Agents.", "/dashboard")
