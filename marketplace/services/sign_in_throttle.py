"""The sign-in throttle: password checks per account and per client address, counted before they happen.

Every password check (a sign-in, or the current password asked for a change) first writes its attempt and
commits it, then counts the attempts of its account and of its address in the window; only an attempt within
both limits gets its password checked. Requests that arrive together therefore all see each other: a burst gets
no more checks than the limit, on SQLite and PostgreSQL alike, with no lock. A failed check leaves its attempt
in place (it is what the limit counts). A refused attempt checked nothing and is removed at once, and so is a
passed check, so neither people who sign in often nor a flood of refused requests keeps anyone locked out
longer than the failures do. Failures are never removed early (not even by a later success): the limit holds
while checks are still under way.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import LoginAttempt
from marketplace.models.base import utcnow
from marketplace.services.errors import TooManyRequests

MAX_ACCOUNT = 255
MAX_ADDRESS = 64


def _window_start() -> datetime:
    return utcnow() - timedelta(minutes=settings.login_window_minutes)


def refused() -> TooManyRequests:
    return TooManyRequests(
        f"Too many failed sign-in attempts. Please try again in {settings.login_window_minutes} minutes.")


def begin(*, account: str, address: str | None) -> int:
    """Count one password check for `account` (the resolved user's id, else the typed name) from `address`
    (None: a call without a client, limited per account only); returns the attempt's id, or raises
    `TooManyRequests` (nothing is checked) when the account or the address is past its limit."""
    account, address = account[:MAX_ACCOUNT], (address or "")[:MAX_ADDRESS]
    with session_scope() as session:
        attempt = LoginAttempt(account=account, address=address)
        session.add(attempt)
        session.flush()
        attempt_id = attempt.id
    since = _window_start()
    with session_scope() as session:
        per_account = session.exec(select(func.count()).select_from(LoginAttempt).where(
            LoginAttempt.account == account, LoginAttempt.created_at >= since)).one()
        per_address = session.exec(select(func.count()).select_from(LoginAttempt).where(
            LoginAttempt.address == address, LoginAttempt.created_at >= since)).one() if address else 0
    if per_account > settings.login_max_failures_per_account or per_address > settings.login_max_failures_per_address:
        with session_scope() as session:
            forget(session, attempt_id)
        raise refused()
    assert attempt_id is not None  # flushed: the database gave it one
    return attempt_id


def forget(session: Session, attempt_id: int | None) -> None:
    """The check passed (or was refused, or was no guess at all): it does not count against anyone."""
    session.exec(delete(LoginAttempt).where(LoginAttempt.id == attempt_id))


def purge() -> None:
    """Housekeeping on start: drop attempts older than the window."""
    with session_scope() as session:
        session.exec(delete(LoginAttempt).where(LoginAttempt.created_at < _window_start()))
