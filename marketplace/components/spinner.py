"""Loading indicators: the whole-page spinner, a section spinner and skeleton blocks."""

from __future__ import annotations

import reflex as rx


def page_spinner() -> rx.Component:
    """Until the session is known; e2e tests wait for `#page-loading` to go."""
    return rx.center(rx.spinner(size="3"), min_height="60vh", id="page-loading")


def section_spinner(element_id: str) -> rx.Component:
    return rx.center(rx.spinner(size="3"), padding_y="4em", id=element_id)


def skeleton_block(height: str = "1em", width: str = "100%") -> rx.Component:
    return rx.skeleton(rx.box(height=height, width=width), loading=True)


def loading_frame() -> rx.Component:
    """The page frame before the app runs: the HTML of an address with no prerendered page (an agent's page, whose
    route has a parameter) shows this instead of a blank page until its code has loaded. Static: no state yet."""
    return rx.box(
        rx.box(
            rx.hstack(
                rx.text("🤖", size="6", aria_hidden="true"),
                rx.heading(rx.el.span("AgentMarket"), size=rx.breakpoints(initial="4", sm="5"), as_child=True),
                align="center", spacing="2", max_width="1200px", margin_x="auto",
                padding_x=rx.breakpoints(initial="0.75em", sm="1.5em"), height="64px",
            ),
            border_bottom="1px solid var(--gray-a5)", background="var(--color-background)",
        ),
        rx.center(rx.spinner(size="3"), min_height="60vh", id="app-loading"),
        min_height="100vh",
    )
