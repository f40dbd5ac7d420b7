"""Receipts on the dashboard: the Orders tab's 'Receipt' link (the printable page, which links the PDF) and the
Profile tab's receipt details (business name, billing address, tax ID), shown on later receipts."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar, Var

from marketplace.components.forms import field
from marketplace.state.dashboard import OrderRow
from marketplace.state.receipt_details import ReceiptDetailsState as R


def receipt_link(order: ObjectVar[OrderRow]) -> rx.Component:
    return rx.hstack(
        rx.link(rx.icon("file-text", size=12), "Receipt", href=order.receipt_url, is_external=True, size="1",
                class_name="order-receipt", display="inline-flex", align_items="center", gap="0.25em"),
        rx.text(order.receipt_number, size="1", color_scheme="gray", class_name="order-receipt-number"),
        spacing="2", align="center",
    )


def _value(label: str, value: Var[str], value_id: str) -> rx.Component:
    return rx.vstack(
        rx.text(label, size="1", weight="medium", color_scheme="gray"),
        rx.text(rx.cond(value != "", value, "Not set"), size="3", id=value_id, white_space="pre-line"),
        spacing="1",
    )


def _read() -> rx.Component:
    return rx.vstack(
        rx.grid(
            _value("Business name", R.business_name, "receipt-business-name"),
            _value("Tax ID", R.tax_id, "receipt-tax-id"),
            _value("Billing address", R.billing_address, "receipt-billing-address"),
            columns=rx.breakpoints(initial="1", sm="2"), spacing="4", width="100%",
        ),
        rx.button(rx.icon("pencil", size=16), "Edit", variant="outline", on_click=R.start_editing,
                  id="edit-receipt-details"),
        spacing="4", width="100%",
    )


def _input(label: str, name: str, value: Var[str], error: Var[str], control: type = rx.input,
           **props: object) -> rx.Component:
    field_id = f"receipt-{name.replace('_', '-')}-input"
    return field(
        label,
        control(id=field_id, name=name, value=value, on_change=R.set_field(f"form_{name}"), **props),
        error,
        field_id=field_id,
    )


def _edit() -> rx.Component:
    return rx.form(
        rx.vstack(
            _input("Business name", "business_name", R.form_business_name, R.business_name_error, size="3",
                   auto_complete="organization"),
            _input("Billing address", "billing_address", R.form_billing_address, R.billing_address_error,
                   control=rx.text_area,
                   rows="3"),
            _input("Tax ID", "tax_id", R.form_tax_id, R.tax_id_error, size="3", placeholder="e.g. DE123456789"),
            rx.hstack(
                rx.button(rx.cond(R.saving, "Saving...", "Save"), type="submit", id="save-receipt-details",
                          disabled=R.saving | ~R.changed),
                rx.button("Cancel", type="button", variant="soft", color_scheme="gray", on_click=R.cancel_editing,
                          id="cancel-receipt-details"),
                spacing="2",
            ),
            spacing="4", width="100%",
        ),
        on_submit=R.save, no_validate=True, width="100%",
    )


def receipt_details_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Receipt Details", size="4", as_="h2"),
            rx.text("Optional. Receipts of your next orders show them, for your business's records.", size="2",
                    color_scheme="gray"),
            rx.cond(R.editing, _edit(), _read()),
            spacing="4", width="100%",
        ),
        width="100%", id="receipt-details-card", on_mount=R.load,
    )
