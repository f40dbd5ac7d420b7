"""Rate-limit hits, kept in the database so every worker process counts the same requests."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, Index
from sqlmodel import Field, SQLModel

from marketplace.models.base import utcnow


class RateLimitHit(SQLModel, table=True):
    """One counted request under a key such as `register:<client address>`."""

    __tablename__ = "rate_limit_hits"
    __table_args__ = (Index("ix_rate_limit_hits_key_created", "key", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utcnow)


class RateLimitCounter(SQLModel, table=True):
    """A fixed-window counter under one key (the public license API's limits): one row per key, moved on by one
    upsert per request, so a busy key costs the same as a quiet one (`hits` are counted row by row)."""

    __tablename__ = "rate_limit_counters"

    key: str = Field(primary_key=True, max_length=255)
    window_start: int = Field(sa_column=Column(BigInteger, nullable=False))  # seconds since the epoch
    count: int = 0
