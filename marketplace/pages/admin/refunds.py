"""The Refunds tab of /admin: refunds by status (Requested, Refunded, Rejected, All); a request (a customer's
third refund within 90 days) has Approve, which asks first with the amount and the customer, and Reject, which
asks for the reason the customer reads."""

from __future__ import annotations

import reflex as rx

from marketplace.pages.admin.widgets import action_buttons, reason_dialog, row_button, table_tab
from marketplace.state.admin.refunds import APPROVE, FILTERS, REJECT, STATUS_LABELS, RefundView
from marketplace.state.admin.refunds import RefundsState as R

STATUS_COLORS = {"requested": "amber", "pending": "blue", "succeeded": "green", "failed": "red", "rejected": "gray"}
REJECT_NOTE = "The customer reads this reason in a notification and an e-mail."


def _actions(refund: RefundView) -> rx.Component:
    busy = R.busy != ""
    return rx.cond(
        refund.status == "requested",
        action_buttons(
            row_button("Approve", "check", R.ask("approve", refund.id, refund.customer), "approve-refund",
                       disabled=busy, color_scheme="green"),
            row_button("Reject", "x", R.ask("reject", refund.id, refund.customer), "reject-refund", disabled=busy,
                       color_scheme="red"),
        ),
        rx.text("—", color_scheme="gray"),
    )


def _row(refund: RefundView) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.vstack(
            rx.link(refund.agent_name, href=f"/agents/{refund.agent_id}", is_external=True, size="2",
                    weight="bold", class_name="refund-agent"),
            rx.text(f"Order #{refund.order_number}", size="1", color_scheme="gray"),
            spacing="0",
        )),
        rx.table.cell(rx.text(refund.customer, size="2", class_name="refund-customer")),
        rx.table.cell(rx.text(refund.amount, weight="bold", size="2", white_space="nowrap",
                              class_name="refund-amount")),
        rx.table.cell(rx.vstack(
            rx.text(refund.reason, size="2", class_name="refund-reason"),
            rx.cond(refund.decision != "",
                    rx.text(refund.decision, size="1", color_scheme="gray", class_name="refund-decision")),
            rx.text(refund.source, size="1", color_scheme="gray"),
            spacing="0", max_width="24em",
        )),
        rx.table.cell(rx.match(refund.status,
                               *[(status, rx.badge(label, color_scheme=STATUS_COLORS[status]))
                                 for status, label in STATUS_LABELS.items()],
                               rx.badge(refund.status_label)), class_name="refund-status"),
        rx.table.cell(rx.text(refund.date, white_space="nowrap")),
        rx.table.cell(_actions(refund)),
        class_name="refund-row", data_id=refund.id,
    )


def _status_filter() -> rx.Component:
    """Segments from the sm breakpoint up; on phones, where the four ran past the card's edge, a select."""
    return rx.fragment(
        rx.segmented_control.root(
            *[rx.segmented_control.item(label, value=status) for status, label in FILTERS.items()],
            value=R.status, on_change=R.set_status, size="1", id="refunds-status",
            display=rx.breakpoints(initial="none", sm="inline-grid"),
        ),
        rx.box(
            rx.select.root(
                rx.select.trigger(width="100%", id="refunds-status-select", aria_label="Show refunds"),
                rx.select.content(*[rx.select.item(label, value=status) for status, label in FILTERS.items()],
                                  position="popper"),
                value=R.status, on_change=R.set_status, size="2",
            ),
            display=rx.breakpoints(initial="block", sm="none"), width="100%",
        ),
    )


def _approve_dialog() -> rx.Component:
    """Approve sends money back: it says how much and to whom, and waits for a yes."""
    busy = R.busy != ""
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(APPROVE.title),
            rx.alert_dialog.description(rx.text(
                "Refund ", rx.text(R.asking_amount, weight="bold", as_="span", id="approve-refund-amount"),
                " to ", rx.text(R.asking_name, weight="bold", as_="span", id="approve-refund-customer"), "? ",
                APPROVE.confirm, size="2")),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray", disabled=busy,
                                                 id="cancel-approve-refund")),
                rx.button(rx.cond(busy, rx.spinner(size="1"), rx.icon("check", size=14)),
                          rx.text("Refund ", R.asking_amount, as_="span"), color_scheme="green", on_click=R.answer,
                          disabled=busy, id="confirm-approve-refund"),
                justify="end", spacing="2", margin_top="1em", wrap="wrap",
            ),
            max_width="460px", id="approve-refund-dialog",
        ),
        open=R.asking == "approve", on_open_change=R.set_asking_open,
    )


def refunds_tab() -> rx.Component:
    reject = reason_dialog(
        R, "reject", REJECT,
        rx.text("You are rejecting the refund request of ",
                rx.text(R.asking_name, weight="bold", as_="span", id="reject-refund-customer"),
                ". They keep the agent and are not charged anything more.", size="2"),
        label="Reason", note=REJECT_NOTE, placeholder="Why is this refund declined?", field_id="refund-reject-reason",
        element_id="reject-refund-dialog", confirm_id="confirm-reject-refund", cancel_id="cancel-reject-refund")
    return table_tab(R, "refunds", "Refunds", "undo-2",
                     ["Agent", "Customer", "Amount", "Reason", "Status", "Requested", "Actions"], _row,
                     min_width="860px", empty=R.empty_title,
                     empty_text="Refund requests that need an admin, and every refund made, appear here.",
                     filters=_status_filter(), dialogs=(reject, _approve_dialog()))
