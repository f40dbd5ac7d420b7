"""The Notifications tab: the vendor's own notifications, Mark Read and delete.

The unread count lives on the page state (it labels the tab before this tab is opened); this state keeps it
in step with what the user does here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import reflex as rx

from marketplace.models import Notification, User
from marketplace.services import notifications
from marketplace.state.display import format_day_time, time_zone
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.vendors.page import VendorState

# Not found any more, or the database: the spec's message, the cause logged.
MARK_READ_FAILED = Toast(fallback="Failed to mark notification as read", reasons=False, unexpected=True,
                         log="mark read failed")
DELETE_FAILED = Toast(fallback="Failed to delete notification", reasons=False, unexpected=True,
                      log="delete notification failed")


def _notifications(user: User | None) -> tuple[list[Notification], int]:
    """The vendor's notifications and how many are unread."""
    return (notifications.list_notifications(actor=user), notifications.unread_count(actor=user))


@dataclass
class NotificationRow:
    id: str
    type: str
    title: str
    message: str
    date: str
    is_read: bool


class VendorNotificationsState(VendorState):
    loading: bool = True
    items: list[NotificationRow] = []
    busy: str = ""  # id of the notification being changed

    @rx.event
    async def load(self) -> AsyncIterator[Any]:
        """Runs when the tab's panel mounts."""
        self.reset()
        yield
        user = await self.viewer()
        done = await attempt(Toast(), _notifications, user)
        if done.failed:
            self.loading = done.signed_out  # signed out: the spinner stays until the sign-in page
            yield done.events
            return
        rows, self.unread_notifications = done.value
        self.items = [self._row(n) for n in rows]
        self.loading = False

    def _row(self, notification: Notification) -> NotificationRow:
        return NotificationRow(id=notification.id, type=notification.type, title=notification.title,
                               message=notification.message, is_read=notification.is_read,
                               date=format_day_time(notification.created_at, time_zone(self.time_zone)))

    def _count_read(self, notification_id: str) -> None:
        """One fewer unread when the row was unread (the list holds at most 50, the count is of all)."""
        if any(row.id == notification_id and not row.is_read for row in self.items):
            self.unread_notifications = max(0, self.unread_notifications - 1)

    @rx.event
    async def mark_read(self, notification_id: str) -> AsyncIterator[Any]:
        if self.busy:
            return
        self.busy = notification_id
        yield
        done = await attempt(MARK_READ_FAILED, notifications.mark_read, actor=await self.viewer(),
                             notification_id=notification_id)
        if done.failed:
            self.busy = ""
            yield done.events
            return
        updated = done.value
        self._count_read(notification_id)
        self.items = [self._row(updated) if row.id == notification_id else row for row in self.items]
        self.busy = ""

    @rx.event
    async def delete(self, notification_id: str) -> AsyncIterator[Any]:
        if self.busy:
            return
        self.busy = notification_id
        yield
        done = await attempt(DELETE_FAILED, notifications.delete_notification, actor=await self.viewer(),
                             notification_id=notification_id)
        if done.failed:
            self.busy = ""
            yield done.events
            return
        self._count_read(notification_id)
        self.items = [row for row in self.items if row.id != notification_id]
        self.busy = ""
