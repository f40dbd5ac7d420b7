"""Money: orders (one per paid PaymentIntent), purchases (access rights), processed webhook events."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Column, Numeric, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from marketplace.models.base import new_id, utcnow


class OrderStatus(StrEnum):
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"


class Order(SQLModel, table=True):
    """A paid sale. Amounts are integer minor units of `currency`; the commission rate is snapshotted."""

    __tablename__ = "orders"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    agent_id: str | None = Field(default=None, foreign_key="agents.id", index=True, max_length=32, ondelete="SET NULL")
    vendor_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    agent_name: str = Field(max_length=200)
    customer_email: str = Field(default="", max_length=255)
    status: str = Field(default=OrderStatus.COMPLETED, max_length=16, index=True)
    currency: str = Field(default="usd", max_length=3)
    total_amount_cents: int
    original_price_usd_cents: int
    exchange_rate: Decimal = Field(default=Decimal("1"), sa_column=Column(Numeric(12, 4), nullable=False))
    commission_rate: Decimal = Field(sa_column=Column(Numeric(5, 2), nullable=False))
    commission_split_enabled: bool = False
    vendor_amount_cents: int = 0
    platform_fee_cents: int = 0
    split_block_reason: str | None = Field(default=None, max_length=255)
    payment_intent_id: str = Field(sa_column=Column(String(255), unique=True, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, index=True)


class Purchase(SQLModel, table=True):
    """The right of a user to an agent; exactly one per (user, agent)."""

    __tablename__ = "purchases"
    __table_args__ = (UniqueConstraint("user_id", "agent_id"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32)
    order_id: str | None = Field(default=None, foreign_key="orders.id", index=True, unique=True, max_length=32)
    purchase_price_cents: int
    currency: str = Field(default="usd", max_length=3)
    purchased_at: datetime = Field(default_factory=utcnow, index=True)


class ProcessedWebhookEvent(SQLModel, table=True):
    __tablename__ = "processed_webhook_events"

    id: str = Field(primary_key=True, max_length=255)  # the provider's event id
    type: str = Field(max_length=100)
    processed_at: datetime = Field(default_factory=utcnow)
