"""The mail outbox's senders: several at once never send a message twice; a process killed right after its
commit, or a sender killed after claiming a message, loses nothing (the lease ends and the mail goes out);
the app's sender runs at start and whenever a commit wrote mail."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading

from sqlalchemy import event, update
from sqlmodel import select

from marketplace.config import PROJECT_ROOT
from marketplace.db import engine, session_scope
from marketplace.integrations import mail as smtp
from marketplace.models import OutboxMail, VendorApplication
from marketplace.models.base import utcnow
from marketplace.services import mail, mail_outbox
from marketplace.services.admin import applications
from tests import factories

# Run in a child process on the tests' database; each ends by killing itself with SIGKILL (no clean-up runs).
COMMIT_THEN_DIE = """
import os, signal, sys
from marketplace.db import engine, session_scope
from marketplace.models import User
from marketplace.services.admin import applications
with session_scope() as session:
    admin = session.get(User, sys.argv[1])
applications.reject(actor=admin, user_id=sys.argv[2])
os.kill(os.getpid(), signal.SIGKILL)
"""
CLAIM_THEN_DIE = """
import os, signal
from marketplace.integrations import mail as smtp
from marketplace.services import mail_outbox
smtp.send = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
mail_outbox.drain()
"""


def _killed(script: str, *args: str) -> None:
    # APP_ENV=local: the child behaves as the app does (no test shortcuts).
    child = subprocess.run([sys.executable, "-c", script, *args], cwd=PROJECT_ROOT, capture_output=True, text=True,
                           env={**os.environ, "APP_ENV": "local"}, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr


def _write(subject: str, to: str = "a@example.com") -> None:
    with session_scope() as session:
        mail.send_after_commit(session, mail.OutgoingMail(to=to, subject=subject, text="x"))


def test_a_process_killed_right_after_its_commit_loses_no_mail(mailbox):
    admin, applicant = factories.make_admin(), factories.make_user()
    factories.make_application(applicant)
    _killed(COMMIT_THEN_DIE, admin.id, applicant.id)
    with session_scope() as session:
        assert session.exec(select(VendorApplication.status)).one() == "rejected"  # the change committed
    assert [m.subject for m in mailbox.messages(applicant.email)] == [applications.REJECTED_TITLE]  # and its mail


def test_a_sender_killed_after_claiming_a_message_leaves_it_to_another_once_its_lease_ends(mailbox):
    _write("Survivor")
    _killed(CLAIM_THEN_DIE)
    with session_scope() as session:
        row = session.exec(select(OutboxMail)).one()
    assert (row.attempts, row.sent_at) == (1, None)  # claimed, never sent
    assert mail_outbox.drain() == 0  # still leased to the dead sender
    assert mail_outbox.drain(now=utcnow() + mail_outbox.LEASE) == 1
    assert [m.subject for m in mail.dev_mailbox()] == ["Survivor"]
    assert mail_outbox.drain(now=utcnow() + 2 * mail_outbox.LEASE) == 0


def test_senders_draining_at_once_send_each_message_exactly_once(mailbox):
    for n in range(20):
        _write(f"Message {n}", to=f"m{n}@example.com")
    barrier, sent = threading.Barrier(4), []

    def sender() -> None:
        barrier.wait()
        sent.append(mail_outbox.drain())

    threads = [threading.Thread(target=sender) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(sent) == 20
    assert sorted(m.subject for m in mail.dev_mailbox(limit=100)) == sorted(f"Message {n}" for n in range(20))


def test_a_purchase_s_two_messages_cost_three_statements(mailbox):
    """One claim takes both, one statement marks both sent, one finds nothing more due (issue 21: the outbox
    was 6% of a worker's CPU under the websocket load at eight statements per purchase)."""
    with session_scope() as session:  # a receipt and a sale, as a purchase writes them
        mail.send_after_commit(session, mail.OutgoingMail(to="buyer@example.com", subject="Receipt", text="r"))
        mail.send_after_commit(session, mail.OutgoingMail(to="vendor@example.com", subject="Sale", text="s"))
    statements: list[str] = []

    def on_statement(_conn, _cursor, statement, *_args):
        statements.append(statement.split()[0].upper())

    event.listen(engine(), "before_cursor_execute", on_statement)
    try:
        assert mail_outbox.drain() == 2
    finally:
        event.remove(engine(), "before_cursor_execute", on_statement)
    assert statements == ["UPDATE", "UPDATE", "UPDATE"], statements
    with session_scope() as session:
        rows = session.exec(select(OutboxMail)).all()
    assert [(r.attempts, r.due_at, r.sent_at is not None) for r in rows] == [(1, None, True)] * 2
    assert sorted(m.subject for m in mail.dev_mailbox()) == ["Receipt", "Sale"]


def test_the_app_sender_runs_at_start_and_when_a_commit_wrote_mail(monkeypatch):
    monkeypatch.setattr(mail_outbox, "POLL_SECONDS", 3600)  # only a wake can start another round
    sent: queue.Queue[str] = queue.Queue()
    real_send = smtp.send

    def send(message: smtp.OutgoingMail, **kwargs: str) -> None:
        real_send(message, **kwargs)
        sent.put(message.subject)

    monkeypatch.setattr(smtp, "send", send)
    _write("Before start")

    async def serve() -> list[str]:
        task = asyncio.create_task(mail_outbox.send_forever())
        first = await asyncio.to_thread(sent.get, timeout=30)
        await asyncio.to_thread(_write, "After a commit")  # a request's thread commits mail
        second = await asyncio.to_thread(sent.get, timeout=30)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return [first, second]

    assert asyncio.run(serve()) == ["Before start", "After a commit"]
    assert mail_outbox._senders == []  # the stopped sender is no longer woken


def test_a_sender_loop_survives_a_failed_round(monkeypatch, caplog):
    rounds: queue.Queue[int] = queue.Queue()

    def drain() -> int:
        rounds.put(1)
        raise RuntimeError("database away")

    monkeypatch.setattr(mail_outbox, "drain", drain)
    monkeypatch.setattr(mail_outbox, "POLL_SECONDS", 0.01)

    async def serve() -> None:
        task = asyncio.create_task(mail_outbox.send_forever())
        for _ in range(2):
            await asyncio.to_thread(rounds.get, timeout=30)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(serve())
    assert "sending failed" in caplog.text


def test_mail_goes_out_in_the_order_it_was_queued(mailbox):
    """A batch's claim answers its rows in no set order (PostgreSQL's follows where they sit on disk, which
    an update changes): they are sent in the order they were queued."""
    for n in range(1, 6):
        _write(f"Mail {n}")
    with session_scope() as session:  # on PostgreSQL the first two rows' new versions go to the table's end
        first = select(OutboxMail.id).order_by(OutboxMail.created_at).limit(2).scalar_subquery()
        session.execute(update(OutboxMail).where(OutboxMail.id.in_(first)).values(attempts=OutboxMail.attempts))
    mail_outbox.drain()
    assert [m.subject for m in reversed(mailbox.messages())] == [f"Mail {n}" for n in range(1, 6)]
