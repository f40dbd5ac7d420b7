"""Notifications: owner-only reads and writes, newest first, unread count, notify inside a transaction."""

from __future__ import annotations

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Notification, NotificationType
from marketplace.services import notifications
from marketplace.services.errors import Invalid, InvalidParameter, NotFound, Unauthorized
from tests.factories import ago, make_notification, make_user


def test_list_is_the_owners_newest_first_and_counts_unread():
    owner, other = make_user(), make_user()
    old = make_notification(owner, title="old", created_at=ago(days=2), is_read=True)
    new = make_notification(owner, title="new", created_at=ago(minutes=1))
    make_notification(other, title="not mine")
    assert [n.id for n in notifications.list_notifications(actor=owner)] == [new.id, old.id]
    assert notifications.unread_count(actor=owner) == 1
    assert [n.title for n in notifications.list_notifications(actor=owner, limit=1)] == ["new"]


def test_mark_read_and_delete_by_owner():
    owner = make_user()
    note = make_notification(owner)
    marked = notifications.mark_read(actor=owner, notification_id=note.id)
    assert marked.is_read and marked.id == note.id
    assert notifications.mark_read(actor=owner, notification_id=note.id).is_read  # twice is fine
    assert notifications.unread_count(actor=owner) == 0
    notifications.delete_notification(actor=owner, notification_id=note.id)
    assert notifications.list_notifications(actor=owner) == []
    with pytest.raises(NotFound):
        notifications.delete_notification(actor=owner, notification_id=note.id)


def test_another_users_notification_is_not_found():
    owner, intruder = make_user(), make_user()
    note = make_notification(owner)
    with pytest.raises(NotFound, match="Notification not found"):
        notifications.mark_read(actor=intruder, notification_id=note.id)
    with pytest.raises(NotFound):
        notifications.delete_notification(actor=intruder, notification_id=note.id)
    with pytest.raises(NotFound):
        notifications.mark_read(actor=owner, notification_id="unknown")
    assert notifications.unread_count(actor=owner) == 1  # untouched


def test_signed_out_and_bad_limit_are_refused():
    for call in (lambda: notifications.list_notifications(actor=None),
                 lambda: notifications.unread_count(actor=None),
                 lambda: notifications.mark_read(actor=None, notification_id="x"),
                 lambda: notifications.delete_notification(actor=None, notification_id="x")):
        with pytest.raises(Unauthorized):
            call()
    user = make_user()
    for limit in (0, -1, 201):
        with pytest.raises(InvalidParameter):
            notifications.list_notifications(actor=user, limit=limit)


def test_notify_joins_the_callers_transaction():
    user = make_user()
    with db.session_scope() as session:
        note = notifications.notify(session, user_id=user.id, type=NotificationType.SALE, title="New sale",
                                    message="bob bought Agent")
    assert (note.type, note.is_read) == ("sale", False)
    with pytest.raises(RuntimeError), db.session_scope() as session:
        notifications.notify(session, user_id=user.id, type=NotificationType.OTHER, title="t", message="m")
        raise RuntimeError("the caller's work failed")
    with db.session_scope() as session:
        assert len(session.exec(select(Notification)).all()) == 1  # the failed caller left nothing behind
    with pytest.raises(Invalid), db.session_scope() as session:
        notifications.notify(session, user_id=user.id, type="spam", title="t", message="m")
