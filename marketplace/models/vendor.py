"""Vendor applications and the notifications vendors receive."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, Index, Text, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiModel, new_id, utcnow


class ApplicationStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class NotificationType(StrEnum):
    APPROVAL = "approval"
    REJECTION = "rejection"
    SALE = "sale"
    UPDATE = "update"
    OTHER = "other"


class VendorApplication(SQLModel, table=True):
    __tablename__ = "vendor_applications"
    __table_args__ = (
        # One pending application per user, enforced by the database too (revision 0007).
        Index("ux_vendor_applications_pending", "user_id", unique=True,
              postgresql_where=text("status = 'pending'"), sqlite_where=text("status = 'pending'")),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    business_name: str = Field(max_length=200)
    business_description: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    website: str | None = Field(default=None, max_length=500)
    status: str = Field(default=ApplicationStatus.PENDING, max_length=16, index=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    decided_at: datetime | None = None
    decided_by: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")


class Notification(SQLModel, table=True):
    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_user_created", "user_id", "created_at"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    type: str = Field(default=NotificationType.OTHER, max_length=16)
    title: str = Field(max_length=200)
    message: str = Field(sa_column=Column(Text, nullable=False))
    is_read: bool = False
    created_at: datetime = Field(default_factory=utcnow, index=True)


class VendorApplicationPublic(ApiModel):
    id: str
    business_name: str
    business_description: str | None = None
    website: str | None = None
    status: str
    created_at: datetime
