"""Outgoing e-mail: written to the outbox in the transaction of the change that causes it, sent afterwards.

`send_after_commit(session, message)` adds the message to the `mail_outbox` table inside the caller's
transaction: it exists exactly when the change does (a rolled-back change sends nothing, and a crash after the
commit loses nothing). Once the transaction commits, this process's sender is woken (services/mail_outbox.py);
it, or the sender of any other process on the same database, sends the message over SMTP, retrying with
back-off, and never fails the request that caused it. Message texts live in `services/mail_texts.py`.

In demo mode the local SMTP catcher's mailbox is readable (`dev_mailbox`), newest first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session

from marketplace.config import settings
from marketplace.integrations.mail import OutgoingMail
from marketplace.models import OutboxMail
from marketplace.services import mail_outbox
from marketplace.services.paging import check_page

WROTE_MAIL = "marketplace_wrote_mail"
LINK_RE = re.compile(r"https?://[^\s<>\"')]+")
MAX_MAILBOX = 200

__all__ = ["OutgoingMail", "compose_after_commit", "dev_mailbox", "send_after_commit"]


def send_after_commit(session: Session, message: OutgoingMail) -> None:
    """Put `message` in the outbox inside `session`'s transaction: sent once that commits, never if it rolls back."""
    session.add(OutboxMail(recipient=message.to, subject=message.subject, body=message.text, html=message.html))
    session.info[WROTE_MAIL] = True


def compose_after_commit(session: Session, *, composer: str, to: str) -> None:
    """As `send_after_commit` for a message the named composer writes when it is sent (`mail_outbox.composer`):
    the request does the same small write whatever the message will turn out to be, or whether there is one."""
    session.add(OutboxMail(recipient=to, subject="", body="", composer=composer))
    session.info[WROTE_MAIL] = True


@event.listens_for(Session, "after_commit")
def _wake_sender(session: Session) -> None:
    if session.info.pop(WROTE_MAIL, False):
        mail_outbox.wake()


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    session.info.pop(WROTE_MAIL, None)


# --- the dev mailbox (demo mode) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CaughtMail:
    to: list[str]
    subject: str
    text: str
    links: list[str]
    received_at: str
    html: str = ""  # the HTML part, if the message has one


def _parse(line: str) -> CaughtMail | None:
    try:
        data: dict[str, Any] = json.loads(line)
    except ValueError:
        return None  # a line still being written
    text = str(data.get("text", ""))
    return CaughtMail(to=[str(t) for t in data.get("to", [])], subject=str(data.get("subject", "")), text=text,
                      links=LINK_RE.findall(text), received_at=str(data.get("receivedAt", "")),
                      html=str(data.get("html", "")))


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
