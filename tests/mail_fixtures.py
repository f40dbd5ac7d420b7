"""Mail in tests: a real SMTP catcher (dev/mail_catcher.py) on a free port, and the messages it kept.

Tasks run inline (huey's immediate mode under APP_ENV=test), so a request's mail has reached the catcher
when the request returns. `mailbox` reads it; every test starts with an empty mailbox and queue.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dev import mail_catcher
from marketplace.config import settings
from marketplace.queue import huey
from marketplace.services import mail
from tests.ports import free_port


class Mailbox:
    def __init__(self, path: Path) -> None:
        self.path = path

    def messages(self, to: str | None = None) -> list[mail.CaughtMail]:
        """Newest first, like /api/dev/mail."""
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
    huey.flush()
    yield box
    huey.flush()
