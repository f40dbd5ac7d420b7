"""The mail outbox: each outgoing e-mail is a row, written in the transaction of the change that causes it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from marketplace.models.base import new_id, utcnow


class OutboxMail(SQLModel, table=True):
    """One e-mail to send (services/mail.py writes it, services/mail_outbox.py sends it).

    `due_at` is when a sender may next take it: at first its creation, while a sender holds it the end of that
    sender's lease, after a failed attempt the retry time; None once sent (`sent_at`) or given up on.
    `composer` names a function that writes the message when it is first sent (subject and body empty until
    then), for mail whose writing must not happen in the request (services/mail_outbox.py `composer`)."""

    __tablename__ = "mail_outbox"
    __table_args__ = (Index("ix_mail_outbox_due_at", "due_at"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    recipient: str = Field(max_length=320)
    subject: str = Field(sa_column=Column(Text, nullable=False))
    body: str = Field(sa_column=Column(Text, nullable=False))
    html: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # the HTML part, if any
    composer: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    due_at: datetime | None = Field(default_factory=utcnow)
    attempts: int = 0
    sent_at: datetime | None = None
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
