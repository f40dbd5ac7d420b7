"""/dev/mail: what the local SMTP catcher received, newest first (demo mode only, for admins)."""

from __future__ import annotations

from dataclasses import dataclass

import reflex as rx

from marketplace.services import demo
from marketplace.services.errors import Forbidden, NotFound, Unauthorized
from marketplace.state import blocking
from marketplace.state.session import ViewerMixin

SHOWN = 50


@dataclass
class MailRow:
    recipient: str  # not `to`: a Var method of that name would shadow the field
    subject: str
    text: str
    links: list[str]
    received_at: str


class DevMailState(ViewerMixin, rx.State):
    messages: list[MailRow] = []
    available: bool = True  # demo mode is on (else the page is the 404 card)
    allowed: bool = False  # the viewer is an admin (else the page says the mailbox is for admins)
    loaded: bool = False

    @rx.event
    async def on_load(self) -> None:
        await self._read()

    @rx.event
    async def refresh(self) -> None:
        await self._read()

    async def _read(self) -> None:
        try:
            caught = await blocking.run(demo.dev_mailbox, actor=await self.viewer(), limit=SHOWN)
        except NotFound:
            self.available, self.allowed, self.messages = False, False, []
        except (Unauthorized, Forbidden):
            self.available, self.allowed, self.messages = True, False, []
        else:
            self.available = self.allowed = True
            self.messages = [MailRow(recipient=", ".join(m.to), subject=m.subject, text=m.text, links=m.links,
                                     received_at=m.received_at[:19].replace("T", " ") + " UTC")
                             for m in caught]
        self.loaded = True
