"""/forgot-password, /reset-password, /verify-email and /set-password: the pages behind the e-mailed links."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field
from marketplace.components.layout import page_frame
from marketplace.components.links import button_link
from marketplace.pages.login import auth_card
from marketplace.state.account_recovery import (
    ForgotPasswordState,
    GuestPasswordState,
    PasswordLinkForm,
    ResetPasswordState,
    VerifyEmailState,
)
from marketplace.state.session import SessionState


def forgot_password_page() -> rx.Component:
    form = rx.form(
        rx.vstack(
            field("Email",
                  rx.input(id="forgot-email", name="email", type="email", value=ForgotPasswordState.email,
                           on_change=ForgotPasswordState.set_field("email"), placeholder="you@example.com",
                           auto_complete="email", size="3"),
                  ForgotPasswordState.errors.get("email", ""), field_id="forgot-email"),
            rx.button(rx.cond(ForgotPasswordState.submitting, "Sending...", "Send Reset Link"), type="submit",
                      size="3", width="100%", disabled=ForgotPasswordState.submitting, id="send-reset-link"),
            spacing="3", width="100%",
        ),
        on_submit=ForgotPasswordState.submit, width="100%", no_validate=True,
    )
    sent = rx.callout(ForgotPasswordState.sent_message, icon="mail-check", color_scheme="green", id="reset-sent")
    return page_frame(
        auth_card(
            "Forgot your password?",
            "Enter the e-mail address of your account and we will send you a link to choose a new password.",
            rx.cond(ForgotPasswordState.sent_message != "", sent, form),
            rx.link("Back to Sign In", href="/login", size="2", id="back-to-login"),
        )
    )


def _password_input(state: type[PasswordLinkForm], name: str, label: str, prefix: str) -> rx.Component:
    field_id = f"{prefix}-{name.replace('_', '-')}"
    return field(label,
                 rx.input(id=field_id, name=name, type="password", value=getattr(state, name),
                          on_change=state.set_field(name), auto_complete="new-password", size="3"),
                 state.errors.get(name, ""), field_id=field_id)


def _password_link_card(state: type[PasswordLinkForm], *, prefix: str, title: str, intro: str, button: str,
                        button_id: str, footer: rx.Component) -> rx.Component:
    """The link is checked first; then the new password twice (reset and a guest buyer's first password)."""
    form = rx.form(
        rx.vstack(
            _password_input(state, "password", "New Password", prefix),
            _password_input(state, "confirm_password", "Confirm New Password", prefix),
            rx.button(rx.cond(state.submitting, "Saving...", button), type="submit", size="3", width="100%",
                      disabled=state.submitting, id=button_id),
            spacing="3", width="100%",
        ),
        on_submit=state.submit, width="100%", no_validate=True,
    )
    dead = rx.callout(state.link_message, icon="triangle-alert", color_scheme="red", id=f"{prefix}-link-invalid")
    return page_frame(
        auth_card(
            title, intro,
            rx.match(state.link_status, ("valid", form), ("invalid", dead),
                     rx.center(rx.spinner(size="3"), width="100%", id=f"{prefix}-link-checking")),
            footer,
        )
    )


def reset_password_page() -> rx.Component:
    return _password_link_card(
        ResetPasswordState, prefix="reset", title="Choose a new password",
        intro="At least 6 characters. Setting it signs you out on every device.", button="Set New Password",
        button_id="set-new-password", footer=rx.link("Request a new link", href="/forgot-password", size="2"))


def set_password_page() -> rx.Component:
    return _password_link_card(
        GuestPasswordState, prefix="guest", title="Set your password",
        intro="You bought as a guest. Choose a password (at least 6 characters) to sign in and reach your agents; "
              "this also confirms your e-mail address.",
        button="Set Password and Sign In", button_id="set-guest-password",
        footer=rx.link("Link expired? Request a new one", href="/forgot-password", size="2"))


def verify_email_page() -> rx.Component:
    result = rx.match(
        VerifyEmailState.verify_status,
        ("confirmed", rx.callout(VerifyEmailState.verify_message, icon="circle-check", color_scheme="green",
                                 id="verify-result")),
        ("failed", rx.callout(VerifyEmailState.verify_message, icon="triangle-alert", color_scheme="red",
                              id="verify-result")),
        rx.center(rx.spinner(size="3"), width="100%"),
    )
    return page_frame(
        auth_card(
            "E-mail confirmation",
            "",
            result,
            rx.cond(
                SessionState.signed_in,
                button_link("Go to your dashboard", href="/dashboard", width="100%"),
                button_link("Sign In", href="/login", width="100%"),
            ),
        )
    )
