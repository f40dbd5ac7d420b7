"""Money over time: a Stripe Customer per user, subscriptions (a monthly agent's recurring charge) and refunds
(the 30-day money-back guarantee, admin refunds and refunds mirrored from Stripe).

Every charge, the first payment and each renewal alike, is an `Order` (orders.invoice_id names the invoice it
paid); access itself is `Purchase.access_until` (see `services.access`)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

import pydantic
from sqlalchemy import Column, Index, Numeric, String, Text, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow


class PricingModel(StrEnum):
    MONTHLY = "monthly"  # a subscription, charged every month until cancelled (the default)
    ONE_TIME = "one_time"  # a licence, paid once, with a year of updates


class SubscriptionStatus(StrEnum):
    """Stripe's subscription statuses, as the webhooks report them."""

    INCOMPLETE = "incomplete"
    INCOMPLETE_EXPIRED = "incomplete_expired"
    TRIALING = "trialing"
    ACTIVE = "active"
    PAST_DUE = "past_due"
    UNPAID = "unpaid"
    CANCELED = "canceled"
    PAUSED = "paused"


class RefundStatus(StrEnum):
    REQUESTED = "requested"  # waits for an admin (a customer's third refund within 90 days)
    PENDING = "pending"  # sent to Stripe, not yet confirmed
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    REJECTED = "rejected"  # an admin said no to a request


class RefundSource(StrEnum):
    CUSTOMER = "customer"  # the money-back guarantee
    ADMIN = "admin"
    STRIPE = "stripe"  # made in Stripe's dashboard, mirrored from `charge.refunded`


OPEN_REFUND_SQL = "status IN ('requested', 'pending', 'succeeded')"


class BillingCustomer(SQLModel, table=True):
    """The Stripe Customer of a user, created once and reused (and, in demo mode, on the demo test clock)."""

    __tablename__ = "billing_customers"

    user_id: str = Field(foreign_key="users.id", primary_key=True, max_length=32, ondelete="CASCADE")
    stripe_customer_id: str = Field(sa_column=Column(String(255), unique=True, nullable=False))
    test_clock_id: str | None = Field(default=None, max_length=255)
    created_at: datetime = Field(default_factory=utcnow)
    # A lease held while one request changes which card pays (services/billing/payment_methods.py): taken by one
    # conditional UPDATE, so a second change at the same moment is refused rather than interleaved at Stripe.
    cards_busy_until: datetime | None = None


