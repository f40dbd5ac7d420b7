"""The License Keys tab of /admin: every key (masked), its agent, buyer, status and activations, with search,
paging (the whole key a customer quotes finds it), Disable (with the reason the buyer reads) and Enable."""

from __future__ import annotations

import reflex as rx

from marketplace.components.data_table import Column
from marketplace.components.license_cells import key_status_cell, key_usage_cell
from marketplace.pages.admin.widgets import action_buttons, reason_dialog, row_button, table_tab
from marketplace.state.admin.license_keys import DISABLE
from marketplace.state.admin.license_keys import LicenseKeysState as K
from marketplace.state.license_rows import KeyRow


def _actions(row: KeyRow) -> rx.Component:
    busy = K.busy != ""
    return action_buttons(rx.cond(
        row.disabled,
        row_button("Enable", "circle-check", K.act("enable", row.id), "enable-key", disabled=busy,
                   color_scheme="green"),
        row_button("Disable", "ban", K.ask("disable", row.id, row.key), "disable-key", disabled=busy,
                   color_scheme="red"),
    ))


def _row(row: KeyRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.code(row.key, size="2", white_space="nowrap", class_name="key-value")),
        rx.table.cell(rx.link(row.agent_name, href=f"/agents/{row.agent_id}", is_external=True, size="2",
                              class_name="key-agent")),
        rx.table.cell(rx.vstack(rx.text(row.buyer, size="2", class_name="key-buyer"),
                                rx.text(row.buyer_email, size="1", color_scheme="gray"), spacing="0")),
        key_status_cell(row),
        key_usage_cell(row, activations_width="18em"),
        rx.table.cell(rx.text(row.created, white_space="nowrap")),
        rx.table.cell(_actions(row)),
        class_name="key-row", data_id=row.id, data_buyer=row.buyer,
    )


def license_keys_tab() -> rx.Component:
    return table_tab(
        K, "licenses", "License Keys", "key-round",
        ["Key", "Agent", "Buyer", "Status", "Activations", Column("Created", "extra"), "Actions"], _row,
        min_width="900px", empty="No license keys yet", searched="No license keys match your search",
        empty_text="Every purchase gets a license key; they appear here.",
        dialogs=(reason_dialog(
            K, "disable", DISABLE,
            rx.text(rx.text(K.asking_name, weight="bold", as_="span", id="disable-key-name"), " — ", DISABLE.confirm,
                    size="2"),
            label="Reason", note="The buyer reads this reason in My Agents and in an e-mail.",
            placeholder="Why is this key disabled?", field_id="disable-key-reason", element_id="disable-key-dialog",
            confirm_id="disable-key-dialog-confirm", cancel_id="disable-key-dialog-cancel"),),
    )
