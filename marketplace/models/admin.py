"""What the admin area keeps besides the catalogue: the audit log of admin writes and agent page views."""

from __future__ import annotations

from datetime import date as date_type
from datetime import datetime
from typing import Any

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiModel, new_id, utcnow


class AuditEntry(SQLModel, table=True):
    """One admin write: who, what, to which record, with details as a JSON object. Never updated."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_created", "created_at", "id"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    actor_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32,
                                 ondelete="SET NULL")
    actor_username: str = Field(default="", max_length=200)  # kept when the actor is deleted later
    action: str = Field(max_length=64)  # e.g. "vendor.approve", "agent.reject", "user.delete", "setting.update"
    target_type: str = Field(max_length=32)  # user | agent | setting | report | application
    target_id: str = Field(default="", max_length=64)
    details: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    created_at: datetime = Field(default_factory=utcnow)


class AuditEntryPublic(ApiModel):
    """An audit entry as `GET /api/admin/audit-log` shows it; `details` is the JSON object, not its text."""

    id: str
    actor_id: str | None = None
    actor_username: str
    action: str
    target_type: str
    target_id: str
    details: dict[str, Any]
    created_at: datetime
    summary: str  # the entry in words: actor, action, the subject's name, amounts, old -> new values


class AgentView(SQLModel, table=True):
    """An agent page seen by one visitor on one day; a repeat view the same day adds nothing.

    `visitor` is the user id when signed in, else a keyed hash of the visitor's cookie id, so no address is
    stored. `agents.view_count` counts these rows (Most Viewed ranks by it).
    """

    __tablename__ = "agent_views"

    agent_id: str = Field(foreign_key="agents.id", primary_key=True, max_length=32, ondelete="CASCADE")
    visitor: str = Field(primary_key=True, max_length=64)
    day: date_type = Field(primary_key=True)
