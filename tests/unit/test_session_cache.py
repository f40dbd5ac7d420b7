"""The signed-in user is reused for a moment (services/session_cache.py): a repeat lookup skips the database, and
a sign-out, role change or deletion committed in this process counts at once; one committed elsewhere (another
worker: raw SQL here) within the cache's 2 s."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import event, text

from marketplace import db
from marketplace.config import settings
from marketplace.models import Role
from marketplace.models.base import utcnow
from marketplace.services import auth, session_cache, users
from marketplace.services.admin import deletion
from tests import factories


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """The SQL statements sent to the database while the test runs."""
    sent: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:
        sent.append(statement)

    engine = db.engine()
    event.listen(engine, "before_cursor_execute", count)
    yield sent
    event.remove(engine, "before_cursor_execute", count)


def _signed_in(**fields: object) -> tuple[str, str]:
    user = factories.make_user(**fields)
    return user.id, auth.create_session(user=user)


def test_a_repeat_lookup_within_the_window_reads_nothing(statements):
    user_id, token = _signed_in()
    assert auth.user_for_token(token).id == user_id
    read = len(statements)
    assert read >= 1
    again = auth.user_for_token(token)
    assert again.id == user_id
    assert len(statements) == read


def test_after_the_window_the_user_is_read_again(statements, monkeypatch):
    _, token = _signed_in()
    auth.user_for_token(token)
    read = len(statements)
    monkeypatch.setattr(session_cache, "TTL_SECONDS", 0.0)
    session_cache.clear()
    auth.user_for_token(token)
    auth.user_for_token(token)
    assert len(statements) == read + 2


def test_sign_out_counts_at_once():
    _, token = _signed_in()
    assert auth.user_for_token(token) is not None
    auth.end_session(token=token)
    assert auth.user_for_token(token) is None


def test_a_role_change_counts_at_once(monkeypatch):
    monkeypatch.setattr(settings, "demo_mode", True)
    _, token = _signed_in()
    user = auth.user_for_token(token)
    assert user.role == Role.USER
    users.switch_role(actor=user, role=Role.ADMIN)
    assert auth.user_for_token(token).role == Role.ADMIN


def test_a_deleted_user_is_signed_out_at_once():
    admin = factories.make_user(role=Role.ADMIN)
    target_id, token = _signed_in()
    assert auth.user_for_token(token).id == target_id
    deletion.delete_user(actor=admin, user_id=target_id)
    assert auth.user_for_token(token) is None


def test_a_change_made_by_another_process_counts_within_the_window():
    _, token = _signed_in()
    assert auth.user_for_token(token).role == Role.USER
    with db.engine().begin() as conn:  # as another worker writes: no commit hook runs in this process
        conn.execute(text("UPDATE users SET role = 'admin'"))
    assert auth.user_for_token(token).role == Role.USER  # the cached answer, at most TTL_SECONDS old
    key = auth._hash_token(token)
    kept_until, expires, user = session_cache._entries[key]
    assert kept_until - time.monotonic() <= session_cache.TTL_SECONDS
    session_cache._entries[key] = (time.monotonic(), expires, user)  # the window has passed
    assert auth.user_for_token(token).role == Role.ADMIN


def test_a_session_is_not_served_past_its_expiry():
    user_id, token = _signed_in()
    assert auth.user_for_token(token).id == user_id
    with db.engine().begin() as conn:
        conn.execute(text("UPDATE user_sessions SET expires_at = :past"), {"past": utcnow() - timedelta(seconds=1)})
    session_cache.clear()
    assert auth.user_for_token(token) is None
    user_id, token = _signed_in()
    auth.user_for_token(token)
    cached = session_cache._entries[auth._hash_token(token)]
    session_cache._entries[auth._hash_token(token)] = (cached[0], utcnow() - timedelta(seconds=1), cached[2])
    assert session_cache.get(auth._hash_token(token)) is session_cache.MISS


def test_an_answer_read_across_a_committed_change_is_not_kept():
    _, token = _signed_in()
    read_at = session_cache.generation()
    stale = auth.user_for_token(token)
    session_cache.clear()  # a commit that wrote users landed while `stale` was being read
    session_cache.put(auth._hash_token(token), stale, session_expires=None, read_at=read_at)
    assert session_cache.get(auth._hash_token(token)) is session_cache.MISS
