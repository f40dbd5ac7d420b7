"""/signup: new account, with optional two-factor enrolment (QR code + confirmation)."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field, or_divider, sso_buttons
from marketplace.components.layout import page_frame
from marketplace.components.links import button_link
from marketplace.pages.login import auth_card
from marketplace.state.accounts import SignupState
from marketplace.state.session import SessionState


def _input(name: str, label: str, *, kind: str = "text", placeholder: str = "", complete: str = "") -> rx.Component:
    return field(
        label,
        rx.input(id=name, name=name, type=kind, value=getattr(SignupState, name),
                 on_change=SignupState.set_field(name), placeholder=placeholder,
                 auto_complete=complete, size="3"),
        SignupState.errors.get(name, ""), field_id=name,
    )


def _form() -> rx.Component:
    return auth_card(
        "Create Account",
        "Join the marketplace to discover and buy AI agents",
        rx.form(
            rx.vstack(
                _input("username", "Username", placeholder="Choose a username", complete="username"),
                _input("email", "Email", kind="email", placeholder="you@example.com", complete="email"),
                _input("password", "Password", kind="password", placeholder="At least 6 characters",
                       complete="new-password"),
                _input("confirm_password", "Confirm Password", kind="password", placeholder="Repeat your password",
                       complete="new-password"),
                rx.checkbox("Enable two-factor authentication", id="enable-2fa", name="enable_2fa",
                            checked=SignupState.enable_2fa, on_change=SignupState.set_enable_2fa),
                rx.button(rx.cond(SignupState.submitting, "Creating account...", "Create Account"),
                          type="submit", size="3", width="100%", disabled=SignupState.submitting, id="create-account"),
                spacing="3", width="100%",
            ),
            on_submit=SignupState.submit, width="100%", no_validate=True,
        ),
        or_divider(),
        sso_buttons(SignupState.next_query),
        button_link("Sign In Instead", href=f"/login{SignupState.next_query}", variant="soft", width="100%",
                    id="sign-in-instead"),
    )


def _two_factor_enrolment() -> rx.Component:
    return auth_card(
        "Set up two-factor authentication",
        "Scan the QR code with an authenticator app (or type the secret), then enter the 6-digit code it shows.",
        rx.center(rx.image(src=SignupState.totp_qr, width="200px", height="200px", alt="Two-factor QR code",
                           id="totp-qr", background="white", padding="8px", border_radius="8px"), width="100%"),
        rx.vstack(
            rx.text("Secret key", size="1", color_scheme="gray"),
            rx.code(SignupState.totp_secret, id="totp-secret", size="3"),
            spacing="1", align="center", width="100%",
        ),
        rx.form(
            rx.vstack(
                field("Authentication code",
                      rx.input(id="totp_code", name="totp_code", value=SignupState.totp_code,
                               on_change=SignupState.set_totp_code, max_length=6, input_mode="numeric",
                               placeholder="123456", auto_complete="one-time-code", size="3"),
                      SignupState.errors.get("totp_code", ""), field_id="totp_code"),
                rx.button(rx.cond(SignupState.confirming, "Verifying...", "Verify and Continue"), type="submit",
                          size="3", width="100%", disabled=SignupState.confirming, id="verify-2fa"),
                spacing="3", width="100%",
            ),
            on_submit=SignupState.confirm_two_factor, width="100%", no_validate=True,
        ),
    )


def signup_page() -> rx.Component:
    return page_frame(
        rx.cond(
            SignupState.totp_secret != "",
            _two_factor_enrolment(),
            rx.cond(SessionState.signed_in, rx.center(rx.spinner(size="3"), padding="4em"), _form()),
        )
    )
