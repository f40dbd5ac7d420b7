"""The card shown for any unknown route."""

from __future__ import annotations

import reflex as rx

from marketplace.components.layout import page_frame


def not_found_card() -> rx.Component:
    """Also shown by routes that exist only in some configurations (e.g. /demo-setup outside demo mode)."""
    return rx.center(
        rx.card(
            rx.vstack(
                rx.hstack(rx.icon("circle-alert", color="var(--red-9)", size=28),
                          rx.heading("404 Page Not Found", size="6", as_="h1"), align="center"),
                rx.text("Did you forget to add the page to the router?", color_scheme="gray"),
                rx.link("Go home", href="/"),
                spacing="3",
            ),
            size="3", max_width="480px", width="100%", id="not-found",
        ),
        padding_y="5em", padding_x="1em",
    )


def not_found_page() -> rx.Component:
    return page_frame(not_found_card())
