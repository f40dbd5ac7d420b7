"""The pager under a list read a page at a time (state/paging.py): 'Showing 1-20 of 45', Previous and Next."""

from __future__ import annotations

from typing import Any

import reflex as rx


def pager(state: Any, element_id: str) -> rx.Component:
    """`state` is a `Paged` state with `loading`; the parts' ids are `element_id` followed by -range, -previous
    and -next."""
    return rx.hstack(
        rx.text(state.range_text, size="2", color_scheme="gray", id=f"{element_id}-range"),
        rx.spacer(),
        rx.button(rx.icon("chevron-left", size=14), "Previous", size="1", variant="soft",
                  disabled=~state.has_previous | state.loading, on_click=state.previous_page,
                  id=f"{element_id}-previous"),
        rx.button("Next", rx.icon("chevron-right", size=14), size="1", variant="soft",
                  disabled=~state.has_next | state.loading, on_click=state.next_page, id=f"{element_id}-next"),
        width="100%", align="center", spacing="2", wrap="wrap", id=element_id,
    )
