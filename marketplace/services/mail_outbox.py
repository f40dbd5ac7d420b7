"""Sending the mail outbox (`mail_outbox`, written by services/mail.py) over SMTP, from any number of processes.

`drain` sends every message that is due. Messages are claimed first, a batch at a time, with a conditional
update (services/decisions.py: still due) that moves their `due_at` past a lease and counts the attempt, and
that claim commits before the SMTP hand-over: two senders (threads or processes on one database) never send the
same message, and a message whose sender died after claiming it is due again once the lease ends. A sent message
is marked sent; a failed one is due again `MAIL_RETRY_DELAY_SECONDS` later, doubling after each failure, and is given up
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

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import bindparam, update
from sqlmodel import Session, delete, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations import mail as smtp
from marketplace.models import OutboxMail
from marketplace.models.base import utcnow
from marketplace.services import background, decisions
from marketplace.services.errors import Conflict

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=2)  # a claimed message's sender has this long to send it (SMTP times out after 15 s)
CLAIM_BATCH = 10
POLL_SECONDS = 2.0
PURGE_EVERY_SECONDS = 3600
KEEP_DAYS = 7

_worker = background.Worker("mail outbox", poll_seconds=lambda: POLL_SECONDS)
_senders = _worker.waiting  # this process's running senders
_next_purge = 0.0
Composer = Callable[[Session, str], smtp.OutgoingMail | None]
_composers: dict[str, Composer] = {}


def composer(name: str) -> Callable[[Composer], Composer]:
    """Register `fn(session, recipient) -> OutgoingMail | None` to write the outbox messages named `name`."""

    def register(fn: Composer) -> Composer:
        _composers[name] = fn
        return fn

    return register


def drain(*, now: datetime | None = None) -> int:
    """Send every message due at `now` (default: the current time); answers how many were sent.

    Messages are claimed a batch at a time (one statement) and the sent ones marked in one more: per purchase
    (a receipt and a sale) that is three statements instead of eight (issue 21). A batch's messages are sent
    one after another under its lease; once half of the lease is gone the rest is left to the lease's end."""
    sent = 0
    while True:
        moment = now or utcnow()
        batch = _claim_due(moment)
        if not batch:
            return sent
        claimed_at, delivered = time.monotonic(), []
        for message in batch:
            if time.monotonic() - claimed_at > LEASE.total_seconds() / 2:
                break  # a slow SMTP server: the rest goes out after the lease, never twice
            ready = _compose(message) if message.composer else message
            if ready is not None and _send(ready, moment):
                delivered.append(ready)
        _mark_sent(delivered)
        sent += len(delivered)


def _claim_due(moment: datetime) -> list[OutboxMail]:
    """Take up to `CLAIM_BATCH` due messages for one attempt each, committed at once: the update's condition
    (still due) lets two senders never take the same message."""
    table = OutboxMail.__table__
    due = (select(table.c.id).where(table.c.due_at <= moment).order_by(table.c.due_at, table.c.created_at)
           .limit(CLAIM_BATCH).scalar_subquery())
    claim = (update(table).where(table.c.id.in_(due), table.c.due_at <= moment)
             .values(due_at=moment + LEASE, attempts=table.c.attempts + 1)
             .returning(table.c.id, table.c.recipient, table.c.subject, table.c.body, table.c.html, table.c.composer,
                        table.c.attempts, table.c.created_at))
    with session_scope() as session:
        rows = list(session.execute(claim).all())
    # RETURNING has no order (PostgreSQL's follows the rows' places on disk): send in the order they were queued.
    rows.sort(key=lambda row: row.created_at)
    return [OutboxMail(id=r.id, recipient=r.recipient, subject=r.subject, body=r.body, html=r.html,
                       composer=r.composer, attempts=r.attempts) for r in rows]


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
                values |= {"recipient": outgoing.to, "subject": outgoing.subject, "body": outgoing.text,
                           "html": outgoing.html}
            decisions.claim(session, OutboxMail, OutboxMail.id == message.id, OutboxMail.attempts == message.attempts,
                            values=values, conflict="lease lost")
    except Conflict:
        return None
    if outgoing is None:
        return None
    return OutboxMail(id=message.id, recipient=outgoing.to, subject=outgoing.subject, body=outgoing.text,
                      html=outgoing.html, attempts=message.attempts)


def _send(message: OutboxMail, moment: datetime) -> bool:
    """Hand the message to SMTP; a failure is recorded here (retry or give up), a success by `_mark_sent`."""
    try:
        smtp.send(smtp.OutgoingMail(to=message.recipient, subject=message.subject, text=message.body,
                                    html=message.html),
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
        return False
    log.info("mail to %s sent: %s", message.recipient, message.subject)
    return True


def _mark_sent(messages: list[OutboxMail]) -> None:
    """Mark sent messages in one statement, each unless its lease ran out and another sender claimed it since."""
    if not messages:
        return
    table = OutboxMail.__table__
    mark = (update(table).where(table.c.id == bindparam("message_id"), table.c.attempts == bindparam("tried"))
            .values(due_at=None, sent_at=bindparam("sent_at")))
    sent_at = utcnow()
    with session_scope() as session:
        session.connection().execute(mark, [{"message_id": m.id, "tried": m.attempts, "sent_at": sent_at}
                                            for m in messages])


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
    _worker.wake()


def _round() -> None:
    """One round of the sender: drain, and purge once an hour."""
    global _next_purge
    drain()
    if time.monotonic() >= _next_purge:
        _next_purge = time.monotonic() + PURGE_EVERY_SECONDS
        purge()


async def send_forever() -> None:
    """Lifespan task: drain on start, on `wake` and every `POLL_SECONDS`, in a worker thread, never dying."""
    await _worker.run_forever(_round)
