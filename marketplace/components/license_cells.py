"""The licence key table's status and usage cells, alike in the vendor's and the admin's key lists."""

from __future__ import annotations

import reflex as rx

from marketplace.components.badges import license_status_badge
from marketplace.state.license_rows import KeyRow


def key_status_cell(row: KeyRow) -> rx.Component:
    """The key's status badge, and under it the reason a disabled key gives its buyer."""
    return rx.table.cell(rx.vstack(
        rx.box(license_status_badge(row.status, row.status_label), class_name="key-status"),
        rx.cond(row.disabled_reason != "",
                rx.text(row.disabled_reason, size="1", color_scheme="gray", max_width="14em",
                        class_name="key-disabled-reason")),
        spacing="1"))


def key_usage_cell(row: KeyRow, *, activations_width: str) -> rx.Component:
    """Activations used of the limit, and under it where the key is active."""
    return rx.table.cell(rx.vstack(
        rx.text(row.usage, size="2", white_space="nowrap", class_name="key-usage"),
        rx.cond(row.activations != "",
                rx.text(row.activations, size="1", color_scheme="gray", max_width=activations_width)),
        spacing="0"))
