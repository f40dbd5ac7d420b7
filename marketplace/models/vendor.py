"""Vendor applications and the notifications vendors receive; the requests and answers of the vendor routes
(application, dashboard figures, sales, Stripe Connect)."""

from __future__ import annotations

from datetime import date as date_type
from datetime import datetime
from enum import StrEnum

import pydantic
from sqlalchemy import Column, Index, Text, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow
from marketplace.models.catalog import AgentRead
from marketplace.models.submissions import RevisionSummaryPublic


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


# ---- API schemas (camelCase on the wire; money as "29.99" USD strings unless a currency is given) ----------


class VendorApplicationPublic(ApiModel):
    id: str
    user_id: str
    business_name: str
    business_description: str | None = None
    website: str | None = None
    status: str
    created_at: datetime


class ApplicantPublic(ApiModel):
    email: str
    first_name: str | None = None
    last_name: str | None = None
    username: str


class VendorApplicationAdminPublic(VendorApplicationPublic):
    """An application as the admin list shows it, with its applicant."""

    decided_at: datetime | None = None
    user: ApplicantPublic


class NotificationPublic(ApiModel):
    id: str
    type: str
    title: str
    message: str
    is_read: bool
    created_at: datetime


class VendorCategoryRef(ApiModel):
    id: int
    name: str


class VendorAgentPublic(AgentRead):
    category: VendorCategoryRef | None = None
    sales_count: int
    updated_at: datetime
    has_pending_revision: bool = False
    pending_revision: RevisionSummaryPublic | None = None
    file_count: int = 0
    version_label: str = pydantic.Field(
        default="1.0.0", description="The live version's label (not yet live: its first version's)")


class VendorAnalyticsPublic(ApiModel):
    total_vendor_earnings: str
    total_revenue: str
    this_month_earnings: str
    this_month_revenue: str
    total_sales: int
    approved_agents: int
    total_agents: int
    avg_rating: str
    commission_rate: str
    # Recurring revenue (services/vendors/recurring.py); money in USD.
    active_subscribers: int = 0
    monthly_recurring_revenue: str = "0.00"
    cancellations_last_30_days: int = 0
    refunds_last_30_days: int = 0
    refunded_last_30_days: str = "0.00"
    # Free trials (apart from the paying subscribers above): in a trial now; of the trials that ended in the last
    # 30 days, how many became paid, and that as a whole percent (None: no trial ended).
    trialing_subscribers: int = 0
    trials_ended_last_30_days: int = 0
    trials_converted_last_30_days: int = 0
    trial_conversion_percent: int | None = None
    currency: str = "usd"


class CommissionBreakdownPublic(ApiModel):
    commission_rate: str
    split: bool
    split_label: str
    split_block_reason: str | None = None
    currency: str
    exchange_rate: str


class SalePublic(ApiModel):
    """A sale; amounts in the order's own `currency`, `price` is the agent's USD price at the sale."""

    order_id: str
    agent_id: str | None = None
    agent_name: str
    customer_email: str
    created_at: datetime
    total_amount: str
    price: str
    vendor_earnings: str
    platform_fee: str
    commission_breakdown: CommissionBreakdownPublic
    payment_intent_id: str
    currency: str
    kind: str = "purchase"  # purchase | subscription | renewal
    promotion_code: str | None = None  # the buyer's promotion code, and what it took off (in `currency`)
    discount_amount: str = "0.00"


class EarningsPointPublic(ApiModel):
    date: date_type
    label: str
    vendor_earnings: str
    platform_fee: str
    sales: int


class VendorStatsPublic(ApiModel):
    total_submissions: int
    approved_submissions: int
    rejected_submissions: int
    average_approval_time: float
    quality_score: float
    is_verified: bool
    last_submission_at: datetime | None = None


class VerificationPublic(ApiModel):
    is_verified: bool


class AccountDetailsPublic(ApiModel):
    requirements_due: list[str]
    country: str | None = None
    default_currency: str | None = None


class AccountStatusPublic(ApiModel):
    connected: bool
    requires_action: bool
    account_status: str
    charges_enabled: bool
    payouts_enabled: bool
    details: AccountDetailsPublic


class PayoutPublic(ApiModel):
    id: str
    amount: str
    currency: str
    status: str
    method: str
    type: str
    arrival_date: datetime | None = None
    created: datetime
    failure_message: str | None = None


class PayoutsPublic(ApiModel):
    has_account: bool
    account_currency: str | None = None
    payouts: list[PayoutPublic]


class AccountLinkPublic(ApiModel):
    url: str


# ---- requests (`pydantic.Field`: input limits, not columns) -----------------------------------------------------


class VendorApplyIn(ApiInput):
    business_name: str = pydantic.Field(default="", max_length=1000)
    business_description: str | None = pydantic.Field(default=None, max_length=20000)
    website: str | None = pydantic.Field(default=None, max_length=2000)
