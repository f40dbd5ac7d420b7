"""/dev/mail, the dev mailbox: every e-mail the app sent to the local catcher (demo mode only, 404 otherwise;
for admins, others are told so)."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from marketplace.components.empty_state import empty_state
from marketplace.components.layout import container, notice_card, page_frame
from marketplace.pages.not_found import not_found_card
from marketplace.state.dev_mail import DevMailState, MailRow
from marketplace.state.session import SessionState, full_page_load


def _message(row: ObjectVar[MailRow]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(row.subject, size="3", class_name="mail-subject", as_="h2"),
                rx.spacer(),
                rx.text(row.received_at, size="1", color_scheme="gray"),
                width="100%", align="center", wrap="wrap",
            ),
            rx.text("To: ", rx.code(row.recipient, class_name="mail-to"), size="2"),
            rx.text(row.text, size="2", white_space="pre-wrap", overflow_wrap="anywhere", class_name="mail-text"),
            rx.cond(
                row.links.length() > 0,
                rx.vstack(
                    rx.text("Links", size="1", weight="bold", color_scheme="gray"),
                    rx.foreach(row.links, lambda link: rx.link(link, href=link, size="2", class_name="mail-link",
                                                               overflow_wrap="anywhere")),
                    spacing="1", width="100%",
                ),
            ),
            spacing="2", width="100%",
        ),
        width="100%", class_name="mail-message",
    )


def _mailbox() -> rx.Component:
    return container(
        rx.vstack(
            rx.hstack(
                rx.vstack(
                    rx.heading("Dev mailbox", size="7", as_="h1"),
                    rx.text("E-mail the app sent to the local SMTP catcher, newest first (demo mode, admins only).",
                            color_scheme="gray", size="2"),
                    spacing="1",
                ),
                rx.spacer(),
                rx.button(rx.icon("refresh-cw", size=16), "Refresh", variant="outline",
                          on_click=DevMailState.refresh, id="refresh-mail"),
                width="100%", align="center", wrap="wrap", spacing="3",
            ),
            rx.cond(
                DevMailState.messages.length() == 0,
                empty_state("inbox", "No mail yet", "Mail the app sends (confirmations, resets, receipts) shows "
                            "up here.", element_id="mailbox-empty"),
                rx.vstack(rx.foreach(DevMailState.messages, _message), spacing="3", width="100%"),
            ),
            spacing="5", width="100%",
        ),
        id="dev-mailbox",
    )


def _admins_only() -> rx.Component:
    """Signed out or not an admin: the mailbox holds every link the app mailed (password resets too)."""
    return notice_card(
        "shield", "For admins only",
        "The dev mailbox shows every e-mail the app sent, sign-in and password-reset links included, so only "
        "admins may read it. Sign in as an admin, or switch to Administrator in the testing center.",
        rx.cond(SessionState.signed_in,
                rx.button("Open the testing center", on_click=rx.redirect("/demo-setup"), id="mailbox-to-demo-setup"),
                rx.button("Sign In", on_click=full_page_load("/api/login"), id="mailbox-sign-in")),
        card_id="mailbox-admins-only", max_width="480px")


def dev_mail_page() -> rx.Component:
    return page_frame(rx.cond(
        DevMailState.available,
        rx.cond(DevMailState.allowed, _mailbox(), rx.cond(DevMailState.loaded, _admins_only(), rx.fragment())),
        not_found_card(),
    ))
