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
