"""Outside immediate mode, committed mail is handed to the queue by a worker thread, off the request's path."""

import threading
from types import SimpleNamespace

from marketplace import db
from marketplace.services import mail


def test_committed_mail_is_handed_over_off_the_callers_thread(monkeypatch):
    handed: list[tuple[str, str]] = []
    done = threading.Event()

    def send(message):
        handed.append((message.subject, threading.current_thread().name))
        done.set()

    # Only the hand-off's check sees a queue outside immediate mode: switching the real queue's mode would
    # reopen its storage, for every test after this one.
    monkeypatch.setattr(mail, "huey", SimpleNamespace(immediate=False))
    monkeypatch.setattr(mail, "send", send)
    with db.session_scope() as session:
        mail.send_after_commit(session, mail.OutgoingMail(to="a@example.com", subject="Receipt", text="x"))
        assert handed == []
    assert done.wait(5)
    assert handed[0][0] == "Receipt" and handed[0][1].startswith("mail-handoff")

    handed.clear()
    try:
        with db.session_scope() as session:
            mail.send_after_commit(session, mail.OutgoingMail(to="a@example.com", subject="Dropped", text="x"))
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    mail._handoff.submit(lambda: None).result(5)  # the worker has nothing left
    assert handed == []
