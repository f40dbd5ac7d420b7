"""The Vendors tab of /admin: search, the table (Name, Email, Status, Agents, Joined, Actions), paging, the
Vendor Details dialog with Approve Now, and the delete confirmation."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.empty_state import empty_state
from marketplace.pages.admin.widgets import (
    action_buttons,
    admin_card,
    confirm_dialog,
    detail,
    details_dialog,
    pager,
    search_box,
    table,
    table_skeleton,
)
from marketplace.state.admin.customers import PersonView
from marketplace.state.admin.vendors import VendorsState as V


def _status(approved: Var[bool]) -> rx.Component:
    return rx.cond(approved,
                   rx.badge(rx.icon("circle-check", size=12), "Approved", color_scheme="green"),
                   rx.badge(rx.icon("clock", size=12), "Pending", color_scheme="amber"))


def _row(vendor: PersonView) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(vendor.name, weight="medium", white_space="nowrap")),
        rx.table.cell(vendor.email),
        rx.table.cell(_status(vendor.approved)),
        rx.table.cell(vendor.agent_count),
        rx.table.cell(rx.text(vendor.joined, white_space="nowrap")),
        rx.table.cell(action_buttons(
            rx.button(rx.icon("eye", size=14), "View", size="1", variant="soft", on_click=V.view(vendor.id),
                      class_name="view-vendor"),
            rx.button(rx.icon("trash-2", size=14), "Delete", size="1", variant="soft", color_scheme="red",
                      on_click=V.ask_delete(vendor.id), class_name="delete-vendor"),
        )),
        class_name="vendor-row", data_username=vendor.username, data_id=vendor.id,
    )


def _details() -> rx.Component:
    v = V.viewing
    body = rx.vstack(
        detail("Name", v.name),
        detail("Email", v.email),
        detail("Username", v.username),
        detail("Approval status", rx.hstack(_status(v.approved), spacing="2")),
        detail("Agents published", rx.text(v.agent_count, size="2", id="vendor-agent-count")),
        detail("Member since", v.joined),
        spacing="3", width="100%",
    )
    approve = rx.cond(
        ~v.approved,
        rx.button(rx.cond(V.approving, rx.spinner(size="1"), rx.icon("check", size=14)), "Approve Now",
                  color_scheme="green", on_click=V.approve, disabled=V.approving, id="approve-vendor-now"),
    )
    return details_dialog("Vendor Details", body, open=V.view_open, on_open_change=V.set_view_open, footer=approve,
                          element_id="vendor-details")


def vendors_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the first page."""
    listing = rx.cond(
        V.loading, table_skeleton(),
        rx.cond(
            V.total == 0,
            empty_state("store", rx.cond(V.search != "", "No vendors match your search", "No vendors registered yet"),
                        element_id="vendors-empty"),
            rx.vstack(
                table(["Name", "Email", "Status", "Agents", "Joined", "Actions"], V.rows, _row, min_width="720px",
                      element_id="vendors-table"),
                pager(V, "vendors-pager"),
                spacing="3", width="100%",
            ),
        ),
    )
    return rx.box(
        admin_card("Vendors", listing, icon="store", element_id="vendors-card",
                   action=search_box(V, "Search vendors", "vendors-search")),
        _details(),
        confirm_dialog(open=V.confirm_id != "", title="Delete vendor",
                       text="This action cannot be undone and will remove all their agents.",
                       name=V.confirm_name, confirm_label="Delete", on_confirm=V.delete, on_cancel=V.cancel_delete,
                       busy=V.busy, element_id="delete-vendor-dialog"),
        width="100%", on_mount=V.on_open,
    )
