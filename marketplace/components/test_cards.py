"""The test-mode note with Stripe's test cards, beside every Payment Element (checkout, a vendor's plan)."""

from __future__ import annotations

import reflex as rx

TEST_MODE_NOTE = "Test mode: no real charges will be made."
TEST_CARDS = [
    ("4242 4242 4242 4242", "Success"),
    ("4000 0000 0000 0002", "Declined"),
    ("4000 0000 0000 9995", "Insufficient funds"),
]


def test_mode_note() -> rx.Component:
    return rx.callout.root(
        rx.callout.icon(rx.icon("flask-conical")),
        rx.vstack(
            rx.text(TEST_MODE_NOTE, weight="bold", size="2"),
            rx.text("Use these test card numbers:", size="2"),
            # A number and its outcome per row; a number never breaks, the outcome wraps in its own column.
            rx.grid(
                *[
                    part
                    for number, outcome in TEST_CARDS
                    for part in (rx.code(number, size="2", white_space="nowrap", class_name="test-card-number",
                                         high_contrast=True),
                                 rx.text(outcome, size="2"))
                ],
                grid_template_columns="max-content minmax(0, 1fr)", align_items="center", spacing_x="2",
                spacing_y="1", width="100%",
            ),
            rx.text("Any future expiry date and any CVC.", size="2"),
            spacing="1",
        ),
        # High contrast: amber's step 11 on its surface is 4.43:1, under WCAG AA's 4.5:1.
        color_scheme="amber", variant="surface", high_contrast=True, width="100%", id="test-mode-note",
    )
