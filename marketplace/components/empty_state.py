"""The card shown where a list has nothing yet: what is missing and, when there is one, the way to add it."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var


def empty_state(icon: str, title: str | Var[str], text: str | Var[str] = "", action: rx.Component | None = None, *,
                element_id: str) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.icon(icon, size=40, color="var(--gray-8)"),
            rx.heading(title, size="4", align="center", as_="h2"),
            *([rx.text(text, color_scheme="gray", size="2", align="center")] if isinstance(text, Var) or text else []),
            *([action] if action is not None else []),
            align="center", spacing="3", padding_y="2.5em",
        ),
        width="100%", id=element_id,
    )
