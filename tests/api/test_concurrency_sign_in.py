"""The sign-in throttle under bursts: requests sent at the same moment over HTTP (tests/live_api.py) each count
before any password is checked, so a burst gets no more password checks than the limit, per account and per
client address. Current-password checks (password change, e-mail change) count in the same throttle.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest
from argon2 import profiles
from sqlalchemy import update

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import User
from marketplace.services import auth
from tests import factories
from tests.live_api import LiveApi, fire

BURST = 30
ADDRESS_BURST = 45
# A check that takes a few milliseconds, as a real one does (the suite's cheapest hashing takes microseconds,
# which would hide a check-then-count race); small enough for a burst's worth of them in memory at once.
SLOW_CHECK = dataclasses.replace(profiles.CHEAPEST, time_cost=2, memory_cost=16 * 1024)


@pytest.fixture(autouse=True)
def _slow_checks() -> Iterator[None]:
    previous = auth.use_hashing(SLOW_CHECK)
    yield
    auth.use_hashing(previous)


def _user(username: str) -> User:
    """A user whose stored hash is a slow one (a hash carries its own cost)."""
    user = factories.make_user(username)
    with session_scope() as session:
        session.exec(update(User).where(User.id == user.id).values(password_hash=auth.hash_password(
            factories.PASSWORD)))
    return user


def _sign_in(api: LiveApi, username: str, password: str):
    def call() -> httpx.Response:
        with api.client() as client:
            return client.post("/api/login", json={"username": username, "password": password})
    return call


def _statuses(answers: list[httpx.Response]) -> Counter[int]:
    return Counter(answer.status_code for answer in answers)


def _assert_account_locked_after(api: LiveApi, username: str, failures: int) -> None:
    """One by one, the account takes exactly the failures the limit still allows, then refuses even the right
    password. (A burst may check fewer than the limit, even none: its attempts all count while they are pending;
    the refused ones are then removed, so the limit is not a lock.)"""
    left = settings.login_max_failures_per_account - failures
    assert [_sign_in(api, username, "wrong-again")().status_code for _ in range(left)] == [401] * left
    assert _sign_in(api, username, factories.PASSWORD)().status_code == 429


def test_a_burst_on_one_account_checks_at_most_the_limit(live_api: LiveApi):
    _user("burst")
    answers = fire([_sign_in(live_api, "burst", f"wrong-{n}") for n in range(BURST)])
    statuses = _statuses(answers)
    assert set(statuses) <= {401, 429}, statuses
    assert statuses[401] <= settings.login_max_failures_per_account, statuses
    _assert_account_locked_after(live_api, "burst", statuses[401])


def test_the_right_password_inside_a_burst_gets_no_extra_check(live_api: LiveApi):
    _user("needle")
    calls = [_sign_in(live_api, "needle", f"wrong-{n}") for n in range(BURST - 1)]
    calls.insert(BURST // 2, _sign_in(live_api, "needle", factories.PASSWORD))
    statuses = _statuses(fire(calls))
    assert set(statuses) <= {200, 401, 429}, statuses
    # The wrong ones never pass the limit; the right one signs in only if it came within it. (A passed check
    # stops counting once it is done, so it may free its place for one more check of the burst.)
    assert statuses[401] <= settings.login_max_failures_per_account, statuses
    assert statuses[200] <= 1, statuses
    assert statuses[429] >= BURST - settings.login_max_failures_per_account - 1, statuses


def test_a_burst_from_one_address_on_many_names_checks_at_most_the_address_limit(live_api: LiveApi):
    answers = fire([_sign_in(live_api, f"nobody{n}", "wrong-pass") for n in range(ADDRESS_BURST)])
    statuses = _statuses(answers)
    assert set(statuses) <= {401, 429}, statuses
    assert statuses[401] <= settings.login_max_failures_per_address, statuses
    left = settings.login_max_failures_per_address - statuses[401]
    after = [_sign_in(live_api, f"later{n}", "wrong-pass")().status_code for n in range(left + 1)]
    assert after == [401] * left + [429]


@pytest.mark.parametrize("path", ["/api/user/password", "/api/user/profile"])
def test_a_burst_of_current_password_guesses_checks_at_most_the_limit(live_api: LiveApi, path: str):
    user = _user("guesser")
    client = live_api.signed_in("guesser")

    def guess(n: int):
        body = ({"currentPassword": f"wrong-{n}", "newPassword": "another-pass-1"} if path.endswith("password")
                else {"firstName": "G", "lastName": "H", "email": "new-address@example.com",
                      "currentPassword": f"wrong-{n}"})
        return lambda: client.put(path, json=body)

    try:
        statuses = _statuses(fire([guess(n) for n in range(BURST)]))
    finally:
        client.close()
    assert set(statuses) <= {400, 429}, statuses
    assert statuses[400] <= settings.login_max_failures_per_account, statuses
    # The same throttle as sign-in: the guesses count against the account's sign-in too.
    _assert_account_locked_after(live_api, user.username, statuses[400])
