"""The signed-in user is reused per process while no user or session write has committed in any process
(services/session_cache.py): a repeat lookup reads no database, and a sign-out, approval, role change or deletion
is seen at once, here and, through the generation in Redis, by a lookup in another process."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta

import pytest
import redis
from sqlalchemy import event, text

from marketplace import db
from marketplace.models import Role
from marketplace.models.base import utcnow
from marketplace.services import accounts, auth, session_cache, users
from marketplace.services.admin import applications, deletion
from tests import factories

# The Redis database these tests may empty (CI's server; not the apps' 0). TEST_REDIS_URL points elsewhere.
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/6")


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


@pytest.fixture
def shared_redis() -> Iterator[str]:
    """This process's cache on a test Redis (as a worker of a several-worker deployment), emptied around the
    test. Tests using it are marked `redis`: scripts/test.sh leaves them out where no Redis answers."""
    client = redis.Redis.from_url(TEST_REDIS_URL)
    try:
        client.set(session_cache.GENERATION_KEY, 1000)
    except redis.ConnectionError:
        pytest.fail(f"these tests need Redis at TEST_REDIS_URL ({TEST_REDIS_URL})")
    previous = session_cache.use(session_cache.SessionCache(session_cache.SharedGeneration(TEST_REDIS_URL)))
    yield TEST_REDIS_URL
    session_cache.use(previous)
    client.delete(session_cache.GENERATION_KEY)


def _signed_in(**fields: object) -> tuple[str, str]:
    user = factories.make_user(**fields)
    return user.id, auth.create_session(user=user)


def _another_process(url: str) -> session_cache.SessionCache:
    """A second worker's cache on the same Redis: its own answers, the shared generation."""
    return session_cache.SessionCache(session_cache.SharedGeneration(url))


def _lookup_in(other: session_cache.SessionCache, token: str) -> object:
    """`auth.user_for_token` as the other process runs it."""
    previous = session_cache.use(other)
    try:
        return auth.user_for_token(token)
    finally:
        session_cache.use(previous)


def test_a_repeat_lookup_reads_no_database(statements):
    user_id, token = _signed_in()
    assert auth.user_for_token(token).id == user_id
    read = len(statements)
    assert read >= 1
    assert auth.user_for_token(token).id == user_id
    assert len(statements) == read


def test_sign_out_counts_at_once():
    _, token = _signed_in()
    assert auth.user_for_token(token) is not None
    auth.end_session(token=token)
    assert auth.user_for_token(token) is None


def test_a_role_change_counts_at_once(demo_mode):
    _, token = _signed_in()
    user = auth.user_for_token(token)
    assert user.role == Role.USER
    users.switch_role(actor=user, role=Role.ADMIN)
    assert auth.user_for_token(token).role == Role.ADMIN


def test_a_deleted_user_is_signed_out_at_once():
    admin = factories.make_admin()
    target_id, token = _signed_in()
    assert auth.user_for_token(token).id == target_id
    deletion.delete_user(actor=admin, user_id=target_id)
    assert auth.user_for_token(token) is None


def test_sign_out_everywhere_ends_every_cached_session():
    user_id, token = _signed_in()
    other = auth.create_session(user=auth.user_for_token(token))
    assert auth.user_for_token(other).id == user_id
    accounts.sign_out_everywhere(actor=auth.user_for_token(token))
    assert auth.user_for_token(token) is None
    assert auth.user_for_token(other) is None


def test_a_session_is_not_served_past_its_expiry(statements):
    user_id, token = _signed_in()
    assert auth.user_for_token(token).id == user_id
    key = auth._hash_token(token)
    later = utcnow() + timedelta(days=30)
    assert session_cache.cache().lookup(key, now=utcnow())[0].id == user_id
    assert session_cache.cache().lookup(key, now=later)[0] is session_cache.MISS


def test_an_answer_read_across_a_committed_change_is_not_kept():
    _, token = _signed_in()
    known = session_cache.cache()
    _, read_at = known.lookup(auth._hash_token(token), now=utcnow())
    stale = auth.user_for_token(token)
    session_cache.clear()  # a commit that wrote users landed while `stale` was being read
    known.put(auth._hash_token(token), stale, session_expires=None, read_at=read_at)
    assert known.lookup(auth._hash_token(token), now=utcnow())[0] is session_cache.MISS


