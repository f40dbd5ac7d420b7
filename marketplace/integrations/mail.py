"""Sending one e-mail over SMTP to `SMTP_URL` (a real relay in production, the local catcher in development).

`smtp://[user:password@]host[:port]` speaks plain SMTP and upgrades with STARTTLS when the server offers it;
`smtps://` connects over TLS. Any failure raises `MailError`, so the task queue can retry the message.
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import unquote, urlsplit

TIMEOUT_SECONDS = 15


class MailError(Exception):
    """The message was not handed over to the SMTP server."""


@dataclass(frozen=True)
class OutgoingMail:
    to: str
    subject: str
    text: str
    html: str | None = None  # an HTML alternative of `text` (already safe: built from escaped or sanitised parts)


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    tls: bool
    username: str | None
    password: str | None


def parse_smtp_url(url: str) -> SmtpTarget:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise MailError(f"SMTP_URL must look like smtp://host:port or smtps://host:port, not {parts.scheme}://…")
    tls = parts.scheme == "smtps"
    return SmtpTarget(
        host=parts.hostname,
        port=parts.port or (465 if tls else 25),
        tls=tls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def build_message(mail: OutgoingMail, *, sender: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = mail.to
    message["Subject"] = mail.subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain="agentmarket.local")
    message.set_content(mail.text)
    if mail.html:
        message.add_alternative(mail.html, subtype="html")
    return message


def send(mail: OutgoingMail, *, smtp_url: str, sender: str) -> None:
    target = parse_smtp_url(smtp_url)
    message = build_message(mail, sender=sender)
    try:
        if target.tls:
            client: smtplib.SMTP = smtplib.SMTP_SSL(target.host, target.port, timeout=TIMEOUT_SECONDS,
                                                   context=ssl.create_default_context())
        else:
            client = smtplib.SMTP(target.host, target.port, timeout=TIMEOUT_SECONDS)
        with client:
            client.ehlo()
            if not target.tls and client.has_extn("starttls"):
                client.starttls(context=ssl.create_default_context())
                client.ehlo()
            if target.username:
                client.login(target.username, target.password or "")
            client.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        raise MailError(f"could not send to {target.host}:{target.port}: {exc}") from exc
