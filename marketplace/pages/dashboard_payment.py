"""The dashboard's Payment tab: saved cards (add with the Payment Element, make default, remove) and the payment
history. Loaded when the tab opens (`on_mount`: Radix mounts a tab's content only while it is shown)."""

from __future__ import annotations

import reflex as rx

from marketplace.components.spinner import section_spinner
from marketplace.components.stripe_payment import payment_element
from marketplace.state.payment_methods import CardRow, HistoryRow, PaymentTabState

RETURN_PATH = "/dashboard?tab=payment"  # where Stripe sends the browser back if a card needs a redirect


def _add_button() -> rx.Component:
    return rx.button(rx.icon("plus", size=16), rx.cond(PaymentTabState.starting, "Opening...", "Add Payment Method"),
                     variant="outline", type="button", on_click=PaymentTabState.start_adding,
                     disabled=PaymentTabState.starting, id="add-payment-method")


def _card_row(card: CardRow) -> rx.Component:
    busy = PaymentTabState.busy_card != ""
    return rx.flex(
        rx.hstack(
            rx.center(rx.icon("credit-card", size=18), width="40px", height="40px", border_radius="var(--radius-3)",
                      background="var(--accent-a3)", color="var(--accent-11)", flex_shrink="0"),
            rx.vstack(
                rx.hstack(rx.text(card.label, weight="bold", size="2", class_name="card-label"),
                          rx.cond(card.is_default,
                                  rx.badge("Default", color_scheme="green", class_name="card-default")),
                          spacing="2", align="center", wrap="wrap"),
                rx.text(card.expiry, size="1", color_scheme="gray", class_name="card-expiry"),
                spacing="0",
            ),
            spacing="3", align="center",
        ),
        rx.spacer(),
        rx.hstack(
            rx.cond(~card.is_default,
                    rx.button("Make default", size="1", variant="soft", type="button", class_name="make-default",
                              on_click=PaymentTabState.make_default(card.id), disabled=busy,
                              aria_label=f"Make {card.label} the default")),
            rx.button("Remove", size="1", variant="soft", color_scheme="red", type="button",
                      class_name="remove-card", on_click=PaymentTabState.remove_card(card.id), disabled=busy,
                      aria_label=f"Remove {card.label}"),
            spacing="2",
        ),
        align="center", gap="3", wrap="wrap", width="100%", padding_y="0.75em",
        border_bottom="1px solid var(--gray-a4)", class_name="saved-card", data_card=card.id,
    )


def _adding() -> rx.Component:
    return rx.vstack(
        rx.text("New card", weight="medium", size="3"),
        payment_element(PaymentTabState, setup=True, return_url=RETURN_PATH,
                        button_label=rx.cond(PaymentTabState.saving, "Saving...", "Save card"),
                        disabled=PaymentTabState.saving, error_message=PaymentTabState.card_error),
        rx.button("Cancel", variant="ghost", type="button", on_click=PaymentTabState.cancel_adding,
                  disabled=PaymentTabState.saving, id="cancel-add-card"),
        spacing="3", width="100%", id="add-card-form",
    )


def _cards() -> rx.Component:
    empty = rx.center(
        rx.vstack(
            rx.icon("credit-card", size=36, color="var(--gray-8)"),
            rx.text(rx.cond(PaymentTabState.cards_error != "", PaymentTabState.cards_error,
                            "No payment methods saved"), color_scheme="gray", id="cards-empty"),
            rx.cond(~PaymentTabState.adding, _add_button()),
            align="center", spacing="3",
        ),
        padding_y="1.5em", width="100%",
    )
    listed = rx.vstack(
        rx.box(rx.foreach(PaymentTabState.cards, _card_row), width="100%"),
        rx.text("The default card pays your subscriptions.", size="1", color_scheme="gray"),
        rx.cond(~PaymentTabState.adding, _add_button()),
        spacing="3", width="100%",
    )
    return rx.card(
        rx.vstack(
            rx.heading("Payment Methods", size="4", as_="h2"),
            rx.cond(PaymentTabState.has_cards, listed, empty),
            rx.cond(PaymentTabState.adding, _adding()),
            width="100%",
        ),
        width="100%", id="payment-methods",
    )


def _history_row(entry: HistoryRow) -> rx.Component:
    refund = entry.kind == "refund"
    return rx.hstack(
        rx.vstack(
            rx.text(entry.description, weight="bold", size="2"),
            rx.hstack(rx.badge(entry.label, color_scheme=rx.cond(refund, "gray", "green")),
                      rx.text(entry.day, size="1", color_scheme="gray"), spacing="2", align="center"),
            spacing="1",
        ),
        rx.spacer(),
        rx.vstack(
            rx.text(entry.amount, weight="bold", size="2", class_name="history-amount", white_space="nowrap"),
            rx.link(rx.cond(refund, "Credit note", "Receipt"), href=entry.receipt_url, is_external=True, size="1",
                    class_name="history-receipt"),
            spacing="1", align="end",
        ),
        align="center", width="100%", padding_y="0.75em", border_bottom="1px solid var(--gray-a4)",
        class_name="payment-history-row", data_kind=entry.kind,
    )


def _history() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Payment History", size="4", as_="h2"),
            rx.cond(
                PaymentTabState.has_history,
                rx.box(rx.foreach(PaymentTabState.history, _history_row), width="100%"),
                rx.center(rx.text("No payment history", color_scheme="gray"), padding_y="1.5em", width="100%"),
            ),
            width="100%",
        ),
        width="100%", id="payment-history",
    )


def payment_tab() -> rx.Component:
    return rx.box(
        rx.cond(
            PaymentTabState.payment_loading,
            section_spinner("payment-loading"),
            rx.vstack(_cards(), _history(), spacing="4", width="100%"),
        ),
        on_mount=PaymentTabState.load_payment, width="100%",
    )
