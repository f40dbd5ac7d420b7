"""Mail in tests: a real SMTP catcher (dev/mail_catcher.py) on a free port, and the messages it kept.

Tests run no outbox sender (no app lifespan): a request's mail waits in the outbox until `mailbox` reads it,
which first sends what is due (`mail_outbox.drain`), as the app's sender would. Every test starts with an
empty mailbox (and an empty outbox: conftest empties every table).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dev import mail_catcher
from marketplace.config import settings
from marketplace.services import mail, mail_outbox
from tests.ports import free_port


class Mailbox:
    def __init__(self, path: Path) -> None:
        self.path = path

    def messages(self, to: str | None = None) -> list[mail.CaughtMail]:
        """Newest first, like /api/dev/mail, once the outbox's due mail is sent."""
        mail_outbox.drain()
        return mail.dev_mailbox(limit=mail.MAX_MAILBOX, to=to)

    def last(self, to: str, subject: str | None = None) -> mail.CaughtMail:
        found = [m for m in self.messages(to) if subject is None or subject in m.subject]
        assert found, f"no mail to {to} ({subject}); mailbox: {[(m.to, m.subject) for m in self.messages()]}"
        return found[0]

    def token(self, to: str, path: str) -> str:
        """The token of the newest link to `path` (e.g. '/reset-password') sent to `to`."""
        for message in self.messages(to):
            for link in message.links:
                match = re.search(re.escape(path) + r"\?token=([A-Za-z0-9_\-%]+)", link)
                if match:
                    return match.group(1)
        raise AssertionError(f"no {path} link sent to {to}")

    def clear(self) -> None:
        self.path.write_text("")


@pytest.fixture(scope="session")
def smtp_catcher() -> Iterator[str]:
    port = free_port()
    controller = mail_catcher.start(port=port, mailbox=Path(settings.dev_mailbox_file))
    url = f"smtp://127.0.0.1:{port}"
    previous, settings.smtp_url = settings.smtp_url, url
    yield url
    settings.smtp_url = previous
    controller.stop()


@pytest.fixture(autouse=True)
def mailbox(smtp_catcher: str) -> Iterator[Mailbox]:
    box = Mailbox(Path(settings.dev_mailbox_file))
    box.clear()
    yield box
