"""Mail: written to the outbox with the change that causes it, sent over SMTP, retried on failure without
failing the caller; what is sent for purchases, decisions and updates; the SMTP URL; the dev mailbox (demo mode
only). The outbox's senders and crashes: tests/unit/test_mail_outbox.py."""

from __future__ import annotations

import smtplib
from datetime import timedelta

import pytest
from sqlmodel import select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations import mail as smtp
from marketplace.models import AgentRevision, NotificationType, OutboxMail
from marketplace.models.base import utcnow
from marketplace.services import accounts, mail, mail_outbox, notifications, purchases
from marketplace.services.admin import applications, moderation
from marketplace.services.errors import NotFound
from tests import factories
from tests.unit.test_purchases_service import _paid_intent


def _outbox() -> list[OutboxMail]:
    with session_scope() as session:
        return list(session.exec(select(OutboxMail).order_by(OutboxMail.created_at)).all())


def _write(subject: str, to: str = "a@example.com", text: str = "x") -> None:
    with session_scope() as session:
        mail.send_after_commit(session, mail.OutgoingMail(to=to, subject=subject, text=text))


def test_mail_is_in_the_outbox_exactly_when_the_transaction_commits(mailbox):
    with pytest.raises(RuntimeError), session_scope() as session:
        mail.send_after_commit(session, mail.OutgoingMail(to="a@example.com", subject="Rolled back", text="x"))
        raise RuntimeError("the change failed")
    assert _outbox() == []
    _write("Committed", text="hi")
    [row] = _outbox()
    assert (row.recipient, row.subject, row.body, row.attempts, row.sent_at) == (
        "a@example.com", "Committed", "hi", 0, None)
    assert [m.subject for m in mailbox.messages()] == ["Committed"]  # the fixture sends what is due first
    [row] = _outbox()
    assert (row.attempts, row.due_at, row.last_error) == (1, None, None) and row.sent_at is not None
    assert mail_outbox.drain() == 0 and len(mailbox.messages()) == 1  # sent once


def test_a_failed_send_is_retried_later_with_back_off_and_never_raises(mailbox, monkeypatch):
    """The SMTP server is down: the caller carries on, the message is due again later, then delivered."""
    real_send, calls = smtp.send, []

    def flaky(message: smtp.OutgoingMail, **kwargs: str) -> None:
        calls.append(message.subject)
        if len(calls) <= 2:
            raise smtp.MailError("connection refused")
        real_send(message, **kwargs)

    monkeypatch.setattr(smtp, "send", flaky)
    _write("Retry me")
    start = utcnow()
    assert mail_outbox.drain(now=start) == 0  # does not raise
    [row] = _outbox()
    delay = timedelta(seconds=settings.mail_retry_delay_seconds)
    assert (row.attempts, row.due_at, row.last_error) == (1, start + delay, "connection refused")
    assert mail_outbox.drain(now=start + delay - timedelta(seconds=1)) == 0 and calls == ["Retry me"]  # not yet
    assert mail_outbox.drain(now=start + delay) == 0
    assert _outbox()[0].due_at == start + 3 * delay  # the next wait is twice as long
    assert mail_outbox.drain(now=start + 3 * delay) == 1
    assert [m.subject for m in mail.dev_mailbox()] == ["Retry me"] and calls == ["Retry me"] * 3


def test_a_message_is_given_up_after_the_retries(monkeypatch, caplog):
    def down(message: smtp.OutgoingMail, **kwargs: str) -> None:
        raise smtp.MailError("no route to host")

    monkeypatch.setattr(smtp, "send", down)
    _write("Never")
    moment = utcnow()
    for _ in range(settings.mail_retries + 1):
        mail_outbox.drain(now=moment)
        moment += timedelta(days=1)
    [row] = _outbox()
    assert (row.attempts, row.due_at, row.sent_at) == (settings.mail_retries + 1, None, None)
    assert row.last_error == "no route to host" and "given up" in caplog.text
    assert mail_outbox.drain(now=moment + timedelta(days=1)) == 0


def test_an_unexpected_error_counts_as_a_failed_attempt(monkeypatch, caplog):
    def broken(message: smtp.OutgoingMail, **kwargs: str) -> None:
        raise UnicodeError("bad header")

    monkeypatch.setattr(smtp, "send", broken)
    _write("Odd")
    assert mail_outbox.drain() == 0
    [row] = _outbox()
    assert (row.attempts, row.last_error) == (1, "bad header") and row.due_at > utcnow()
    assert "unexpected error" in caplog.text


