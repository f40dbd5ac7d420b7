"""The Customers and Vendors tabs of /admin: search, the tables, paging, the details dialogs (Vendors: Approve
Now) and the delete confirmations."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar, Var

from marketplace.components.badges import role_badge
from marketplace.components.data_table import Column
from marketplace.pages.admin.widgets import (
    action_buttons,
    confirm_dialog,
    detail,
    details_dialog,
    row_button,
    table_tab,
)
from marketplace.state.admin.customers import DELETE_USER, DELETE_VENDOR, PersonView
from marketplace.state.admin.customers import CustomersState as C
from marketplace.state.admin.customers import VendorsState as V


def _actions(state: type[C] | type[V], person: ObjectVar[PersonView], kind: str) -> rx.Component:
    return action_buttons(
        row_button("View", "eye", state.view(person.id), f"view-{kind}"),
        row_button("Delete", "trash-2", state.ask("delete", person.id, person.name), f"delete-{kind}",
                   color_scheme="red"),
    )


def _customer(person: ObjectVar[PersonView]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(person.name, weight="medium", white_space="nowrap")),
        rx.table.cell(person.email),
        rx.table.cell(person.username),
        rx.table.cell(role_badge(person.role)),
        rx.table.cell(rx.text(person.joined, white_space="nowrap")),
        rx.table.cell(_actions(C, person, "customer")),
        class_name="customer-row", data_username=person.username, data_id=person.id,
    )


def _customer_details() -> rx.Component:
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
    return details_dialog("Customer Details", body, open=C.details_open, on_open_change=C.set_details_open,
                          element_id="customer-details")


def customers_tab() -> rx.Component:
    return table_tab(
        C, "customers", "Customers", "users",
        ["Name", "Email", Column("Username", "extra"), "Role", "Joined", "Actions"], _customer,
        min_width="760px", empty="No customers registered yet", searched="No customers match your search",
        dialogs=(_customer_details(), confirm_dialog(C, "delete", DELETE_USER, element_id="delete-customer-dialog")),
    )


def _vendor_status(approved: Var[bool]) -> rx.Component:
    return rx.cond(approved,
                   rx.badge(rx.icon("circle-check", size=12), "Approved", color_scheme="green"),
                   rx.badge(rx.icon("clock", size=12), "Pending", color_scheme="amber"))


def _vendor(vendor: ObjectVar[PersonView]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(vendor.name, weight="medium", white_space="nowrap")),
        rx.table.cell(vendor.email),
        rx.table.cell(_vendor_status(vendor.approved)),
        rx.table.cell(rx.badge(vendor.plan, color_scheme="violet", variant="soft"), class_name="vendor-plan"),
        rx.table.cell(vendor.agent_count),
        rx.table.cell(rx.text(vendor.joined, white_space="nowrap")),
        rx.table.cell(_actions(V, vendor, "vendor")),
        class_name="vendor-row", data_username=vendor.username, data_id=vendor.id,
    )


def _vendor_details() -> rx.Component:
    v = V.viewing
    body = rx.vstack(
        detail("Name", v.name),
        detail("Email", v.email),
        detail("Username", v.username),
        detail("Approval status", rx.hstack(_vendor_status(v.approved), spacing="2")),
        detail("Plan", rx.text(v.plan, size="2", id="vendor-plan")),
        detail("Agents published", rx.text(v.published_count, size="2", id="vendor-agent-count")),
        detail("Member since", v.joined),
        spacing="3", width="100%",
    )
    approve = rx.cond(
        ~v.approved,
        rx.button(rx.cond(V.busy != "", rx.spinner(size="1"), rx.icon("check", size=14)), "Approve Now",
                  color_scheme="green", on_click=V.act("approve", v.id), disabled=V.busy != "",
                  id="approve-vendor-now"),
    )
    return details_dialog("Vendor Details", body, open=V.details_open, on_open_change=V.set_details_open,
                          footer=approve, element_id="vendor-details")


def vendors_tab() -> rx.Component:
    return table_tab(
        V, "vendors", "Vendors", "store", ["Name", "Email", "Status", "Plan", "Agents", "Joined", "Actions"],
        _vendor, min_width="800px", empty="No vendors registered yet", searched="No vendors match your search",
        dialogs=(_vendor_details(), confirm_dialog(V, "delete", DELETE_VENDOR, element_id="delete-vendor-dialog")),
    )
