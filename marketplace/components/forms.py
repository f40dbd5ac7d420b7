"""Labelled inputs with the error line under them."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.state.session import full_page_load


def field(label: str, control: rx.Component, error: Var[str] | str = "", *, field_id: str = "") -> rx.Component:
    return rx.vstack(
        rx.text(label, as_="label", size="2", weight="medium", html_for=field_id),
        control,
        rx.cond(error != "", rx.text(error, size="1", color_scheme="red", id=f"{field_id}-error")),
        spacing="1", width="100%", align="stretch",
    )


def sso_buttons() -> rx.Component:
    """Google and GitHub: full-page navigation, since the provider redirects back to /api."""
    return rx.vstack(
        rx.button("Continue with Google", variant="outline", width="100%", type="button",
                  on_click=full_page_load("/api/auth/google")),
        rx.button("Continue with GitHub", variant="outline", width="100%", type="button",
                  on_click=full_page_load("/api/auth/github")),
        spacing="2", width="100%",
    )


def or_divider() -> rx.Component:
    return rx.hstack(rx.separator(size="4"), rx.text("or", size="1", color_scheme="gray"),
                     rx.separator(size="4"), align="center", width="100%")