def test_a_real_smtp_failure_is_a_mail_error():
    with pytest.raises(smtp.MailError):
        smtp.send(mail.OutgoingMail(to="x@example.com", subject="s", text="t"), smtp_url="smtp://127.0.0.1:1",
                  sender="a@example.com")


def test_a_request_whose_mail_fails_still_succeeds(client, monkeypatch):
    monkeypatch.setattr(settings, "smtp_url", "smtp://127.0.0.1:1")  # nothing listens there
    response = client.post("/api/register", json={"username": "nomail", "email": "nomail@example.com",
                                                  "password": "secret123"})
    assert response.status_code == 201
    assert mail_outbox.drain() == 0
    [row] = _outbox()  # the confirmation waits for its retry
    assert (row.recipient, row.attempts) == ("nomail@example.com", 1) and row.due_at > utcnow()


def test_finished_mail_is_purged_after_a_week():
    for subject in ("Old and sent", "Old, not sent yet", "Sent today"):
        _write(subject)
    with session_scope() as session:
        for row in session.exec(select(OutboxMail)).all():
            if row.subject.startswith("Old"):
                row.created_at -= timedelta(days=mail_outbox.KEEP_DAYS, minutes=1)
            if "not sent" not in row.subject:
                row.due_at, row.sent_at = None, utcnow()
            session.add(row)
    assert mail_outbox.purge() == 1
    assert sorted(r.subject for r in _outbox()) == ["Old, not sent yet", "Sent today"]


@pytest.mark.parametrize(("url", "expected"), [
    ("smtp://127.0.0.1:1025", smtp.SmtpTarget("127.0.0.1", 1025, False, None, None)),
    ("smtps://u%40x:p%3Aw@mail.example.com", smtp.SmtpTarget("mail.example.com", 465, True, "u@x", "p:w")),
    ("smtp://relay", smtp.SmtpTarget("relay", 25, False, None, None)),
])
def test_smtp_url(url, expected):
    assert smtp.parse_smtp_url(url) == expected


def test_a_bad_smtp_url_is_a_mail_error():
    with pytest.raises(smtp.MailError):
        smtp.parse_smtp_url("http://example.com")


def test_smtp_starttls_and_login_when_configured(monkeypatch):
    seen: list[str] = []

    class FakeSMTP:
        def __init__(self, host: str, port: int, timeout: float) -> None:
            seen.append(f"connect {host}:{port}")

        def __enter__(self) -> FakeSMTP:
            return self

        def __exit__(self, *_: object) -> None:
            seen.append("quit")

        def ehlo(self) -> None:
            seen.append("ehlo")

        def has_extn(self, name: str) -> bool:
            return name == "starttls"

        def starttls(self, context: object) -> None:
            seen.append("starttls")

        def login(self, user: str, password: str) -> None:
            seen.append(f"login {user}")

        def send_message(self, message: object) -> None:
            seen.append("send")

    monkeypatch.setattr(smtplib, "SMTP", FakeSMTP)
    smtp.send(mail.OutgoingMail(to="x@example.com", subject="s", text="t"), smtp_url="smtp://me:pw@relay:587",
              sender="a@example.com")
    assert seen == ["connect relay:587", "ehlo", "starttls", "ehlo", "login me", "send", "quit"]


# --- what is sent ----------------------------------------------------------------------------------------------


def test_receipt_and_sale_mail_for_a_paid_purchase(stripe_standin, make_vendor, make_agent, mailbox):
    buyer = factories.make_user("payer", email="payer@example.com", first_name="Carla", last_name="Customer")
    vendor = make_vendor("none")
    agent = make_agent(vendor, name="Mail Bot", price_cents=2999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    order = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id).order
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)  # idempotent: no 2nd mail
    receipt = mailbox.last("payer@example.com")
    assert receipt.subject == "Your receipt: Mail Bot"
    for part in ("Agent: Mail Bot", "Amount: $29.99 per month\n", f"Order number: {order.id[-8:]}"):
        assert part in receipt.text
    assert f"{settings.public_url}/api/agents/{agent.id}/download" in receipt.links
    sale = mailbox.last(vendor.email)
    assert sale.subject == "New sale: Mail Bot" and "Amount: $29.99\n" in sale.text
    # One greeting rule for both sides (names.greeting_name): the first name, else the username.
    assert receipt.text.startswith("Hi Carla,\n") and sale.text.startswith(f"Hi {vendor.username},\n")
    assert len(mailbox.messages()) == 2


def test_a_free_claim_sends_a_receipt_but_no_sale_mail(mailbox):
    buyer, vendor = factories.make_user("freebie"), factories.make_vendor("giver")
    agent = factories.make_agent(vendor, name="Free Bot", price_cents=0)
    purchases.claim_free_agent(actor=buyer, agent_id=agent.id)
    assert [(m.to, m.subject) for m in mailbox.messages()] == [([buyer.email], "Your receipt: Free Bot")]
    assert mailbox.last(buyer.email).text.startswith("Hi freebie,\n")  # no name given: the username


