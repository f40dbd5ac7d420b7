"""Sign-in and sign-up forms: field checks here mirror the services' rules for instant feedback."""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx
from reflex.event import EventSpec

from marketplace.services import auth, return_paths, sign_in_errors
from marketplace.state.browser import error_message, fetch_api, response_json
from marketplace.state.forms import FormState, focus_first_error, submitted_checkbox, take_submitted
from marketplace.state.session import SessionEvents, flash_and_go, toast_on_load


class ReturnPath(rx.State, mixin=True):
    """`?next=`: the page of this site to go back to after signing in or up (services/return_paths)."""

    next_path: str = "/"

    def _take_next(self) -> None:
        self.next_path = return_paths.safe_next(self.router.url.query_parameters.get("next"))

    @rx.var
    def next_query(self) -> str:
        """'?next=/checkout/..' for the links to the other form and to Google and GitHub; '' for home."""
        return return_paths.with_next("", self.next_path)


class LoginState(ReturnPath, FormState, rx.State):
    FORM_FIELDS: ClassVar[dict[str, str]] = {"username": "username", "password": "password"}
    username: str = ""
    password: str = ""
    enable_2fa: bool = False
    two_factor_code: str = ""
    submitting: bool = False

    @rx.event
    def set_enable_2fa(self, value: bool) -> None:
        self.enable_2fa = value
        if not value:
            self.two_factor_code = ""

    @rx.event
    def set_two_factor_code(self, value: str) -> None:
        self.two_factor_code = value[:6]

    @rx.event
    def on_load(self) -> list[Any]:
        self.reset()  # the tab's state outlives page loads; start each visit with a clean form
        self._take_next()
        events: list[Any] = [SessionEvents.redirect_if_signed_in(self.next_path)]
        query = self.router.url.query_parameters
        if query.get("error"):
            # Only our own texts: the address is anyone's to write (services/sign_in_errors.py).
            events.append(toast_on_load("Login Failed", sign_in_errors.text(query.get("error"), query.get("provider")),
                                        error=True))
        return events

    @rx.event
    def submit(self, form: dict | None = None) -> EventSpec | None:
        take_submitted(self, form, {name: name for name in ("username", "password", "two_factor_code")})
        if (ticked := submitted_checkbox(form, "enable_2fa")) is not None:
            self.enable_2fa = ticked
        errors: dict[str, str] = {}
        if not self.username.strip():
            errors["username"] = "Username or email is required"
        if not self.password:
            errors["password"] = "Password is required"
        self.errors = errors
        if errors:
            return focus_first_error()
        self.submitting = True
        body: dict[str, Any] = {"username": self.username.strip(), "password": self.password}
        if self.enable_2fa:
            body |= {"enable2FA": True, "twoFactorCode": self.two_factor_code.strip()}
        return rx.call_script(fetch_api("POST", "/api/login", body), callback=LoginState.done)

    @rx.event
    def done(self, result: dict[str, Any]) -> EventSpec:
        if result.get("ok"):
            self.password = ""
            return flash_and_go("Welcome back!", "You have successfully logged in.", self.next_path)
        self.submitting = False
        message = error_message(result)
        if response_json(result).get("field") == "twoFactorCode":
            # The password was right: keep it, open the code box and ask only for a (new) code.
            self.enable_2fa, self.two_factor_code = True, ""
        else:
            self.password = ""
        return rx.toast.error("Login Failed", description=message or "Invalid username or password")


_SIGNUP_FIELDS = {"username": "username", "email": "email", "password": "password",
                  "confirmPassword": "confirm_password"}  # the service's field names -> this state's


class SignupState(ReturnPath, FormState, rx.State):
    FORM_FIELDS: ClassVar[dict[str, str]] = {name: name for name in _SIGNUP_FIELDS.values()}
    username: str = ""
    email: str = ""
    password: str = ""
    confirm_password: str = ""
    enable_2fa: bool = False
    submitting: bool = False
    # 2FA enrolment, shown after the account exists.
    totp_secret: str = ""
    totp_qr: str = ""
    totp_code: str = ""
    confirming: bool = False

    @rx.event
    def on_load(self) -> EventSpec:
        self.reset()
        self._take_next()
        return SessionEvents.redirect_if_signed_in(self.next_path)

    @rx.event
    def set_enable_2fa(self, value: bool) -> None:
        self.enable_2fa = value

    @rx.event
    def set_totp_code(self, value: str) -> None:
        self.totp_code = value[:6]

    @rx.event
    def submit(self, form: dict | None = None) -> EventSpec | None:
        take_submitted(self, form, {name: name for name in ("username", "email", "password", "confirm_password")})
        if (ticked := submitted_checkbox(form, "enable_2fa")) is not None:
            self.enable_2fa = ticked
        errors = auth.registration_errors(username=self.username, email=self.email, password=self.password,
                                          confirm_password=self.confirm_password)
        self.errors = {_SIGNUP_FIELDS[field]: message for field, message in errors.items()}
        if errors:
            return focus_first_error()
        self.submitting = True
        body = {"username": self.username.strip(), "email": self.email.strip(), "password": self.password,
                "enable2FA": self.enable_2fa}
        self.password = self.confirm_password = ""
        return rx.call_script(fetch_api("POST", "/api/register", body), callback=SignupState.done)

    @rx.event
    def done(self, result: dict[str, Any]) -> EventSpec | list[EventSpec] | None:
        self.submitting = False
        if not result.get("ok"):
            data = response_json(result)
            field = _SIGNUP_FIELDS.get(str(data.get("field")))
            if field:
                self.errors = {field: str(data.get("message"))}
            toast = rx.toast.error(
                "Signup Failed", description=error_message(result) or "An error occurred during registration"
            )
            return [toast, focus_first_error()] if field else toast
        setup = response_json(result).get("twoFactorSetup")
        if setup:
            self.totp_secret, self.totp_qr = setup["secret"], setup["qrCodeSvg"]
            return None
        return self._welcome()

    def _welcome(self) -> EventSpec:
        return flash_and_go(f"Welcome to AgentMarket, {self.username.strip()}!",
                            "Your account has been created successfully.", self.next_path)

    @rx.event
    def confirm_two_factor(self, form: dict | None = None) -> EventSpec | None:
        take_submitted(self, form, {"totp_code": "totp_code"})
        if len(self.totp_code.strip()) != 6:
            self.errors = {"totp_code": "Enter the 6-digit code from your authenticator app"}
            return focus_first_error()
        self.confirming = True
        return rx.call_script(
            fetch_api("POST", "/api/user/2fa/confirm", {"code": self.totp_code.strip()}),
            callback=SignupState.confirmed,
        )

    @rx.event
    def confirmed(self, result: dict[str, Any]) -> EventSpec | None:
        self.confirming = False
        if result.get("ok"):
            return self._welcome()
        self.errors = {"totp_code": error_message(result) or "Invalid two-factor code"}
        return focus_first_error()
