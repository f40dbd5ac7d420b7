"""The dashboard's Profile tab: read view and edit form (a new e-mail needs the current password)."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.forms import field
from marketplace.pages.dashboard_receipts import receipt_details_card
from marketplace.state.dashboard import DashboardState
from marketplace.state.session import SessionState


def read_value(label: str, value: Var[str], value_id: str) -> rx.Component:
    return rx.vstack(
        rx.text(label, size="1", weight="medium", color_scheme="gray"),
        rx.text(rx.cond(value != "", value, "Not set"), size="3", id=value_id),
        spacing="1",
    )


def _profile_read() -> rx.Component:
    return rx.vstack(
        rx.grid(
            read_value("First Name", SessionState.first_name, "profile-first-name"),
            read_value("Last Name", SessionState.last_name, "profile-last-name"),
            rx.vstack(
                read_value("Email", SessionState.email, "profile-email"),
                rx.cond(SessionState.pending_email != "",
                        rx.text(f"Waiting for confirmation: {SessionState.pending_email}", size="1",
                                color_scheme="amber", id="profile-pending-email")),
                spacing="1",
            ),
            read_value("Username", SessionState.username, "profile-username"),
            columns=rx.breakpoints(initial="1", sm="2"), spacing="4", width="100%",
        ),
        rx.button(rx.icon("pencil", size=16), "Edit", variant="outline", on_click=DashboardState.start_editing,
                  id="edit-profile"),
        spacing="4", width="100%",
    )


def _profile_input(label: str, name: str, value: Var[str], **props: object) -> rx.Component:
    field_id = f"profile-{name.replace('_', '-')}-input"
    return field(
        label,
        rx.input(id=field_id, name=name, value=value, on_change=DashboardState.set_field(f"form_{name}"),
                 size="3", **props),
        DashboardState.errors.get(name, ""),
        field_id=field_id,
    )


def _profile_edit() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.grid(
                _profile_input("First Name", "first_name", DashboardState.form_first_name,
                               auto_complete="given-name"),
                _profile_input("Last Name", "last_name", DashboardState.form_last_name, auto_complete="family-name"),
                columns=rx.breakpoints(initial="1", sm="2"), spacing="4", width="100%",
            ),
            _profile_input("Email Address", "email", DashboardState.form_email, type="email", auto_complete="email"),
            rx.cond(
                DashboardState.email_changing,
                rx.vstack(
                    _profile_input("Current Password", "current_password", DashboardState.form_current_password,
                                   type="password", auto_complete="current-password"),
                    rx.text("To change your e-mail, enter your password. We will send a link to the new address; "
                            "it is used once you open it. Your other devices will be signed out.", size="1",
                            color_scheme="gray"),
                    spacing="1", width="100%",
                ),
            ),
            rx.hstack(
                rx.button(rx.cond(DashboardState.saving, "Saving...", "Save"), type="submit", id="save-profile",
                          disabled=DashboardState.saving | ~DashboardState.profile_changed),
                rx.button("Cancel", type="button", variant="soft", color_scheme="gray",
                          on_click=DashboardState.cancel_editing, id="cancel-profile"),
                spacing="2",
            ),
            spacing="4", width="100%",
        ),
        on_submit=DashboardState.save_profile, no_validate=True, width="100%",
    )


def profile_tab() -> rx.Component:
    return rx.vstack(
        rx.card(
            rx.vstack(
                rx.heading("Profile Information", size="4", as_="h2"),
                rx.text("Your personal details and the e-mail address for receipts.", size="2", color_scheme="gray"),
                rx.cond(DashboardState.editing, _profile_edit(), _profile_read()),
                spacing="4", width="100%",
            ),
            width="100%", id="profile-card",
        ),
        receipt_details_card(),
        spacing="4", width="100%",
    )
