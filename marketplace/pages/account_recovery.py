"""/forgot-password, /reset-password and /verify-email: the pages behind the e-mailed links."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field
from marketplace.components.layout import page_frame
from marketplace.pages.login import auth_card
from marketplace.state.account_recovery import ForgotPasswordState, ResetPasswordState, VerifyEmailState
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


def _password_input(name: str, label: str) -> rx.Component:
    field_id = f"reset-{name.replace('_', '-')}"
    return field(label,
                 rx.input(id=field_id, name=name, type="password", value=getattr(ResetPasswordState, name),
                          on_change=ResetPasswordState.set_field(name),
                          auto_complete="new-password", size="3"),
                 ResetPasswordState.errors.get(name, ""), field_id=field_id)


def reset_password_page() -> rx.Component:
    form = rx.form(
        rx.vstack(
            _password_input("password", "New Password"),
            _password_input("confirm_password", "Confirm New Password"),
            rx.button(rx.cond(ResetPasswordState.submitting, "Saving...", "Set New Password"), type="submit",
                      size="3", width="100%", disabled=ResetPasswordState.submitting, id="set-new-password"),
            spacing="3", width="100%",
        ),
        on_submit=ResetPasswordState.submit, width="100%", no_validate=True,
    )
    dead = rx.callout(ResetPasswordState.link_message, icon="triangle-alert", color_scheme="red",
                      id="reset-link-invalid")
    return page_frame(
        auth_card(
            "Choose a new password",
            "At least 6 characters. Setting it signs you out on every device.",
            rx.match(ResetPasswordState.link_status, ("valid", form), ("invalid", dead),
                     rx.center(rx.spinner(size="3"), width="100%", id="reset-link-checking")),
            rx.link("Request a new link", href="/forgot-password", size="2"),
        )
    )


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
                rx.link(rx.button("Go to your dashboard", width="100%"), href="/dashboard", width="100%"),
                rx.link(rx.button("Sign In", width="100%"), href="/login", width="100%"),
            ),
        )
    )
