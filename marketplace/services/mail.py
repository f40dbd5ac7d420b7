"""Outgoing e-mail: queued, sent by the task queue's worker, retried on failure, never failing a request.

Services that change data queue their mail with `send_after_commit(session, ...)`: it is handed to the
queue only when the transaction commits, so a rolled-back change sends nothing. The hand-over runs on a
small worker thread, off the request's path (putting a task in the SQLite queue is a synced write: two of
them were a sixth of a purchase completion's time); the thread drains its backlog when the process exits
normally, so only a crash in the milliseconds after a commit can lose that commit's mail. With the queue in
immediate mode (tests) mail is still handed over inline. `send` queues at once
(for mail not tied to a transaction). Message texts live in `services/mail_texts.py`.

In demo mode the local SMTP catcher's mailbox is readable (`dev_mailbox`), newest first.
"""

from __future__ import annotations

import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session

from marketplace.config import settings
from marketplace.integrations import mail as smtp
from marketplace.integrations.mail import OutgoingMail
from marketplace.queue import huey
from marketplace.services.paging import check_page

log = logging.getLogger(__name__)

OUTBOX_KEY = "marketplace_outbox"
LINK_RE = re.compile(r"https?://[^\s<>\"')]+")
MAX_MAILBOX = 200

__all__ = ["OutgoingMail", "dev_mailbox", "send", "send_after_commit"]


@huey.task(retries=settings.mail_retries, retry_delay=settings.mail_retry_delay_seconds, retry_backoff=2,
           name="send_mail")
def deliver(to: str, subject: str, text: str) -> None:
    """The queued job: one SMTP hand-over; an exception makes huey try again later (with back-off)."""
    try:
        smtp.send(OutgoingMail(to=to, subject=subject, text=text), smtp_url=settings.smtp_url,
                  sender=settings.mail_from)
    except smtp.MailError as exc:
        log.warning("mail to %s (%s) not sent, will retry: %s", to, subject, exc)
        raise
    log.info("mail to %s sent: %s", to, subject)


def send(message: OutgoingMail) -> None:
    """Queue one message. A queue that cannot take it is logged, never raised: mail must not fail a request."""
    try:
        deliver(message.to, message.subject, message.text)
    except Exception:
        log.exception("could not queue mail to %s (%s)", message.to, message.subject)


def send_after_commit(session: Session, message: OutgoingMail) -> None:
    """Queue `message` once `session` commits (dropped if it rolls back)."""
    session.info.setdefault(OUTBOX_KEY, []).append(message)


_handoff = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mail-handoff")


def _send_all(messages: list[OutgoingMail]) -> None:
    for message in messages:
        send(message)


@event.listens_for(Session, "after_commit")
def _flush_outbox(session: Session) -> None:
    messages = session.info.pop(OUTBOX_KEY, [])
    if not messages:
        return
    if huey.immediate:
        _send_all(messages)
        return
    try:
        _handoff.submit(_send_all, messages)
    except RuntimeError:  # the interpreter is shutting down: hand over inline
        _send_all(messages)


@event.listens_for(Session, "after_rollback")
def _drop_outbox(session: Session) -> None:
    session.info.pop(OUTBOX_KEY, None)


# --- the dev mailbox (demo mode) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CaughtMail:
    to: list[str]
    subject: str
    text: str
    links: list[str]
    received_at: str


def _parse(line: str) -> CaughtMail | None:
    try:
        data: dict[str, Any] = json.loads(line)
    except ValueError:
        return None  # a line still being written
    text = str(data.get("text", ""))
    return CaughtMail(to=[str(t) for t in data.get("to", [])], subject=str(data.get("subject", "")), text=text,
                      links=LINK_RE.findall(text), received_at=str(data.get("receivedAt", "")))


def dev_mailbox(*, limit: int = 50, to: str | None = None) -> list[CaughtMail]:
    """What the local SMTP catcher received, newest first. Who may read it (demo mode, admins) is
    `services.demo.dev_mailbox`'s rule; this only reads the file."""
    check_page(limit=limit, max_limit=MAX_MAILBOX)
    path = Path(settings.dev_mailbox_file)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    wanted = (to or "").strip().lower()
    found: list[CaughtMail] = []
    for line in reversed(lines):
        caught = _parse(line)
        if caught is None or (wanted and wanted not in (t.lower() for t in caught.to)):
            continue
        found.append(caught)
        if len(found) >= limit:
            break
    return found