class Subscription(SQLModel, table=True):
    """A customer's monthly subscription to an agent, mirrored from Stripe's webhooks. Price, currency and
    commission are those of the moment it was created: later price or rate changes apply to new buyers."""

    __tablename__ = "subscriptions"
    __table_args__ = (
        Index("ix_subscriptions_user_agent", "user_id", "agent_id"),
        # A vendor's subscribers and recurring revenue, and the admin's MRR.
        Index("ix_subscriptions_vendor_status", "vendor_id", "status"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    agent_id: str | None = Field(default=None, foreign_key="agents.id", index=True, max_length=32,
                                 ondelete="SET NULL")
    vendor_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    agent_name: str = Field(max_length=200)
    stripe_subscription_id: str = Field(sa_column=Column(String(255), unique=True, nullable=False))
    stripe_customer_id: str = Field(max_length=255)
    stripe_price_id: str = Field(default="", max_length=255)
    status: str = Field(default=SubscriptionStatus.INCOMPLETE, max_length=24, index=True)
    price_cents: int  # per month, in `currency`
    currency: str = Field(default="usd", max_length=3)
    original_price_usd_cents: int = 0
    exchange_rate: Decimal = Field(default=Decimal("1"), sa_column=Column(Numeric(12, 4), nullable=False))
    commission_rate: Decimal = Field(sa_column=Column(Numeric(5, 2), nullable=False))
    commission_split_enabled: bool = False
    current_period_end: datetime | None = None
    cancel_at_period_end: bool = False
    past_due_since: datetime | None = None  # the first failed renewal; access lasts 7 days from it
    canceled_at: datetime | None = None  # when the customer (or a refund) asked to cancel
    ended_at: datetime | None = None  # when access ended for good
    trial_end: datetime | None = None  # the free trial's end, once it started with a card; None: no trial
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Refund(SQLModel, table=True):
    """Money given back for one order. At most one open or succeeded refund per order (a partial unique index),
    so two refund requests at the same moment cannot both go through."""

    __tablename__ = "refunds"
    __table_args__ = (
        Index("ux_refunds_open_order", "order_id", unique=True,
              postgresql_where=text(OPEN_REFUND_SQL), sqlite_where=text(OPEN_REFUND_SQL)),
        Index("ix_refunds_status_created", "status", "created_at"),
        Index("ix_refunds_user_created", "user_id", "created_at"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    order_id: str = Field(foreign_key="orders.id", max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    requested_by_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    source: str = Field(default=RefundSource.CUSTOMER, max_length=16)
    status: str = Field(default=RefundStatus.PENDING, max_length=16)
    reason: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    amount_cents: int
    currency: str = Field(default="usd", max_length=3)
    stripe_refund_id: str | None = Field(default=None, sa_column=Column(String(255), unique=True, nullable=True))
    decided_by_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    decision_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    decided_at: datetime | None = None
    failure_reason: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)


# ---- API schemas (camelCase on the wire; amounts as "29.99" strings) -------------------------------------------


class SubscriptionPublic(ApiModel):
    """One of the customer's subscriptions (`GET /api/user/subscriptions`)."""

    id: str
    agent_id: str | None = None
    agent_name: str
    status: str
    price: str
    currency: str
    current_period_end: datetime | None = None
    cancel_at_period_end: bool
    trial_end: datetime | None = None  # status 'trialing': the free trial ends (and the first charge comes) then


class CardUpdatePublic(ApiModel):
    """The SetupIntent the update-card page's Payment Element confirms."""

    client_secret: str
    subscription: SubscriptionPublic


class PaymentMethodPublic(ApiModel):
    """One of the customer's saved cards (`GET /api/user/payment-methods`); `isDefault`: the one their
    subscriptions charge."""

    id: str
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    is_default: bool


class PaymentMethodSetupPublic(ApiModel):
    """The SetupIntent the Payment tab's Payment Element confirms to add a card."""

    client_secret: str


class CardUpdateDoneIn(ApiInput):
    setup_intent_id: str = pydantic.Field(max_length=255)


class AdvanceClockIn(ApiInput):
    """`POST /api/dev/advance-clock`: how many days to move the demo's test clock ahead."""

    days: int = pydantic.Field(ge=1, le=60, strict=True)


class ClockPublic(ApiModel):
    id: str
    frozen_time: datetime
    status: str


# ---- refunds --------------------------------------------------------------------------------------------------


class RefundIn(ApiInput):
    """A customer's refund request, or an admin's refund of any order (`reason` optional for admins)."""

    order_id: str = pydantic.Field(max_length=64)
    reason: str | None = pydantic.Field(default=None, max_length=10_000)


class RefundDecisionIn(ApiInput):
    reason: str | None = pydantic.Field(default=None, max_length=10_000)


class RefundOutcomePublic(ApiModel):
    """`status`: succeeded (the money is on its way back) or requested (waits for an admin); `message` says so."""

    id: str
    status: str
    message: str


class AdminRefundPublic(ApiModel):
    id: str
    order_id: str
    agent_id: str | None = None
    agent_name: str
    customer: str
    customer_email: str
    amount: str
    currency: str
    status: str
    source: str
    reason: str
    decision_reason: str | None = None
    failure_reason: str | None = None
    decided_by: str | None = None
    created_at: datetime
    decided_at: datetime | None = None
