"""Notifications a user receives (application decided, agent reviewed, a sale, an update of a bought agent).

Only the owner reads, marks or deletes its notifications: another user's id answers 404, like an unknown
one, so ids of other people's notifications cannot be probed.
"""

from __future__ import annotations

from sqlalchemy import func, update
from sqlmodel import Session, delete, select

from marketplace.db import session_scope
from marketplace.models import Notification, NotificationType, User
from marketplace.services import mail, mail_texts, names
from marketplace.services.errors import Invalid, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_user

MAX_LIST = 200
NOT_FOUND = "Notification not found"
TYPES = frozenset(NotificationType)
# Decisions and update notices also go by e-mail (with where to look); a sale has its own, detailed e-mail.
EMAILED = {NotificationType.APPROVAL: "/vendor", NotificationType.REJECTION: "/vendor",
           NotificationType.UPDATE: "/dashboard"}


def notify(session: Session, *, user_id: str, type: str, title: str, message: str) -> Notification:
    """Add a notification inside the caller's transaction, so it exists exactly when the event does (its
    e-mail, for the types in EMAILED, is queued when that transaction commits)."""
    if type not in TYPES:
        raise Invalid(f"Unknown notification type: {type}")
    notification = Notification(user_id=user_id, type=type, title=title[:200], message=message)
    session.add(notification)
    email_users(session, user_ids=[user_id], type=type, title=title, message=message)
    return notification


def email_users(session: Session, *, user_ids: list[str], type: str, title: str, message: str,
                message_html: str | None = None) -> None:
    """The e-mail of a notification, for callers that insert many notifications in one statement;
    `message_html` (safe HTML) makes its HTML part, else it is plain text only."""
    path = EMAILED.get(NotificationType(type)) if type in TYPES else None
    if path is None or not user_ids:
        return
    rows = session.exec(select(User.email, User.first_name, User.last_name, User.username)
                        .where(User.id.in_(user_ids), User.deleted_at.is_(None)))
    for email, first_name, last_name, username in rows.all():
        name = names.greeting(first_name=first_name, last_name=last_name, username=username)
        mail.send_after_commit(session, mail_texts.notice(to=email, name=name, title=title, message=message,
                                                          path=path, message_html=message_html))


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
