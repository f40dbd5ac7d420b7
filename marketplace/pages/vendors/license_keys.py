"""The License keys dialog of the vendor's agent list: one agent's keys (masked but for the last five
characters), buyer, status and activations, with Disable / Enable; its loading, empty and error states."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.data_table import Column, table
from marketplace.components.empty_state import empty_state
from marketplace.components.license_cells import key_status_cell, key_usage_cell
from marketplace.components.pager import pager
from marketplace.components.spinner import skeleton_block
from marketplace.state.license_rows import KeyRow
from marketplace.state.vendors.license_keys import VendorKeysState as K


def keys_button(agent_id: Var[str] | str, agent_name: Var[str] | str) -> rx.Component:
    """On each agent of the vendor's list."""
    return rx.button(rx.icon("key-round", size=14), "License keys", size="1", variant="soft", color_scheme="gray",
                     on_click=K.open_for(agent_id, agent_name), class_name="agent-keys", flex_shrink="0")


def _busy_icon(row: KeyRow, icon: str) -> rx.Component:
    return rx.cond(K.busy == row.id, rx.spinner(size="1"), rx.icon(icon, size=14))


def _action(row: KeyRow) -> rx.Component:
    busy = K.busy != ""
    return rx.cond(
        row.disabled,
        rx.button(_busy_icon(row, "circle-check"), "Enable", size="1", variant="soft", color_scheme="green",
                  on_click=K.set_disabled(row.id, False), disabled=busy, class_name="enable-key"),
        rx.button(rx.icon("ban", size=14), "Disable", size="1", variant="soft", color_scheme="red",
                  on_click=K.ask_disable(row.id, row.key), disabled=busy, class_name="disable-key"),
    )


def _row(row: KeyRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.code(row.key, size="2", white_space="nowrap", class_name="key-value")),
        rx.table.cell(rx.text(row.buyer, size="2", class_name="key-buyer")),
        key_status_cell(row),
        key_usage_cell(row, activations_width="16em"),
        rx.table.cell(rx.text(row.created, white_space="nowrap")),
        rx.table.cell(_action(row)),
        class_name="key-row", data_id=row.id, data_buyer=row.buyer,
    )


def _error() -> rx.Component:
    return rx.callout.root(
        rx.callout.icon(rx.icon("triangle-alert", size=16)),
        rx.callout.text(K.error),
        rx.button("Try again", size="1", variant="soft", on_click=K.retry, id="vendor-keys-retry"),
        color_scheme="red", id="vendor-keys-error",
    )


def _reason_form() -> rx.Component:
    """Disable's question: the reason the buyer reads in My Agents and in an e-mail."""
    busy = K.busy != ""
    return rx.form(
        rx.vstack(
            rx.text("Disable key ", rx.code(K.asking_key, size="2", id="vendor-disable-key-name"),
                    "? The buyer's agent stops validating it until you enable it again.", size="2"),
            rx.text("Reason", as_="label", html_for="vendor-disable-reason", size="2", weight="medium"),
            rx.text_area(id="vendor-disable-reason", name="reason", rows="3", value=K.reason,
                         on_change=K.set_reason, placeholder="Why is this key disabled?", width="100%",
                         max_length=500),
            rx.text("The buyer reads this reason in My Agents and in an e-mail.", size="1", color_scheme="gray"),
            rx.flex(
                rx.button("Cancel", type="button", variant="soft", color_scheme="gray", on_click=K.cancel_disable,
                          disabled=busy, id="vendor-disable-cancel"),
                rx.button(rx.cond(busy, rx.spinner(size="1"), rx.icon("ban", size=14)), "Disable", type="submit",
                          color_scheme="red", disabled=busy, id="vendor-disable-confirm"),
                spacing="2", justify="end", width="100%", wrap="wrap",
            ),
            spacing="2", width="100%",
        ),
        on_submit=K.confirm_disable, reset_on_submit=False, width="100%", id="vendor-disable-form",
        padding="var(--space-3)", border="1px solid var(--red-a6)", border_radius="var(--radius-3)",
    )


def _body() -> rx.Component:
    keys = rx.vstack(
        rx.cond(K.asking != "", _reason_form()),
        table(["Key", "Buyer", "Status", "Activations", Column("Purchased", "extra"), "Actions"], K.rows, _row,
              min_width="720px", element_id="vendor-keys-table", size="1"),
        pager(K, "vendor-keys"),
        spacing="3", width="100%",
    )
    return rx.cond(
        K.loading,
        rx.vstack(*[skeleton_block("2.2em") for _ in range(3)], width="100%", spacing="2", id="vendor-keys-loading"),
        rx.cond(K.error != "", _error(),
                rx.cond(K.total == 0,
                        empty_state("key-round", "No license keys yet",
                                    "Each purchase of this agent gets a license key; it appears here.",
                                    element_id="vendor-keys-empty"),
                        keys)),
    )


def keys_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(rx.text("License keys · ", rx.text(K.agent_name, as_="span", id="vendor-keys-agent"))),
            rx.dialog.description("Keys are masked but for their last 5 characters. A disabled key stops working "
                                  "in the buyer's agent until you enable it again.", size="2", color_scheme="gray"),
            rx.box(_body(), max_height="70vh", overflow_y="auto", margin_top="1em", min_width="0"),
            rx.hstack(rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray",
                                                id="vendor-keys-close")),
                      justify="end", margin_top="1em"),
            max_width="860px", id="vendor-keys-dialog",
        ),
        open=K.is_open, on_open_change=K.set_is_open,
    )
