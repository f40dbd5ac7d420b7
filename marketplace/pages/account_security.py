"""The dashboard Account tab's 'Security' card: change password, two-factor authentication, sign out everywhere."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field
from marketplace.state.account_security import AccountSecurityState as S


def _password(name: str, label: str, complete: str) -> rx.Component:
    field_id = name.replace("_", "-")
    return field(label,
                 rx.input(id=field_id, name=name, type="password", value=getattr(S, name),
                          on_change=S.set_field(name), auto_complete=complete, size="2"),
                 S.errors.get(name, ""), field_id=field_id)


def _change_password() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.heading("Change password", size="3", as_="h3"),
            rx.grid(
                _password("current_password", "Current Password", "current-password"),
                _password("new_password", "New Password", "new-password"),
                _password("confirm_new_password", "Confirm New Password", "new-password"),
                columns=rx.breakpoints(initial="1", md="3"), spacing="3", width="100%",
            ),
            rx.text("Changing it signs you out on your other devices.", size="1", color_scheme="gray"),
            rx.button(rx.cond(S.changing_password, "Changing...", "Change Password"), type="submit",
                      disabled=S.changing_password, id="change-password"),
            spacing="3", width="100%",
        ),
        on_submit=S.change_password, no_validate=True, width="100%",
    )


def _code_form(on_submit: rx.EventHandler, button: str, button_id: str, *extra: rx.Component) -> rx.Component:
    return rx.form(
        rx.hstack(
            field("Authentication code",
                  rx.input(id="security-totp-code", name="totp_code", value=S.totp_code, on_change=S.set_totp_code,
                           max_length=6, input_mode="numeric", placeholder="123456", auto_complete="one-time-code",
                           size="2"),
                  S.totp_error, field_id="security-totp-code"),
            rx.button(rx.cond(S.totp_busy, "Checking...", button), type="submit", disabled=S.totp_busy,
                      id=button_id),
            *extra,
            align="end", spacing="2", wrap="wrap",
        ),
        on_submit=on_submit, no_validate=True, width="100%",
    )


def _two_factor() -> rx.Component:
    enabled = rx.vstack(
        rx.badge(rx.icon("shield-check", size=12), "Enabled", color_scheme="green", id="two-factor-status"),
        rx.text("To turn it off, enter a current code from your authenticator app.", size="2", color_scheme="gray"),
        _code_form(S.disable_two_factor, "Disable", "disable-2fa"),
        spacing="2", width="100%",
    )
    enrolling = rx.vstack(
        rx.text("Scan the QR code with an authenticator app (or type the secret), then enter the code it shows.",
                size="2", color_scheme="gray"),
        rx.hstack(
            rx.image(src=S.totp_qr, width="160px", height="160px", alt="Two-factor QR code", background="white",
                     padding="6px", border_radius="8px"),
            rx.vstack(rx.text("Secret key", size="1", color_scheme="gray"),
                      rx.code(S.totp_secret, id="security-secret"), spacing="1"),
            spacing="4", align="center", wrap="wrap",
        ),
        _code_form(S.confirm_two_factor, "Turn On", "confirm-2fa",
                   rx.button("Cancel", type="button", variant="soft", color_scheme="gray",
                             on_click=S.cancel_two_factor)),
        spacing="3", width="100%",
    )
    disabled = rx.vstack(
        rx.badge("Off", color_scheme="gray", id="two-factor-status"),
        rx.button(rx.icon("shield", size=16), "Enable two-factor authentication", variant="outline",
                  on_click=S.start_two_factor, disabled=S.totp_busy, id="enable-2fa-dashboard"),
        spacing="2",
    )
    return rx.vstack(
        rx.heading("Two-factor authentication", size="3", as_="h3"),
        rx.cond(S.two_factor_enabled, enabled, rx.cond(S.totp_secret != "", enrolling, disabled)),
        spacing="2", width="100%",
    )


def _sign_out_everywhere() -> rx.Component:
    """Ends every session, this one too: asked first, as a misclick would sign the user out everywhere."""
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(
            rx.button(rx.icon("log-out", size=16), rx.cond(S.signing_out, "Signing out...",
                                                           "Sign out of all devices"),
                      color_scheme="red", variant="outline", disabled=S.signing_out, id="sign-out-everywhere"),
        ),
        rx.alert_dialog.content(
            rx.alert_dialog.title("Sign out of all devices?"),
            rx.alert_dialog.description("Every session ends, this one included: you will need to sign in again "
                                        "on each device."),
            rx.flex(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray",
                                                 id="sign-out-everywhere-cancel")),
                rx.alert_dialog.action(rx.button(rx.icon("log-out", size=14), "Sign out everywhere",
                                                 color_scheme="red", on_click=S.sign_out_everywhere,
                                                 id="sign-out-everywhere-confirm")),
                justify="end", spacing="2", margin_top="1em", wrap="wrap",
            ),
            max_width="460px", id="sign-out-everywhere-dialog",
        ),
    )


def security_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Security", size="4", as_="h2"),
            _change_password(),
            rx.separator(size="4"),
            _two_factor(),
            rx.separator(size="4"),
            rx.vstack(
                rx.heading("Sessions", size="3", as_="h3"),
                rx.text("Signed in somewhere you no longer use? End every session, this one included.", size="2",
                        color_scheme="gray"),
                _sign_out_everywhere(),
                spacing="2",
            ),
            spacing="4", width="100%",
        ),
        width="100%", id="security-card",
    )
