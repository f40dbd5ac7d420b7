"""/dev/mail: what the local SMTP catcher received, newest first (demo mode only)."""

from __future__ import annotations

from dataclasses import dataclass

import reflex as rx

from marketplace.services import mail
from marketplace.services.errors import NotFound

SHOWN = 50


@dataclass
class MailRow:
    recipient: str  # not `to`: a Var method of that name would shadow the field
    subject: str
    text: str
    links: list[str]
    received_at: str


class DevMailState(rx.State):
    messages: list[MailRow] = []
    available: bool = True
    loaded: bool = False

    @rx.event
    def on_load(self) -> None:
        self.refresh()

    @rx.event
    def refresh(self) -> None:
        try:
            caught = mail.dev_mailbox(limit=SHOWN)
        except NotFound:
            self.available, self.messages = False, []
        else:
            self.available = True
            self.messages = [MailRow(recipient=", ".join(m.to), subject=m.subject, text=m.text, links=m.links,
                                     received_at=m.received_at[:19].replace("T", " ") + " UTC")
                             for m in caught]
        self.loaded = True