def test_every_mail_greets_by_the_one_name_rule(mailbox):
    """Account mails and notification mails greet as the receipt and the pages do."""
    named = factories.make_user("named", first_name="  Nora ", last_name="Nameless", verified=False)
    blank = factories.make_user("blank", first_name="   ", last_name="")
    admin = factories.make_admin("greeter")
    factories.make_application(blank)
    applications.approve(actor=admin, user_id=blank.id)
    assert mailbox.last(blank.email).text.startswith("Hi blank,\n")  # blank names are no names
    accounts.request_password_reset(email=named.email, address="198.51.100.7")
    assert mailbox.last(named.email, "Reset your password").text.startswith("Hi Nora,\n")


def test_application_decisions_go_by_mail(mailbox):
    admin = factories.make_admin("decider")
    yes, no = factories.make_user("hopeful"), factories.make_user("hopeless")
    factories.make_application(yes)
    factories.make_application(no)
    applications.approve(actor=admin, user_id=yes.id)
    applications.reject(actor=admin, user_id=no.id)
    assert mailbox.last(yes.email).subject == applications.APPROVED_TITLE
    assert mailbox.last(no.email).subject == applications.REJECTED_TITLE
    assert f"{settings.public_url}/vendor" in mailbox.last(yes.email).links


def test_agent_decisions_and_update_notices_go_by_mail(mailbox):
    admin, vendor = factories.make_admin("moderator"), factories.make_vendor("maker")
    pending = factories.make_agent(vendor, name="Pending Bot", status="pending", files=1)
    moderation.approve(actor=admin, agent_id=pending.id)
    assert mailbox.last(vendor.email).subject == moderation.APPROVED_TITLE
    revision = AgentRevision(agent_id=pending.id, version=2, version_label="2.0", release_notes="- New **tools**")
    with session_scope() as session:
        moderation._notify_buyers(session, session.get(type(pending), pending.id), revision)
    assert len(mailbox.messages()) == 1  # no buyers yet: no update mail
    buyer = factories.make_user("owner")
    factories.make_purchase(buyer, pending)
    with session_scope() as session:
        moderation._notify_buyers(session, session.get(type(pending), pending.id), revision)
    update = mailbox.last(buyer.email)
    assert update.subject == moderation.BUYER_UPDATE_TITLE and f"{settings.public_url}/dashboard" in update.links
    # Readable text in the text part (no Markdown marks), the notes' safe HTML in the HTML part.
    assert "Version 2.0 of Pending Bot is available" in update.text and "Release notes:\n- New tools\n" in update.text
    assert "**" not in update.text
    assert "<li>New <strong>tools</strong></li>" in update.html
    assert f'<a href="{settings.public_url}/dashboard">' in update.html


def test_sale_and_other_notifications_are_not_mailed_twice(mailbox):
    user = factories.make_user("quiet")
    with session_scope() as session:
        notifications.notify(session, user_id=user.id, type=NotificationType.SALE, title="New sale", message="m")
        notifications.notify(session, user_id=user.id, type=NotificationType.OTHER, title="Other", message="m")
    assert mailbox.messages() == []


# --- dev mailbox -----------------------------------------------------------------------------------------------


def test_dev_mailbox_api_newest_first_with_links(client, login, mailbox, demo_mode):
    login(factories.make_admin())  # it shows every link the app mailed: admins only (tests/api/test_demo_mode_api)
    for n in (1, 2):
        _write(f"Mail {n}", to=f"m{n}@example.com", text=f"see http://x.test/{n}")
        mail_outbox.drain()
    answer = client.get("/api/dev/mail").json()
    assert [(m["to"], m["subject"], m["links"]) for m in answer] == [
        ("m2@example.com", "Mail 2", ["http://x.test/2"]), ("m1@example.com", "Mail 1", ["http://x.test/1"])]
    assert [m["subject"] for m in client.get("/api/dev/mail", params={"to": "M1@example.com"}).json()] == ["Mail 1"]
    assert client.get("/api/dev/mail", params={"limit": 0}).status_code == 422


def test_dev_mailbox_is_404_outside_demo_mode(client, login):
    from marketplace.services import demo

    admin = factories.make_admin()
    login(admin)
    assert not settings.demo_enabled  # off unless DEMO_MODE=1
    assert client.get("/api/dev/mail").status_code == 404
    with pytest.raises(NotFound):
        demo.dev_mailbox(actor=admin)