def test_a_new_session_does_not_make_other_answers_stale(statements):
    user = factories.make_user()
    token = auth.create_session(user=user)
    auth.user_for_token(token)
    auth.create_session(user=user)  # another device signs in
    read = len(statements)
    assert auth.user_for_token(token).id == user.id
    assert len(statements) == read


@pytest.mark.redis
def test_an_approval_through_one_process_is_seen_by_a_lookup_in_another(shared_redis):
    """tests/e2e/test_vendor.py's case across workers: the vendor's page on worker B, the admin's approval
    through worker A; B's next lookup must see the vendor."""
    admin = factories.make_admin()
    customer = factories.make_user()
    token = auth.create_session(user=customer)
    factories.make_application(customer)
    worker_b = _another_process(shared_redis)
    assert _lookup_in(worker_b, token).is_vendor_approved is False
    assert _lookup_in(worker_b, token).role == Role.USER  # B's own cached answer now
    applications.approve(actor=admin, user_id=customer.id)  # through this process (worker A)
    seen = _lookup_in(worker_b, token)
    assert (seen.role, seen.is_vendor_approved) == (Role.VENDOR, True)


@pytest.mark.redis
def test_a_sign_out_through_one_process_ends_the_session_in_another(shared_redis, statements):
    _, token = _signed_in()
    worker_b = _another_process(shared_redis)
    assert _lookup_in(worker_b, token) is not None
    read = len(statements)
    assert _lookup_in(worker_b, token) is not None
    assert len(statements) == read  # B answered from its cache
    auth.end_session(token=token)  # through worker A
    assert _lookup_in(worker_b, token) is None


@pytest.mark.redis
def test_a_write_elsewhere_is_seen_once_its_writer_bumps_the_generation(shared_redis):
    """A process that writes users commits, then bumps the shared generation; until the bump (raw SQL here: no
    commit hook runs) another process may answer from its cache, after it never."""
    _, token = _signed_in()
    worker_b = _another_process(shared_redis)
    assert _lookup_in(worker_b, token).role == Role.USER
    with db.engine().begin() as conn:
        conn.execute(text("UPDATE users SET role = 'admin'"))
    assert _lookup_in(worker_b, token).role == Role.USER
    redis.Redis.from_url(shared_redis).incr(session_cache.GENERATION_KEY)  # what the writer's commit hook does
    assert _lookup_in(worker_b, token).role == Role.ADMIN


@pytest.mark.redis
def test_a_lost_counter_never_brings_back_an_old_answer(shared_redis):
    """Redis flushed or restarted: the counter starts again at a random value, not at 0, so it cannot come back
    to the generation an old answer was kept under."""
    _, token = _signed_in()
    worker_b = _another_process(shared_redis)
    client = redis.Redis.from_url(shared_redis)
    assert _lookup_in(worker_b, token).role == Role.USER  # kept under generation 1000
    with db.engine().begin() as conn:  # a change whose bump is lost with the counter
        conn.execute(text("UPDATE users SET role = 'admin'"))
    client.delete(session_cache.GENERATION_KEY)
    assert _lookup_in(worker_b, token).role == Role.ADMIN  # no counter: nothing reused
    assert int(client.get(session_cache.GENERATION_KEY)) != 1000
    client.delete(session_cache.GENERATION_KEY)
    session_cache.cache().changed()  # a bump after the loss starts afresh too
    assert int(client.get(session_cache.GENERATION_KEY)) not in (1000, 1001, 1)


def test_without_an_answer_from_redis_nothing_is_reused(statements):
    _, token = _signed_in()
    unreachable = session_cache.SessionCache(session_cache.SharedGeneration("redis://127.0.0.1:1/0"))
    previous = session_cache.use(unreachable)
    try:
        assert auth.user_for_token(token) is not None
        read = len(statements)
        assert auth.user_for_token(token) is not None
        assert len(statements) > read
    finally:
        session_cache.use(previous)
