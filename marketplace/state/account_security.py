"""The dashboard's security card: change password, two-factor authentication on/off, sign out everywhere.

Each action goes to /api from the browser (`fetch_api`): the request carries this device's session cookie,
which the server keeps while ending the user's other sessions, and argon2 runs in the API's thread pool,
never on this event loop.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx
from reflex.event import EventSpec

from marketplace.services import auth
from marketplace.state.browser import error_message, fetch_api, response_json
from marketplace.state.forms import FormState, focus_first_error, take_submitted
from marketplace.state.session import SessionState, flash_and_go

_PASSWORD_FIELDS = {"currentPassword": "current_password", "newPassword": "new_password"}


class AccountSecurityState(FormState, SessionState):
    FORM_FIELDS: ClassVar[dict[str, str]] = {name: name for name in ("current_password", "new_password",
                                                                     "confirm_new_password")}
    current_password: str = ""
    new_password: str = ""
    confirm_new_password: str = ""
    changing_password: bool = False
    # two-factor authentication
    totp_secret: str = ""
    totp_qr: str = ""
    totp_code: str = ""
    totp_error: str = ""
    totp_busy: bool = False
    signing_out: bool = False

    @rx.event
    def on_load(self) -> None:
        self.current_password = self.new_password = self.confirm_new_password = ""
        self.errors = {}
        self.totp_secret = self.totp_qr = self.totp_code = self.totp_error = ""
        self.changing_password = self.totp_busy = self.signing_out = False

    @rx.event
    def set_totp_code(self, value: str) -> None:
        self.totp_code = value[:6]
        self.totp_error = ""

    # --- change password ---------------------------------------------------------------------------------------

    @rx.event
    def change_password(self, form: dict | None = None) -> EventSpec | None:
        take_submitted(self, form, {"current_password": "current_password", "new_password": "new_password",
                                    "confirm_new_password": "confirm_new_password"})
        errors: dict[str, str] = {}
        if not self.current_password:
            errors["current_password"] = "Current password is required"
        if problem := auth.password_error(self.new_password):
            errors["new_password"] = problem
        if self.confirm_new_password != self.new_password:
            errors["confirm_new_password"] = "Passwords don't match"
        self.errors = errors
        if errors:
            return focus_first_error()
        if self.changing_password:
            return None
        self.changing_password = True
        body = {"currentPassword": self.current_password, "newPassword": self.new_password}
        self.current_password = self.new_password = self.confirm_new_password = ""
        return rx.call_script(fetch_api("PUT", "/api/user/password", body),
                              callback=AccountSecurityState.password_changed)

    @rx.event
    def password_changed(self, result: dict[str, Any]) -> EventSpec | None:
        self.changing_password = False
        if result.get("ok"):
            return rx.toast("Password changed", description=error_message(result))
        field = _PASSWORD_FIELDS.get(str(response_json(result).get("field")))
        if field:
            self.errors = {field: error_message(result)}
            return focus_first_error()
        return rx.toast.error("Password not changed", description=error_message(result) or "Please try again.")

    # --- two-factor authentication -----------------------------------------------------------------------------

    @rx.event
    def start_two_factor(self) -> EventSpec | None:
        if self.totp_busy:
            return None
        self.totp_busy = True
        return rx.call_script(fetch_api("POST", "/api/user/2fa/setup"), callback=AccountSecurityState.two_factor_issued)

    @rx.event
    def two_factor_issued(self, result: dict[str, Any]) -> EventSpec | None:
        self.totp_busy = False
        data = response_json(result)
        if not result.get("ok"):
            return rx.toast.error("Two-factor setup failed", description=error_message(result) or "Please try again.")
        self.totp_secret, self.totp_qr, self.totp_code = str(data.get("secret", "")), str(data.get("qrCodeSvg", "")), ""
        return None

    @rx.event
    def cancel_two_factor(self) -> None:
        self.totp_secret = self.totp_qr = self.totp_code = self.totp_error = ""

    def _code_or_error(self, form: dict | None) -> str | None:
        take_submitted(self, form, {"totp_code": "totp_code"})
        code = self.totp_code.strip()
        if len(code) != 6 or not code.isdigit():
            self.totp_error = "Enter the 6-digit code from your authenticator app"
            return None
        return code

    @rx.event
    def confirm_two_factor(self, form: dict | None = None) -> EventSpec | None:
        code = self._code_or_error(form)
        if code is None or self.totp_busy:
            return None
        self.totp_busy = True
        return rx.call_script(fetch_api("POST", "/api/user/2fa/confirm", {"code": code}),
                              callback=AccountSecurityState.two_factor_switched)

    @rx.event
    def disable_two_factor(self, form: dict | None = None) -> EventSpec | None:
        code = self._code_or_error(form)
        if code is None or self.totp_busy:
            return None
        self.totp_busy = True
        return rx.call_script(fetch_api("POST", "/api/user/2fa/disable", {"code": code}),
                              callback=AccountSecurityState.two_factor_switched)

    @rx.event
    def two_factor_switched(self, result: dict[str, Any]) -> EventSpec | None:
        self.totp_busy = False
        if not result.get("ok"):
            self.totp_error = error_message(result) or "Invalid two-factor code"
            return None
        self.two_factor_enabled = bool(response_json(result).get("twoFactorEnabled"))
        self.totp_secret = self.totp_qr = self.totp_code = ""
        if self.two_factor_enabled:
            return rx.toast("Two-factor authentication enabled",
                            description="Your other sessions were signed out.")
        return rx.toast("Two-factor authentication disabled", description="Your other sessions were signed out.")

    # --- sign out everywhere -----------------------------------------------------------------------------------

    @rx.event
    def sign_out_everywhere(self) -> EventSpec | None:
        if self.signing_out:
            return None
        self.signing_out = True
        return rx.call_script(fetch_api("POST", "/api/logout/all"), callback=AccountSecurityState.signed_out)

    @rx.event
    def signed_out(self, result: dict[str, Any]) -> EventSpec:
        self.signing_out = False
        if result.get("ok") or result.get("status") == 401:
            return flash_and_go("Signed out everywhere", "You have been signed out on every device.", "/login")
        return rx.toast.error("Sign out failed", description=error_message(result) or "Please try again.")
