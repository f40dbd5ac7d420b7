"""API schemas of the admin panel's reads (camelCase on the wire; money as "29.99" USD strings)."""

from __future__ import annotations

from datetime import date as date_type
from datetime import datetime

from marketplace.models.base import ApiInput, ApiModel
from marketplace.models.catalog import AgentListed


class PersonPublic(ApiModel):
    """A customer or vendor row of /api/admin/customers and /api/admin/vendors."""

    id: str
    first_name: str | None = None
    last_name: str | None = None
    email: str
    username: str
    role: str
    is_vendor_approved: bool
    created_at: datetime
    profile_image_url: str | None = None
    agent_count: int


class AdminCategoryRef(ApiModel):
    id: int
    name: str


class AdminAgentPublic(AgentListed):
    """An agent row of /api/admin/agents: `vendor` is null when it has none or it was deleted (UI: Unknown)."""

    category: AdminCategoryRef | None = None
    reviewed_at: datetime | None = None


class SalesSummaryPublic(ApiModel):
    total_revenue: str
    admin_earnings: str
    vendor_earnings: str
    commission_rate: str
    total_sales: int
    commission_split_rate: float | None = None
    split_payments: int
    direct_payments: int
    total_vendor_payouts: str
    # Recurring revenue (services/vendors/recurring.py): live subscriptions and their monthly prices in USD.
    active_subscriptions: int = 0
    monthly_recurring_revenue: str = "0.00"
    trialing_subscriptions: int = 0  # free trials (card saved, not paying yet: not in MRR)
    # What vendors paid for their plans (Pro, Enterprise...), in USD.
    plan_revenue: str = "0.00"


class CommissionPublic(ApiModel):
    """A completed or refunded sale: USD amounts at the order's own rate; `chargedAmount` in the order's
    `currency`; `kind` purchase, subscription or renewal; `status` completed or refunded (never summed)."""

    order_id: str
    agent_name: str
    sale_amount: str
    commission_split_enabled: bool
    commission_amount: str
    vendor_amount: str
    customer_email: str
    created_at: datetime
    currency: str
    charged_amount: str
    commission_rate: str
    kind: str = "purchase"
    status: str = "completed"
    promotion_code: str | None = None  # the buyer's promotion code, and what it took off (in `currency`)
    discount_amount: str = "0.00"


class ApprovalHistoryPublic(ApiModel):
    pending: int
    approved: int
    rejected: int
    total_applications: int


class QualitySummaryPublic(ApiModel):
    total_agents: int
    pending_approval: int
    approved: int
    average_rating: float
    rated_agents: int


class AdminReportPublic(ApiModel):
    id: str
    report_type: str
    reason: str
    description: str | None = None
    status: str
    created_at: datetime
    agent_id: str
    agent_name: str


class CustomerReportsPublic(ApiModel):
    pending: int
    reviewed: int
    resolved: int
    total_reports: int
    recent_reports: list[AdminReportPublic]


class AnalyticsPublic(ApiModel):
    vendor_approval_history: ApprovalHistoryPublic
    agent_quality_summary: QualitySummaryPublic
    customer_reports: CustomerReportsPublic


class MostBoughtPublic(ApiModel):
    agent_id: str
    agent_name: str
    agent_price: str
    purchase_count: int
    pricing_model: str = "monthly"  # models.billing.PricingModel


class MostSavedPublic(ApiModel):
    agent_id: str
    agent_name: str
    agent_price: str
    favorites_count: int
    pricing_model: str = "monthly"  # models.billing.PricingModel


class MostViewedPublic(ApiModel):
    id: str
    name: str
    price: str
    review_count: int
    view_count: int
    pricing_model: str = "monthly"  # models.billing.PricingModel


class TopCategoryPublic(ApiModel):
    category_id: int
    category_name: str
    category_emoji: str
    agent_count: int


class ReportStatusIn(ApiInput):
    status: str


class DayPointPublic(ApiModel):
    date: date_type
    revenue: str
    sales: int


class WeekPointPublic(ApiModel):
    week_start: date_type
    users: int
    agents: int
