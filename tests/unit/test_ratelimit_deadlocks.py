"""Counting rate limits on PostgreSQL can deadlock when requests race to create a window's rows (the keys' rows are
locked first, the missing ones created after): the count runs again, and only a deadlock makes it run again."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import DBAPIError, OperationalError

from marketplace.services import ratelimit


class _DriverError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def _failing(*sqlstates: str, answer: int = 2):
    calls: list[int] = []

    def count() -> int:
        calls.append(1)
        if len(calls) <= len(sqlstates):
            raise OperationalError("counting", {}, _DriverError(sqlstates[len(calls) - 1]))
        return answer

    return count, calls


def test_a_deadlocked_count_runs_again():
    count, calls = _failing(ratelimit.DEADLOCK, ratelimit.DEADLOCK)
    assert ratelimit.retry_deadlocks(count) == 2
    assert len(calls) == 3


def test_a_count_that_keeps_deadlocking_fails_after_its_attempts():
    count, calls = _failing(*[ratelimit.DEADLOCK] * ratelimit.COUNTING_ATTEMPTS)
    with pytest.raises(DBAPIError):
        ratelimit.retry_deadlocks(count)
    assert len(calls) == ratelimit.COUNTING_ATTEMPTS


def test_any_other_database_error_is_not_retried():
    count, calls = _failing("23505")  # a unique violation
    with pytest.raises(DBAPIError):
        ratelimit.retry_deadlocks(count)
    assert len(calls) == 1
