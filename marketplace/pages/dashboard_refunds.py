"""The Orders tab's refund pieces: 'Request refund' on a refundable order (or 'Refund requested' while an admin
reviews it), and the dialog with the 30-day money-back guarantee that asks for the reason."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from marketplace.state.dashboard import OrderRow
from marketplace.state.order_refunds import GUARANTEE_TEXT, MAX_REASON
from marketplace.state.order_refunds import OrderRefundState as R


def refund_action(order: ObjectVar[OrderRow]) -> rx.Component:
    return rx.match(
        order.refund,
        ("refundable", rx.button(rx.icon("undo-2", size=12), "Request refund", size="1", variant="soft",
                                 color_scheme="gray", on_click=R.open_refund(order.id),
                                 class_name="request-refund")),
        ("requested", rx.text("Refund requested", size="1", color_scheme="amber", class_name="refund-requested")),
        rx.fragment(),
    )


def refund_dialog() -> rx.Component:
    busy = R.refund_busy
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Request a refund"),
            rx.dialog.description(
                rx.text("Order #", R.refund_order_number, " · ", R.refund_agent_name, " · ",
                        rx.text(R.refund_total, weight="bold", as_="span"), size="2"),
            ),
            rx.callout(GUARANTEE_TEXT, icon="shield-check", size="1", color_scheme="green", margin_top="0.75em",
                       id="refund-guarantee"),
            rx.form(
                rx.vstack(
                    rx.text("Why do you want a refund?", as_="label", html_for="refund-reason", size="2",
                            weight="medium"),
                    rx.text_area(id="refund-reason", name="reason", rows="3", value=R.refund_reason,
                                 on_change=R.set_refund_reason, placeholder="Tell us what did not work for you",
                                 width="100%", max_length=MAX_REASON),
                    rx.cond(R.refund_error != "", rx.text(R.refund_error, size="1", color_scheme="red",
                                                          id="refund-reason-error")),
                    rx.flex(
                        rx.dialog.close(rx.button("Cancel", type="button", variant="soft", color_scheme="gray",
                                                  disabled=busy, id="cancel-refund")),
                        rx.button(rx.cond(busy, rx.spinner(size="2"), rx.icon("undo-2", size=16)),
                                  "Refund my order", type="submit", disabled=busy, id="confirm-refund"),
                        spacing="3", justify="end", width="100%", wrap="wrap",
                    ),
                    spacing="2", width="100%", padding_top="1em",
                ),
                on_submit=R.submit_refund, reset_on_submit=False, width="100%",
            ),
            max_width="480px", id="refund-dialog",
        ),
        open=R.refund_open, on_open_change=R.set_refund_open,
    )
