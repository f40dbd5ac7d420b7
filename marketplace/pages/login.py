"""/login: username or e-mail, password, optional two-factor code, single sign-on."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field, or_divider, sso_buttons
from marketplace.components.layout import page_frame
from marketplace.components.links import button_link
from marketplace.state.accounts import LoginState


def auth_card(title: str, subtitle: str, *children: rx.Component) -> rx.Component:
    return rx.center(
        rx.card(
            rx.vstack(
                rx.heading(title, size="6", as_="h1"),
                rx.text(subtitle, color_scheme="gray", size="2"),
                *children,
                spacing="4", width="100%",
            ),
            width="100%", max_width="420px", size="3",
        ),
        padding_y="3em", padding_x="1em",
    )


def login_page() -> rx.Component:
    return page_frame(
        auth_card(
            "Sign In",
            "Welcome back to the AI agent marketplace",
            rx.form(
                rx.vstack(
                    field("Username or Email",
                          rx.input(id="username", name="username", value=LoginState.username,
                                   on_change=LoginState.set_field("username"),
                                   placeholder="Enter your username or email", auto_complete="username", size="3"),
                          LoginState.errors.get("username", ""), field_id="username"),
                    field("Password",
                          rx.input(id="password", name="password", type="password", value=LoginState.password,
                                   on_change=LoginState.set_field("password"), placeholder="Enter your password",
                                   auto_complete="current-password", size="3"),
                          LoginState.errors.get("password", ""), field_id="password"),
                    rx.link("Forgot password?", href="/forgot-password", size="2", id="forgot-password",
                            align_self="end"),
                    rx.checkbox("Enable two-factor authentication", id="enable-2fa", name="enable_2fa",
                                checked=LoginState.enable_2fa, on_change=LoginState.set_enable_2fa),
                    rx.cond(
                        LoginState.enable_2fa,
                        field("Two-factor code",
                              rx.input(id="two-factor-code", name="two_factor_code", value=LoginState.two_factor_code,
                                       on_change=LoginState.set_two_factor_code, max_length=6,
                                       placeholder="6-digit code", input_mode="numeric",
                                       auto_complete="one-time-code", size="3"),
                              field_id="two-factor-code"),
                    ),
                    rx.button(rx.cond(LoginState.submitting, "Signing in...", "Sign In"), type="submit",
                              size="3", width="100%", disabled=LoginState.submitting, id="sign-in"),
                    spacing="3", width="100%",
                ),
                on_submit=LoginState.submit, width="100%", no_validate=True,
            ),
            or_divider(),
            sso_buttons(LoginState.next_query),
            button_link("Create New Account", href=f"/signup{LoginState.next_query}", variant="soft", width="100%",
                        id="create-new-account"),
        )
    )
