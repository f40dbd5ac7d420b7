"""The Notifications tab of /vendor: type, title, message, date, New badge, Mark Read and delete."""

from __future__ import annotations

import reflex as rx

from marketplace.components.badges import notification_type_badge
from marketplace.components.empty_state import empty_state
from marketplace.components.spinner import skeleton_block
from marketplace.state.vendors.notifications import NotificationRow
from marketplace.state.vendors.notifications import VendorNotificationsState as N


def _notification(item: NotificationRow) -> rx.Component:
    actions = rx.hstack(
        rx.cond(~item.is_read,
                rx.button(rx.icon("check", size=14), "Mark Read", size="1", variant="soft",
                          on_click=N.mark_read(item.id), disabled=N.busy != "", class_name="mark-read")),
        rx.icon_button(rx.icon("trash-2", size=14), size="1", variant="soft", color_scheme="red",
                       on_click=N.delete(item.id), disabled=N.busy != "", aria_label="Delete notification",
                       class_name="delete-notification"),
        spacing="2", flex_shrink="0",
    )
    return rx.card(
        rx.vstack(
            rx.hstack(
                notification_type_badge(item.type),
                rx.cond(~item.is_read, rx.badge("New", variant="solid", class_name="new-badge")),
                rx.spacer(),
                actions,
                width="100%", align="center", spacing="2",
            ),
            rx.text(item.title, weight="bold", class_name="notification-title"),
            rx.text(item.message, size="2", color_scheme="gray"),
            rx.text(item.date, size="1", color_scheme="gray"),
            spacing="2", width="100%",
        ),
        width="100%", class_name="notification", data_id=item.id, data_read=rx.cond(item.is_read, "true", "false"),
        background=rx.cond(item.is_read, "var(--color-panel)", "var(--accent-a2)"),
    )


def notifications_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the list."""
    return rx.box(
        rx.cond(
            N.loading,
            rx.vstack(skeleton_block("5em"), skeleton_block("5em"), width="100%", id="notifications-loading"),
            rx.cond(
                N.items.length() == 0,
                empty_state("bell", "No notifications yet",
                            "Approvals, rejections and sales of your agents will show up here.",
                            element_id="notifications-empty"),
                rx.vstack(rx.foreach(N.items, _notification), spacing="3", width="100%", id="notification-list"),
            ),
        ),
        width="100%", on_mount=N.load,
    )
