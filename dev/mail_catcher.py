"""`python -m dev.mail_catcher --port 1025 --mailbox data/dev-mailbox.jsonl`: a local SMTP server that keeps mail.

Development and test tooling, never imported by the product. The app speaks plain SMTP to it exactly as to a
real relay; every message it receives is appended to the mailbox file as one JSON line (to, from, subject,
text, html (its HTML part, if any), receivedAt), which the app shows in demo mode at `GET /api/dev/mail` and on
the `/dev/mail` page.
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

MAX_MESSAGE_BYTES = 1_000_000


def _text_of(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain", "html"))
    return body.get_content().replace("\r\n", "\n") if body is not None else ""


def _html_of(message: EmailMessage) -> str:
    """The HTML alternative of a message that has one (else empty)."""
    body = message.get_body(preferencelist=("html",))
    return body.get_content().replace("\r\n", "\n") if body is not None else ""


class MailboxHandler:
    """Appends each accepted message to a JSON-lines file (one `write` per message, so readers see whole lines)."""

    def __init__(self, mailbox: Path) -> None:
        self.mailbox = mailbox
        self._lock = threading.Lock()
        mailbox.parent.mkdir(parents=True, exist_ok=True)

    async def handle_DATA(self, _server: SMTP, _session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode()
        message = message_from_bytes(raw, policy=policy.default)
        record: dict[str, Any] = {
            "to": list(envelope.rcpt_tos),
            "from": envelope.mail_from,
            "subject": str(message.get("Subject", "")),
            "text": _text_of(message) if isinstance(message, EmailMessage) else "",
            "html": _html_of(message) if isinstance(message, EmailMessage) else "",
            "receivedAt": datetime.now(UTC).isoformat(),
        }
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock, self.mailbox.open("a", encoding="utf-8") as out:
            out.write(line)
        return "250 Message accepted for delivery"


def start(*, port: int, mailbox: Path, host: str = "127.0.0.1") -> Controller:
    """Start the catcher in a background thread (tests); `controller.stop()` ends it."""
    controller = Controller(MailboxHandler(mailbox), hostname=host, port=port, data_size_limit=MAX_MESSAGE_BYTES)
    controller.start()
    return controller


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dev.mail_catcher", description=__doc__)
    parser.add_argument("--port", type=int, default=1025)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--mailbox", type=Path, default=Path("data/dev-mailbox.jsonl"))
    args = parser.parse_args(argv)
    controller = start(port=args.port, mailbox=args.mailbox, host=args.host)
    print(f"mail catcher listening on smtp://{args.host}:{args.port}, keeping mail in {args.mailbox}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
