"""The agent's picture over the robot placeholder: one look on cards, detail, checkout, dashboards and admin.

States pass only addresses that services/images.py allows (http(s) or the app's own pictures), else "". The
box has a fixed size whatever the picture does, so nothing moves when it loads; the placeholder lies beneath,
so it shows while a lazy picture loads and when one fails (the picture then hides itself). Vendor pictures are
fetched without a Referer, so a vendor's server does not learn which page a customer is looking at.
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import Var

# Client-side only: a failed picture must not cost a round trip to the server.
HIDE_ON_ERROR: Var[Any] = Var("((event) => { event.currentTarget.style.visibility = 'hidden'; })")


def agent_image(image_url: Var[str] | str, *, width: str = "100%", height: str = "140px", emoji_size: str = "3.5em",
                alt: Var[str] | str = "") -> rx.Component:
    return rx.box(
        rx.center(rx.text("🤖", font_size=emoji_size), position="absolute", inset="0",
                  class_name="image-placeholder", aria_hidden="true"),
        rx.cond(
            image_url != "",
            rx.el.img(src=image_url, alt=alt, loading="lazy", decoding="async", referrer_policy="no-referrer",
                      position="absolute", inset="0", width="100%", height="100%", object_fit="cover",
                      class_name="agent-image",
                      # Intrinsic size (the demo pictures' 16:10) for the browser's layout before it loads.
                      custom_attrs={"width": "320", "height": "200", "onError": HIDE_ON_ERROR}),
        ),
        position="relative", width=width, height=height, flex_shrink="0", overflow="hidden",
        background="linear-gradient(135deg, var(--accent-a3), var(--accent-a5))", border_radius="var(--radius-3)",
    )
