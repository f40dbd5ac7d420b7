"""Promotion codes: a discount a vendor (on its own agents) or an admin (on any or all agents) offers, and each
buyer's redemption of one. Redemptions are a counted limit: `redemptions` on the code is raised by one
conditional UPDATE when a checkout takes a hold, and lowered when the hold is released (the PaymentIntent was
cancelled or expired), so a limit holds under parallel checkouts on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import pydantic
from sqlalchemy import Index, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow


class PromotionDuration(StrEnum):
    """Which months of a monthly agent a code discounts (Stripe coupons' `duration`)."""

    ONCE = "once"  # the first payment only
    REPEATING = "repeating"  # the first `duration_months` months
    FOREVER = "forever"  # every month


class RedemptionStatus(StrEnum):
    HELD = "held"  # a checkout is open with the code
    REDEEMED = "redeemed"  # the payment (or free claim) was recorded
    RELEASED = "released"  # the checkout was abandoned: the code's count was given back


class PromotionCode(SQLModel, table=True):
    """A code. `code` is stored upper-case and is unique among active codes (a partial unique index); amounts are
    USD cents. `vendor_id` is the vendor the code belongs to (None: an admin's code); `all_agents` (admins only)
    or the agents listed in `promotion_code_agents`."""

    __tablename__ = "promotion_codes"
    __table_args__ = (
        Index(
            "ux_promotion_codes_active_code",
            "code",
            unique=True,
            postgresql_where=text("active"),
            sqlite_where=text("active"),
        ),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    code: str = Field(max_length=32, index=True)
    percent_off: int | None = None  # 1-100, or
    amount_off_cents: int | None = None  # a fixed USD amount
    all_agents: bool = False
    vendor_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    created_by_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    expires_at: datetime | None = None
    max_redemptions: int | None = None
    redemptions: int = 0  # held + redeemed
    first_purchase_only: bool = False
    duration: str = Field(default=PromotionDuration.ONCE, max_length=16)
    duration_months: int | None = None  # `repeating` only
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow)
    deactivated_at: datetime | None = None


class PromotionCodeAgent(SQLModel, table=True):
    """An agent a code applies to."""

    __tablename__ = "promotion_code_agents"

    code_id: str = Field(foreign_key="promotion_codes.id", primary_key=True, max_length=32, ondelete="CASCADE")
    agent_id: str = Field(foreign_key="agents.id", primary_key=True, max_length=32, index=True, ondelete="CASCADE")


class PromotionRedemption(SQLModel, table=True):
    """One buyer's use of a code: once per customer (a partial unique index over the holds and redemptions that
    were not released). `discount_cents` is in `currency`, the checkout's."""

    __tablename__ = "promotion_redemptions"
    __table_args__ = (
        Index(
            "ux_promotion_redemptions_once",
            "code_id",
            "user_id",
            unique=True,
            postgresql_where=text("status <> 'released'"),
            sqlite_where=text("status <> 'released'"),
        ),
        Index("ix_promotion_redemptions_held", "status", "held_until"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    code_id: str = Field(foreign_key="promotion_codes.id", index=True, max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    agent_id: str | None = Field(default=None, foreign_key="agents.id", max_length=32, ondelete="SET NULL")
    payment_intent_id: str | None = Field(default=None, max_length=255, index=True)
    order_id: str | None = Field(default=None, foreign_key="orders.id", max_length=32, ondelete="SET NULL")
    status: str = Field(default=RedemptionStatus.HELD, max_length=16)
    discount_cents: int = 0
    currency: str = Field(default="usd", max_length=3)
    created_at: datetime = Field(default_factory=utcnow)
    held_until: datetime | None = None
    redeemed_at: datetime | None = None
    released_at: datetime | None = None


class PromotionCodeIn(ApiInput):
    code: str = pydantic.Field(max_length=64)
    percent_off: int | None = None
    amount_off_cents: int | None = None
    agent_ids: list[str] = pydantic.Field(default_factory=list, max_length=500)
    all_agents: bool = False
    expires_at: datetime | None = None
    max_redemptions: int | None = None
    first_purchase_only: bool = False
    duration: str = pydantic.Field(default=PromotionDuration.ONCE, max_length=16)
    duration_months: int | None = None


class PromotionCodePublic(ApiModel):
    id: str
    code: str
    percent_off: int | None = None
    amount_off_cents: int | None = None
    agent_ids: list[str]
    all_agents: bool
    expires_at: datetime | None = None
    max_redemptions: int | None = None
    redemptions: int
    first_purchase_only: bool
    duration: str
    duration_months: int | None = None
    active: bool
    created_at: datetime
