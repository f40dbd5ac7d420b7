"""The Applications tab of /admin: pending vendor applications as cards, a details dialog, the reject prompt."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from marketplace.components.empty_state import empty_state
from marketplace.pages.admin.widgets import card_list, confirm_dialog, decision_buttons, details_dialog, fact
from marketplace.state.admin.applications import REJECT, ApplicationCard
from marketplace.state.admin.applications import ApplicationsState as A


def _pending_badge() -> rx.Component:
    return rx.badge(rx.icon("clock", size=12), "Pending", color_scheme="amber", class_name="application-status")


def _buttons(card: ObjectVar[ApplicationCard], *, in_dialog: bool) -> rx.Component:
    labels = ("Approve Application", "Reject Application") if in_dialog else ("Approve", "Reject")
    return decision_buttons(A, card.id, card.business_name, "application", in_dialog=in_dialog, labels=labels)


def _details() -> rx.Component:
    card = A.viewing
    body = rx.vstack(
        rx.data_list.root(
            fact("Applicant", card.applicant, class_name="applicant-name"),
            fact("Email", card.email, class_name="applicant-email"),
            fact("Username", card.username),
            fact("Business name", card.business_name),
            fact("Website", rx.cond(card.website != "", rx.link(card.website, href=card.website, is_external=True),
                                    rx.text("Not provided", color_scheme="gray"))),
            fact("Application date", card.applied_at, class_name="application-date"),
            fact("Status", _pending_badge()),
            orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
        ),
        rx.vstack(
            rx.text("Business description", size="2", weight="bold"),
            rx.text(rx.cond(card.business_description != "", card.business_description, "No description provided."),
                    size="2", color_scheme="gray", white_space="pre-wrap"),
            spacing="1", width="100%",
        ),
        spacing="4", width="100%", padding_top="0.75em",
    )
    return details_dialog(card.business_name, body, open=A.details_open, on_open_change=A.set_details_open,
                          footer=_buttons(card, in_dialog=True), description="Vendor application details",
                          element_id="application-details")


def _card(card: ObjectVar[ApplicationCard]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.vstack(
                    rx.heading(card.business_name, size="4", class_name="business-name", as_="h3"),
                    rx.text(f"Applied {card.applied}", size="1", color_scheme="gray"),
                    spacing="1", min_width="0",
                ),
                rx.spacer(),
                _pending_badge(),
                width="100%", align="start",
            ),
            rx.cond(card.business_description != "",
                    rx.text(card.business_description, size="2", color_scheme="gray",
                            class_name="business-description")),
            rx.cond(card.website != "",
                    rx.link(rx.hstack(rx.icon("globe", size=14), rx.text(card.website, size="2"),
                                      spacing="1", align="center"),
                            href=card.website, is_external=True, class_name="business-website",
                            word_break="break-all")),
            rx.text(f"{card.applicant} · {card.email}", size="1", color_scheme="gray", word_break="break-all"),
            _buttons(card, in_dialog=False),
            spacing="3", width="100%",
        ),
        width="100%", class_name="application-card", data_user=card.id, data_business=card.business_name,
    )


def applications_tab() -> rx.Component:
    empty = empty_state("inbox", "No pending applications", "All vendor applications have been processed",
                        element_id="applications-empty")
    return rx.vstack(
        rx.heading(
            "Pending Vendor Applications ",
            rx.cond(~A.loading, rx.badge(A.total, color_scheme="amber", radius="full", vertical_align="middle",
                                         id="applications-total")),
            size="5", as_="h2",
        ),
        card_list(A, "applications", _card, empty),
        _details(),
        confirm_dialog(A, "reject", REJECT, element_id="reject-application-dialog",
                       confirm_id="confirm-reject-application", icon="x"),
        spacing="4", width="100%", id="admin-applications", on_mount=A.on_open,
    )
