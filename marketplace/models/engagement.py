"""What customers leave on agents: reviews, favourites, reports; their routes' requests and answers."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow


class ReportType(StrEnum):
    BROKEN = "broken"
    MISLEADING = "misleading"
    INAPPROPRIATE = "inappropriate"
    SPAM = "spam"
    OTHER = "other"


class ReportStatus(StrEnum):
    PENDING = "pending"
    REVIEWED = "reviewed"
    RESOLVED = "resolved"


class Review(SQLModel, table=True):
    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("agent_id", "user_id"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32, ondelete="CASCADE")
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    rating: int = Field(ge=1, le=5)
    comment: str = Field(sa_column=Column(Text, nullable=False))
    is_verified_purchase: bool = False
    created_at: datetime = Field(default_factory=utcnow, index=True)
    updated_at: datetime = Field(default_factory=utcnow)
    # The agent's vendor's one answer (revision 0030): first given at `vendor_reply_at`, editable after.
    vendor_reply: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    vendor_reply_at: datetime | None = None
    vendor_reply_updated_at: datetime | None = None


class Favorite(SQLModel, table=True):
    __tablename__ = "favorites"
    __table_args__ = (UniqueConstraint("user_id", "agent_id"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32, ondelete="CASCADE")
    created_at: datetime = Field(default_factory=utcnow)


class Report(SQLModel, table=True):
    __tablename__ = "reports"
    __table_args__ = (UniqueConstraint("user_id", "agent_id"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32, ondelete="CASCADE")
    report_type: str = Field(max_length=32)
    reason: str = Field(sa_column=Column(Text, nullable=False))
    description: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    status: str = Field(default=ReportStatus.PENDING, max_length=16, index=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)


# ---- API schemas (camelCase on the wire) ----------------------------------------------------------------


class ReviewAuthor(ApiModel):
    id: str
    username: str
    first_name: str | None = None


class VendorReplyPublic(ApiModel):
    text: str
    created_at: datetime
    updated_at: datetime


class ReviewPublic(ApiModel):
    """`verifiedPurchase`: the author holds or held paid access to the agent (`isVerifiedPurchase`, the older
    name, says the same); `vendorReply`: the vendor's answer, null when none."""

    id: str
    rating: int
    comment: str
    created_at: datetime
    updated_at: datetime
    is_verified_purchase: bool
    verified_purchase: bool
    user: ReviewAuthor | None = None
    vendor_reply: VendorReplyPublic | None = None


class ReviewPage(ApiModel):
    items: list[ReviewPublic]
    total: int


class FavoriteStatus(ApiModel):
    is_favorited: bool


class ReportedStatus(ApiModel):
    has_reported: bool


class ReportPublic(ApiModel):
    id: str
    agent_id: str
    report_type: str
    reason: str
    description: str | None = None
    status: str
    created_at: datetime


# Fields are loosely typed on purpose: the services check them and name the field in a 422.
class ReviewIn(ApiInput):
    rating: Any = None
    comment: Any = None


class ReviewReplyIn(ApiInput):
    reply: Any = None


class ReasonIn(ApiInput):
    """An admin's removal: the reason is required (the service answers 400 without one)."""

    reason: Any = None


class FavoriteIn(ApiInput):
    agent_id: Any = None


class ReportIn(ApiInput):
    report_type: Any = None
    reason: Any = None
    description: Any = None
