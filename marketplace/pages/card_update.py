"""/dashboard/billing/{subscriptionId}: update the card of a subscription with the Stripe Payment Element."""

from __future__ import annotations

import reflex as rx

from marketplace.components.layout import container, notice_card, page_frame
from marketplace.components.links import button_link
from marketplace.components.stripe_payment import payment_element
from marketplace.state.card_update import CardUpdateState


def _form() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Update your card", size="6", id="card-update-title", as_="h1"),
            rx.text(f"Subscription: {CardUpdateState.agent_name}", size="3", weight="medium",
                    id="card-update-agent"),
            rx.cond(
                CardUpdateState.past_due,
                rx.callout("Your last payment failed. Enter a new card: we charge it for the open payment and "
                           "for the next renewals.", icon="triangle-alert", color_scheme="red", size="1",
                           id="card-update-past-due"),
                rx.text("The new card is used for the next renewals.", size="2", color_scheme="gray"),
            ),
            payment_element(CardUpdateState, setup=True, return_url="/dashboard",
                            button_label=rx.cond(CardUpdateState.saving, "Saving...", "Save card"),
                            disabled=CardUpdateState.saving, error_message=CardUpdateState.card_error,
                            on_load_error=CardUpdateState.payment_failed),
            rx.link("Back to dashboard", href="/dashboard", size="2"),
            spacing="4", width="100%",
        ),
        width="100%", max_width="36em",
    )


def card_update_page() -> rx.Component:
    return page_frame(
        container(
            rx.cond(
                CardUpdateState.loading,
                rx.center(rx.spinner(size="3"), padding_y="4em", width="100%"),
                rx.cond(
                    CardUpdateState.failed,
                    notice_card("credit-card", "Card update unavailable", CardUpdateState.error_message,
                                button_link("Back to dashboard", href="/dashboard"),
                                card_id="card-update-failed"),
                    rx.center(_form(), width="100%"),
                ),
            ),
            id="card-update",
        )
    )
