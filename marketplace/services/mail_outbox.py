"""Sending the mail outbox (`mail_outbox`, written by services/mail.py) over SMTP, from any number of processes.

`drain` sends every message that is due. Each message is claimed first with a conditional update
(services/decisions.py) that moves its `due_at` past a lease and counts the attempt, and that claim commits
before the SMTP hand-over: two senders (threads or processes on one database) never send the same message,
and a message whose sender died after claiming it is due again once the lease ends. A sent message is marked
sent; a failed one is due again `MAIL_RETRY_DELAY_SECONDS` later, doubling after each failure, and is given up
(logged, kept with its error) after `MAIL_RETRIES` retries. A crash between the SMTP hand-over and the mark
sends that message once more after the lease: at least once, never lost.

A message may be left to a composer (`composer`): the request only records who it is for, and the sender,
having claimed it, has the composer write it (or decide there is nothing to send) in one transaction with the
row's update, before sending it like any other.

Every app process runs `send_forever` as a lifespan task: it drains at start, whenever a transaction of the
process commits mail (`wake`), and every `POLL_SECONDS` for mail committed by other processes or due for
retry; every hour it deletes finished messages older than `KEEP_DAYS`. Tests run no lifespan: they call
`drain` (the mail fixtures do before reading the mailbox).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlmodel import Session, delete, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations import mail as smtp
from marketplace.models import OutboxMail
from marketplace.models.base import utcnow
from marketplace.services import decisions
from marketplace.services.errors import Conflict

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=2)  # a claimed message's sender has this long to send it (SMTP times out after 15 s)
BATCH = 50
POLL_SECONDS = 2.0
PURGE_EVERY_SECONDS = 3600
KEEP_DAYS = 7

_senders: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
Composer = Callable[[Session, str], smtp.OutgoingMail | None]
_composers: dict[str, Composer] = {}


def composer(name: str) -> Callable[[Composer], Composer]:
    """Register `fn(session, recipient) -> OutgoingMail | None` to write the outbox messages named `name`."""

    def register(fn: Composer) -> Composer:
        _composers[name] = fn
        return fn

    return register


def drain(*, now: datetime | None = None) -> int:
    """Send every message due at `now` (default: the current time); answers how many were sent."""
    sent = 0
    while True:
        moment = now or utcnow()
        with session_scope() as session:
            due = session.exec(select(OutboxMail.id).where(OutboxMail.due_at <= moment)
                               .order_by(OutboxMail.due_at).limit(BATCH)).all()
        if not due:
            return sent
        for message_id in due:
            message = _claim(message_id, moment)
            if message is not None and message.composer:
                message = _compose(message)
            if message is not None:
                sent += _send(message, moment)


def _claim(message_id: str, moment: datetime) -> OutboxMail | None:
    """Take the message for one attempt (None when another sender took it first); committed at once."""
    with session_scope() as session:
        if not decisions.claim_any(session, OutboxMail, OutboxMail.id == message_id, OutboxMail.due_at <= moment,
                                   values={"due_at": moment + LEASE, "attempts": OutboxMail.attempts + 1}):
            return None
        return session.exec(select(OutboxMail).where(OutboxMail.id == message_id)).one()


def _compose(message: OutboxMail) -> OutboxMail | None:
    """Have the message's composer write it, in one transaction with the row (None: nothing to send, or the
    lease was lost to another sender); an unknown composer leaves it for a later retry."""
    write = _composers.get(message.composer or "")
    if write is None:
        log.error("mail outbox: no composer %r; message %s left for a retry", message.composer, message.id)
        return None
    try:
        with session_scope() as session:
            outgoing = write(session, message.recipient)
            values: dict[str, object] = {"composer": None}
            if outgoing is None:
                values |= {"due_at": None, "last_error": "nothing to send"}
            else:
                values |= {"recipient": outgoing.to, "subject": outgoing.subject, "body": outgoing.text}
            decisions.claim(session, OutboxMail, OutboxMail.id == message.id, OutboxMail.attempts == message.attempts,
                            values=values, conflict="lease lost")
    except Conflict:
        return None
    if outgoing is None:
        return None
    return OutboxMail(id=message.id, recipient=outgoing.to, subject=outgoing.subject, body=outgoing.text,
                      attempts=message.attempts)


def _send(message: OutboxMail, moment: datetime) -> int:
    try:
        smtp.send(smtp.OutgoingMail(to=message.recipient, subject=message.subject, text=message.body),
                  smtp_url=settings.smtp_url, sender=settings.mail_from)
    except Exception as error:  # a MailError, or anything else: the attempt failed either way
        if not isinstance(error, smtp.MailError):
            log.exception("mail to %s (%s): unexpected error", message.recipient, message.subject)
        if message.attempts > settings.mail_retries:
            log.error("mail to %s (%s) not sent after %d attempts, given up: %s", message.recipient,
                      message.subject, message.attempts, error)
            _finish(message, due_at=None, last_error=str(error))
        else:
            delay = settings.mail_retry_delay_seconds * 2 ** (message.attempts - 1)
            log.warning("mail to %s (%s) not sent, retry in %d s: %s", message.recipient, message.subject, delay,
                        error)
            _finish(message, due_at=moment + timedelta(seconds=delay), last_error=str(error))
        return 0
    _finish(message, due_at=None, sent_at=utcnow())
    log.info("mail to %s sent: %s", message.recipient, message.subject)
    return 1


def _finish(message: OutboxMail, **values: object) -> None:
    """Record the attempt's outcome, unless the lease ran out and another sender has claimed the message since."""
    with session_scope() as session:
        decisions.claim_any(session, OutboxMail, OutboxMail.id == message.id,
                            OutboxMail.attempts == message.attempts, values=values)


def purge(*, now: datetime | None = None) -> int:
    """Delete messages sent or given up on more than `KEEP_DAYS` ago; answers how many."""
    cutoff = (now or utcnow()) - timedelta(days=KEEP_DAYS)
    with session_scope() as session:
        return session.exec(delete(OutboxMail).where(OutboxMail.due_at.is_(None),
                                                     OutboxMail.created_at < cutoff)).rowcount or 0


def wake() -> None:
    """Have this process's sender drain now (called after a commit that wrote mail; any thread)."""
    for loop, ready in list(_senders):
        with contextlib.suppress(RuntimeError):  # that loop has closed
            loop.call_soon_threadsafe(ready.set)


async def send_forever() -> None:
    """Lifespan task: drain on start, on `wake` and every `POLL_SECONDS`, in a worker thread, never dying."""
    sender = (asyncio.get_running_loop(), asyncio.Event())
    _senders.append(sender)
    next_purge = time.monotonic()
    try:
        while True:
            sender[1].clear()
            try:
                await asyncio.to_thread(drain)
                if time.monotonic() >= next_purge:
                    next_purge = time.monotonic() + PURGE_EVERY_SECONDS
                    await asyncio.to_thread(purge)
            except Exception:
                log.exception("mail outbox: sending failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(sender[1].wait(), POLL_SECONDS)
    finally:
        _senders.remove(sender)
