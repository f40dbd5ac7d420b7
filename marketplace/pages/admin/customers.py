"""The Customers tab of /admin: search, the table (Name, Email, Username, Role, Joined, Actions), paging, the
Customer Details dialog and the delete confirmation."""

from __future__ import annotations

import reflex as rx

from marketplace.components.badges import role_badge
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
from marketplace.state.admin.customers import CustomersState as C
from marketplace.state.admin.customers import PersonView


def _row(person: PersonView) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(person.name, weight="medium", white_space="nowrap")),
        rx.table.cell(person.email),
        rx.table.cell(person.username),
        rx.table.cell(role_badge(person.role)),
        rx.table.cell(rx.text(person.joined, white_space="nowrap")),
        rx.table.cell(action_buttons(
            rx.button(rx.icon("eye", size=14), "View", size="1", variant="soft", on_click=C.view(person.id),
                      class_name="view-customer"),
            rx.button(rx.icon("trash-2", size=14), "Delete", size="1", variant="soft", color_scheme="red",
                      on_click=C.ask_delete(person.id), class_name="delete-customer"),
        )),
        class_name="customer-row", data_username=person.username, data_id=person.id,
    )


def _details() -> rx.Component:
    p = C.viewing
    body = rx.vstack(
        rx.cond(p.image_url != "", rx.avatar(src=p.image_url, fallback=p.name[:1], size="6", radius="full")),
        detail("Full name", p.name),
        detail("Email", p.email),
        detail("Username", p.username),
        detail("Role", role_badge(p.role)),
        detail("Member since", p.joined),
        spacing="3", width="100%",
    )
    return details_dialog("Customer Details", body, open=C.view_open, on_open_change=C.set_view_open,
                          element_id="customer-details")


def customers_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the first page."""
    listing = rx.cond(
        C.loading, table_skeleton(),
        rx.cond(
            C.total == 0,
            empty_state("users", rx.cond(C.search != "", "No customers match your search",
                                         "No customers registered yet"), element_id="customers-empty"),
            rx.vstack(
                table(["Name", "Email", "Username", "Role", "Joined", "Actions"], C.rows, _row, min_width="760px",
                      element_id="customers-table"),
                pager(C, "customers-pager"),
                spacing="3", width="100%",
            ),
        ),
    )
    return rx.box(
        admin_card("Customers", listing, icon="users", element_id="customers-card",
                   action=search_box(C, "Search customers", "customers-search")),
        _details(),
        confirm_dialog(open=C.confirm_id != "", title="Delete customer",
                       text="Are you sure you want to delete this customer? This action cannot be undone.",
                       name=C.confirm_name, confirm_label="Delete", on_confirm=C.delete, on_cancel=C.cancel_delete,
                       busy=C.busy, element_id="delete-customer-dialog"),
        width="100%", on_mount=C.on_open,
    )
