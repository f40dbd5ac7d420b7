"""Vendor plans: the plans on offer (data an admin edits, not constants) and each vendor's plan, with the
Stripe subscription that pays for a paid one; the plan routes' requests and answers."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

import pydantic
from sqlalchemy import Column, Numeric, String
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow

# The plan every vendor is on unless it pays for another (and returns to when a paid plan ends). Its fee is the
# platform commission rate setting (`fee_percent` NULL): one number, whichever of the two an admin edits.
FREE_PLAN_ID = "free"


class VendorPlanStatus(StrEnum):
    ACTIVE = "active"
    PAST_DUE = "past_due"  # a renewal failed: the plan lasts 7 days of grace, then the vendor is back on Free


class Plan(SQLModel, table=True):
    __tablename__ = "plans"

    id: str = Field(primary_key=True, max_length=32)
    name: str = Field(max_length=60)
    monthly_price_cents: int = 0  # USD
    agent_limit: int | None = None  # live plus pending agents; None: unlimited
    # The platform's share of each sale in percent; None: the platform commission rate setting (the Free plan).
    fee_percent: Decimal | None = Field(default=None, sa_column=Column(Numeric(5, 2), nullable=True))
    sort_order: int = 0
    updated_at: datetime = Field(default_factory=utcnow)


class VendorPlan(SQLModel, table=True):
    """A vendor's plan. No row means Free. The row is also what a vendor's agent submissions lock, so that
    submissions at the same moment are counted one after the other against the plan's limit."""

    __tablename__ = "vendor_plans"

    user_id: str = Field(foreign_key="users.id", primary_key=True, max_length=32, ondelete="CASCADE")
    plan_id: str = Field(default=FREE_PLAN_ID, foreign_key="plans.id", max_length=32)
    status: str = Field(default=VendorPlanStatus.ACTIVE, max_length=16)
    # The Stripe subscription paying for the current paid plan (None on Free).
    stripe_subscription_id: str | None = Field(default=None, sa_column=Column(String(255), unique=True,
                                                                              nullable=True))
    current_period_end: datetime | None = None
    # Chosen to take effect at the period end: a cheaper plan, or Free (a cancellation).
    pending_plan_id: str | None = Field(default=None, foreign_key="plans.id", max_length=32)
    past_due_since: datetime | None = None
    updated_at: datetime = Field(default_factory=utcnow)


# ---- API schemas ----------------------------------------------------------------------------------------------


class PlanPublic(ApiModel):
    """`GET /api/plans`: `monthlyPrice` "29.00" (USD), `agentLimit` null when unlimited, `feePercent` "10.00"."""

    id: str
    name: str
    monthly_price: str
    agent_limit: int | None
    fee_percent: str


class VendorPlanPublic(ApiModel):
    """`GET /api/vendor/plan`: the vendor's plan now. `status` active or past_due; `currentPeriodEnd` when a paid
    plan renews (or ends, when `pendingPlanId` is set); `pendingPlanId` the plan taken at the period end (free:
    cancelled); `graceEndsAt` when a past-due plan returns to Free; `agentsUsed` live plus pending agents."""

    plan: PlanPublic
    status: str
    current_period_end: datetime | None = None
    pending_plan_id: str | None = None
    pending_plan_name: str | None = None
    grace_ends_at: datetime | None = None
    agents_used: int
    agent_limit: int | None


class PlanChoiceIn(ApiInput):
    plan_id: str = pydantic.Field(max_length=32)


class PlanChangePublic(ApiModel):
    """`POST /api/vendor/plan`: `clientSecret` for the Payment Element when a first payment is due (the plan
    changes once it is paid), else null; `message` says what happened; `plan` is the vendor's plan now."""

    client_secret: str | None = None
    message: str
    plan: VendorPlanPublic


class PlanUpdateIn(ApiInput):
    """An admin's edit of a plan (`PUT /api/admin/plans/{planId}`): only the fields sent change.
    `monthlyPrice` "29.00", `agentLimit` a whole number or null (unlimited), `feePercent` "10%"."""

    name: str | None = pydantic.Field(default=None, max_length=200)
    monthly_price: str | None = pydantic.Field(default=None, max_length=32)
    agent_limit: int | None = None
    fee_percent: str | None = pydantic.Field(default=None, max_length=32)


class PlanPayment(SQLModel, table=True):
    """One paid invoice of a vendor's plan subscription (first payment, upgrade proration or renewal): the
    platform's plan revenue. `invoice_id` is unique, so a webhook delivered twice records it once."""

    __tablename__ = "plan_payments"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    invoice_id: str = Field(sa_column=Column(String(255), unique=True, nullable=False))
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32,
                                ondelete="SET NULL")
    plan_id: str = Field(foreign_key="plans.id", max_length=32)
    amount_cents: int
    currency: str = Field(default="usd", max_length=3)
    billing_reason: str = Field(default="", max_length=32)
    created_at: datetime = Field(default_factory=utcnow, index=True)
