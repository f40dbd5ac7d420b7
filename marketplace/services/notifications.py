"""Notifications a user receives (application decided, agent reviewed, a sale, an update of a bought agent).

Only the owner reads, marks or deletes its notifications: another user's id answers 404, like an unknown
one, so ids of other people's notifications cannot be probed.
"""

from __future__ import annotations

from sqlalchemy import func, update
from sqlmodel import Session, delete, select

from marketplace.db import session_scope
from marketplace.models import Notification, NotificationType, User
from marketplace.services.errors import Invalid, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_user

MAX_LIST = 200
NOT_FOUND = "Notification not found"
TYPES = frozenset(NotificationType)


def notify(session: Session, *, user_id: str, type: str, title: str, message: str) -> Notification:
    """Add a notification inside the caller's transaction, so it exists exactly when the event does."""
    if type not in TYPES:
        raise Invalid(f"Unknown notification type: {type}")
    notification = Notification(user_id=user_id, type=type, title=title[:200], message=message)
    session.add(notification)
    return notification


def list_notifications(*, actor: User | None, limit: int = 50) -> list[Notification]:
    """The actor's notifications, newest first."""
    user = require_user(actor)
    check_page(limit=limit, max_limit=MAX_LIST)
    with session_scope() as session:
        return list(session.exec(
            select(Notification).where(Notification.user_id == user.id)
            .order_by(Notification.created_at.desc(), Notification.id.desc()).limit(limit)).all())


def unread_count(*, actor: User | None) -> int:
    user = require_user(actor)
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(Notification).where(
            Notification.user_id == user.id, Notification.is_read.is_(False))).one()


def mark_read(*, actor: User | None, notification_id: str) -> Notification:
    user = require_user(actor)
    with session_scope() as session:
        session.exec(update(Notification).where(Notification.id == notification_id, Notification.user_id == user.id)
                     .values(is_read=True))
        notification = session.exec(select(Notification).where(
            Notification.id == notification_id, Notification.user_id == user.id)).first()
        if notification is None:
            raise NotFound(NOT_FOUND)
        return notification


def delete_notification(*, actor: User | None, notification_id: str) -> None:
    user = require_user(actor)
    with session_scope() as session:
        deleted = session.exec(delete(Notification).where(
            Notification.id == notification_id, Notification.user_id == user.id)).rowcount
        if not deleted:
            raise NotFound(NOT_FOUND)
