"""Labelled inputs with the error line under them."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.links import button_link


def field(label: str | Var[str], control: rx.Component, error: Var[str] | str = "", *,
          field_id: str = "") -> rx.Component:
    """The control is marked invalid and described by its error while there is one; the error names the field it
    belongs to (`data-error-for`), so that a refused submit can move the focus there (state/forms.py)."""
    if isinstance(error, Var):
        control.custom_attrs["aria-invalid"] = rx.cond(error != "", "true", None)
        control.custom_attrs["aria-describedby"] = rx.cond(error != "", f"{field_id}-error", None)
    return rx.vstack(
        rx.text(label, as_="label", size="2", weight="medium", html_for=field_id),
        control,
        rx.cond(error != "", rx.text(error, size="1", color_scheme="red", id=f"{field_id}-error",
                                     class_name="field-error", data_error_for=field_id)),
        spacing="1", width="100%", align="stretch",
    )


def sso_buttons(next_query: Var[str] | str = "") -> rx.Component:
    """Google and GitHub: full-page navigation, since the provider redirects back to /api. `next_query`
    ('?next=/checkout/..') carries the page to come back to through the provider."""
    return rx.vstack(
        button_link("Continue with Google", href=f"/api/auth/google{next_query}", variant="outline", width="100%",
                    id="sign-in-google"),
        button_link("Continue with GitHub", href=f"/api/auth/github{next_query}", variant="outline", width="100%",
                    id="sign-in-github"),
        spacing="2", width="100%",
    )


def or_divider() -> rx.Component:
    return rx.hstack(rx.separator(size="4"), rx.text("or", size="1", color_scheme="gray"),
                     rx.separator(size="4"), align="center", width="100%")
