"""The agent's picture, or the robot placeholder when it has none: one look on cards, detail, checkout, dashboards."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var


def agent_image(image_url: Var[str], *, width: str = "100%", height: str = "140px", emoji_size: str = "3.5em",
                alt: Var[str] | str = "") -> rx.Component:
    return rx.cond(
        image_url != "",
        rx.image(src=image_url, alt=alt, width=width, height=height, object_fit="cover", flex_shrink="0",
                 border_radius="var(--radius-3)"),
        rx.center(rx.text("🤖", font_size=emoji_size), width=width, height=height, flex_shrink="0",
                  background="linear-gradient(135deg, var(--accent-a3), var(--accent-a5))",
                  border_radius="var(--radius-3)", class_name="image-placeholder"),
    )
