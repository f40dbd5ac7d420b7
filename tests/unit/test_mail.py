"""Mail: queued after commit, sent over SMTP, retried on failure without failing the caller; what is sent for
purchases, decisions and updates; the SMTP URL; the dev mailbox (demo mode only)."""

from __future__ import annotations

import smtplib

import pytest

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations import mail as smtp
from marketplace.models import NotificationType
from marketplace.queue import huey
from marketplace.services import mail, notifications, purchases
from marketplace.services.admin import applications, moderation
from marketplace.services.errors import NotFound
from tests import factories
from tests.unit.test_purchases_service import _paid_intent


def test_mail_is_queued_only_when_the_transaction_commits(mailbox):
    message = mail.OutgoingMail(to="a@example.com", subject="Committed", text="hi")
    with pytest.raises(RuntimeError), session_scope() as session:
        mail.send_after_commit(session, mail.OutgoingMail(to="a@example.com", subject="Rolled back", text="x"))
        raise RuntimeError("the change failed")
    with session_scope() as session:
        mail.send_after_commit(session, message)
    assert [m.subject for m in mailbox.messages()] == ["Committed"]


def test_a_failed_send_is_retried_later_and_never_raises(mailbox, monkeypatch):
    """The SMTP server is down: the caller carries on, huey schedules a retry, which delivers once it is up."""
    real_send, calls = smtp.send, []

    def flaky(message: smtp.OutgoingMail, **kwargs: str) -> None:
        calls.append(message.subject)
        if len(calls) == 1:
            raise smtp.MailError("connection refused")
        real_send(message, **kwargs)

    monkeypatch.setattr(smtp, "send", flaky)
    mail.send(mail.OutgoingMail(to="r@example.com", subject="Retry me", text="x"))  # does not raise
    assert mailbox.messages() == []
    scheduled = huey.scheduled()
    assert len(scheduled) == 1 and scheduled[0].retries == settings.mail_retries - 1
    assert scheduled[0].retry_delay == settings.mail_retry_delay_seconds * 2  # back-off for the next one
    huey.execute(scheduled[0], timestamp=scheduled[0].eta)  # what the consumer does once the retry is due
    assert [m.subject for m in mailbox.messages()] == ["Retry me"] and calls == ["Retry me", "Retry me"]


def test_a_real_smtp_failure_is_a_mail_error():
    with pytest.raises(smtp.MailError):
        smtp.send(mail.OutgoingMail(to="x@example.com", subject="s", text="t"), smtp_url="smtp://127.0.0.1:1",
                  sender="a@example.com")


def test_a_queue_that_refuses_the_task_does_not_fail_the_caller(monkeypatch, caplog):
    def broken(*_args: object) -> None:
        raise ConnectionError("queue storage down")

    monkeypatch.setattr(mail, "deliver", broken)
    mail.send(mail.OutgoingMail(to="q@example.com", subject="Lost", text="x"))
    assert "could not queue mail" in caplog.text


def test_a_request_whose_mail_fails_still_succeeds(client, monkeypatch):
    monkeypatch.setattr(settings, "smtp_url", "smtp://127.0.0.1:1")  # nothing listens there
    response = client.post("/api/register", json={"username": "nomail", "email": "nomail@example.com",
                                                  "password": "secret123"})
    assert response.status_code == 201
    assert len(huey.scheduled()) == 1  # the confirmation waits for its retry


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
    buyer = factories.make_user("payer", email="payer@example.com")
    vendor = make_vendor("none")
    agent = make_agent(vendor, name="Mail Bot", price_cents=2999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    order = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id).order
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)  # idempotent: no 2nd mail
    receipt = mailbox.last("payer@example.com")
    assert receipt.subject == "Your receipt: Mail Bot"
    for part in ("Agent: Mail Bot", "Amount: 29.99 USD", f"Order number: {order.id[-8:]}"):
        assert part in receipt.text
    assert f"{settings.public_url}/api/agents/{agent.id}/download" in receipt.links
    sale = mailbox.last(vendor.email)
    assert sale.subject == "New sale: Mail Bot" and "Amount: 29.99 USD" in sale.text
    assert len(mailbox.messages()) == 2


def test_a_free_claim_sends_a_receipt_but_no_sale_mail(mailbox):
    buyer, vendor = factories.make_user("freebie"), factories.make_vendor("giver")
    agent = factories.make_agent(vendor, name="Free Bot", price_cents=0)
    purchases.claim_free_agent(actor=buyer, agent_id=agent.id)
    assert [(m.to, m.subject) for m in mailbox.messages()] == [([buyer.email], "Your receipt: Free Bot")]


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
    with session_scope() as session:
        moderation._notify_buyers(session, session.get(type(pending), pending.id))
    assert len(mailbox.messages()) == 1  # no buyers yet: no update mail
    buyer = factories.make_user("owner")
    factories.make_purchase(buyer, pending)
    with session_scope() as session:
        moderation._notify_buyers(session, session.get(type(pending), pending.id))
    update = mailbox.last(buyer.email)
    assert update.subject == moderation.BUYER_UPDATE_TITLE and f"{settings.public_url}/dashboard" in update.links


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
        mail.send(mail.OutgoingMail(to=f"m{n}@example.com", subject=f"Mail {n}", text=f"see http://x.test/{n}"))
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
