"""The Dashboard tab: analytics, chart, sales, payment setup, payouts, own agents and the track record.

Loaded in three steps when the tab opens (figures and lists first, then the track record, then the Stripe
account and payouts, which ask the payment provider), so each card leaves its skeleton as soon as it can.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import User
from marketplace.services import images, money, pricing
from marketplace.services.errors import DomainError
from marketplace.services.vendors import agents, payouts, recurring, sales, stats
from marketplace.services.vendors.payouts import AccountStatus  # the state has fields named `sales`, `payouts`
from marketplace.services.vendors.sales import EarningsPoint
from marketplace.state.display import format_day, format_day_time, time_zone
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.vendors import wizard_rows
from marketplace.state.vendors.page import VendorState

RECENT_SALES = 8  # spec section 9
PAYOUT_ROWS = 5  # View All appears above this
PAYOUTS_READ = 20
PERIODS = ("day", "month")
METHOD_LABELS = {"standard": "Bank Transfer"}


@dataclass
class SaleRow:
    id: str
    agent: str
    customer: str
    date: str
    total: str
    earnings: str
    fee: str
    split: bool
    split_label: str
    reason: str
    kind: str = ""  # Purchase | Subscription | Renewal
    discount: str = ""  # 'Code SPRING: -$7.50' when a promotion code lowered the total


@dataclass
class AgentRow:
    id: str
    name: str
    price: str
    status: str
    rejection_reason: str
    category: str
    image_url: str
    rating: str
    review_count: int
    sales_count: int
    submitted: str
    has_revision: bool = False  # edits of the live agent wait for review
    revision_rejected: bool = False  # the latest edits were rejected; the live listing stayed as it was
    revision_rejection_reason: str = ""
    version_label: str = ""  # the live version ('1.4.0'); not yet live: its first version's
    pending_version_label: str = ""  # the new version waiting in the pending revision, if it has one
    scan: str = ""  # its files' security scans: 'n files scanned: no threats found', else each file that is not
    scan_status: str = ""  # the most serious of its files' scan statuses (wizard_rows.SCAN_ORDER), "" without files


@dataclass
class PayoutRow:
    id: str
    amount: str
    currency: str
    status: str
    method: str
    type: str
    arrival: str
    created: str
    failure: str


def share_labels(commission_rate: Decimal) -> tuple[str, str]:
    """('80', '20') from the rate, as money.split_label writes it."""
    vendor_share, platform_share = money.split_label(commission_rate).split("/")
    return vendor_share, platform_share


def rate_tone(rate: int) -> str:
    return "green" if rate >= 80 else "yellow" if rate >= 60 else "red"


def quality_level(score: float) -> str:
    return "high" if score >= 0.8 else "mid" if score >= 0.6 else "low"


class VendorDashboardState(VendorState):
    loading: bool = True
    total_earnings: str = "$0.00"
    total_revenue: str = "$0.00"
    month_earnings: str = "$0.00"
    month_revenue: str = "$0.00"
    total_sales: str = "0"  # figures with thousands separators
    # recurring revenue (services/vendors/recurring.py)
    active_subscribers: str = "0"
    mrr: str = "$0.00"
    cancellations: str = "0"
    refunds: str = "0"
    refunded: str = "$0.00"
    trialing: str = "0"
    trial_conversion: str = "—"  # '67%' of the trials that ended in the last 30 days; '—' when none ended
    trial_conversion_note: str = "No trial ended in the last 30 days"
    approved_agents: int = 0
    total_agents: int = 0
    avg_rating: str = "0.0"
    vendor_share: str = "80"
    platform_share: str = "20"
    sales: list[SaleRow] = []
    sales_total: int = 0
    agents: list[AgentRow] = []
    period: str = "day"
    chart: list[dict[str, Any]] = []
    chart_sales: int = 0
    # track record
    stats_loading: bool = True
    submissions: int = 0
    approved_submissions: int = 0
    rejected_submissions: int = 0
    approval_rate: int = 0
    approval_tone: str = "red"
    approval_hours: str = "0.0"
    quality_score: str = "0.00"
    quality_level: str = "low"
    verified: bool = False
    verified_rule: str = stats.VERIFIED_RULE
    last_submission: str = ""
    # payment setup and payouts
    payments_loading: bool = True
    payment_state: str = payouts.SETUP_NOT_CONNECTED  # not_connected | needs_action | verifying | ready
    requirements: list[str] = []
    charges_enabled: bool = False
    payouts_enabled: bool = False
    verification_wait: str = payouts.VERIFICATION_WAIT
    account_country: str = ""
    account_currency: str = ""
    payouts: list[PayoutRow] = []
    payouts_total: int = 0
    linking: bool = False
    payments_unavailable: bool = False

    @rx.var
    def shown_payouts(self) -> list[PayoutRow]:
        return self.payouts[:PAYOUT_ROWS]

    @rx.var
    def more_payouts(self) -> bool:
        return self.payouts_total > PAYOUT_ROWS

    def _show_recurring(self, figures: recurring.RecurringFigures) -> None:
        self.active_subscribers = f"{figures.active_subscribers:,}"
        self.mrr = money.format_amount(figures.mrr_cents, "usd")
        self.cancellations = f"{figures.cancellations_30d:,}"
        self.refunds = f"{figures.refunds_30d:,}"
        self.refunded = money.format_amount(figures.refunded_30d_cents, "usd")
        self.trialing = f"{figures.trialing_subscribers:,}"
        percent = figures.trial_conversion_percent
        self.trial_conversion = "—" if percent is None else f"{percent}%"
        self.trial_conversion_note = ("No trial ended in the last 30 days" if percent is None else
                                      f"{figures.trials_converted_30d:,} of {figures.trials_ended_30d:,} trials "
                                      f"became paid · last 30 days")

    @rx.event
    async def load(self) -> AsyncIterator[Any]:
        """Runs when the tab's panel mounts."""
        self.reset()
        yield
        user = await self.viewer()
        zone = time_zone(self.time_zone)
        overview = await attempt(Toast(), _overview, user, self.period)
        if overview.failed:
            yield overview.events
            return
        figures, recurring_figures, page, own, series = overview.value
        self.total_earnings = money.format_amount(figures.total_vendor_earnings_cents, "usd")
        self.total_revenue = money.format_amount(figures.total_revenue_cents, "usd")
        self.month_earnings = money.format_amount(figures.this_month_earnings_cents, "usd")
        self.month_revenue = money.format_amount(figures.this_month_revenue_cents, "usd")
        self.total_sales = f"{figures.total_sales:,}"
        self._show_recurring(recurring_figures)
        self.approved_agents = figures.approved_agents
        self.total_agents = figures.total_agents
        self.avg_rating = f"{figures.avg_rating:.1f}"
        self.vendor_share, self.platform_share = share_labels(figures.commission_rate)
        self.sales = [_sale_row(sale, zone) for sale in page.items]
        self.sales_total = page.total
        self.agents = [_agent_row(agent, zone) for agent in own]
        self._show_series(series)
        self.loading = False
        yield
        record = await attempt(Toast(), stats.vendor_stats, actor=user, vendor_id=user.id if user else "")
        if record.failed:
            yield record.events
            return
        self._show_stats(record.value, zone)
        self.stats_loading = False
        yield
        payments = await attempt(Toast(unexpected=True, log="payment account or payouts unavailable"), _payments,
                                 user, self.stripe_return)
        if payments.failed:
            self.payments_loading = False
            if isinstance(payments.error, DomainError):
                yield payments.events
            else:  # the payment provider did not answer: the rest of the dashboard stays usable
                self.payments_unavailable = True
            return
        status, view = payments.value
        self._show_account(status)
        self.payouts = [_payout_row(p, zone) for p in view.payouts]
        self.payouts_total = len(view.payouts)
        self.payments_loading = False

    def _show_series(self, series: list[EarningsPoint]) -> None:
        # recharts needs numbers: dollars as floats, for drawing only; the tooltip shows the amounts as money
        # formats them ("vendor_text", "fee_text"), never the floats
        self.chart = [{"label": p.label, "vendor": p.vendor_cents / 100, "fee": p.fee_cents / 100, "sales": p.sales,
                       "vendor_text": money.format_amount(p.vendor_cents, "usd"),
                       "fee_text": money.format_amount(p.fee_cents, "usd")}
                      for p in series]
        self.chart_sales = sum(p.sales for p in series)

    def _show_stats(self, record: stats.VendorStats, zone: ZoneInfo) -> None:
        self.submissions = record.total_submissions
        self.approved_submissions = record.approved_submissions
        self.rejected_submissions = record.rejected_submissions
        self.approval_rate = record.approval_rate
        self.approval_tone = rate_tone(self.approval_rate)
        self.approval_hours = f"{record.average_approval_time:.1f}"
        self.quality_score = f"{record.quality_score:.2f}"
        self.quality_level = quality_level(record.quality_score)
        self.verified = record.is_verified
        self.last_submission = format_day(record.last_submission_at, zone) if record.last_submission_at else ""

    def _show_account(self, status: AccountStatus) -> None:
        self.payment_state = status.setup
        self.requirements = payouts.requirement_labels(status.requirements_due)
        self.charges_enabled, self.payouts_enabled = status.charges_enabled, status.payouts_enabled
        self.account_country = (status.country or "").upper()
        self.account_currency = (status.default_currency or "").upper()

    @rx.event
    async def set_period(self, period: str) -> EventSpec | list[EventSpec] | None:
        if period not in PERIODS or period == self.period:
            return None
        self.period = period
        done = await attempt(Toast(), sales.earnings_series, actor=await self.viewer(), period=period)
        if done.failed:
            return done.events
        self._show_series(done.value)
        return None

    @rx.event
    async def connect_stripe(self) -> AsyncIterator[Any]:
        """Ask for an account link, then let the browser visit it (the provider sends it back to /vendor)."""
        if self.linking:
            return
        self.linking = True
        yield
        # the provider, the network or a refusal: the spec's one message, the cause logged
        done = await attempt(Toast(fallback="Failed to create Stripe account link", reasons=False, unexpected=True,
                                   log="account link failed"), payouts.create_account_link, actor=await self.viewer())
        if done.failed:
            self.linking = False
            yield done.events
            return
        yield rx.call_script(f"window.location.assign({json.dumps(done.value)})")


def _overview(user: User | None, period: str) -> tuple[sales.VendorAnalytics, recurring.RecurringFigures,
                                                      sales.SalesPage, list[agents.VendorAgent],
                                                      list[sales.EarningsPoint]]:
    """The figures and lists the tab shows first: analytics, subscriptions, recent sales, own agents, chart."""
    return (sales.analytics(actor=user), recurring.vendor_recurring(actor=user),
            sales.list_sales(actor=user, limit=RECENT_SALES), agents.list_own_agents(actor=user),
            sales.earnings_series(actor=user, period=period))


def _payments(user: User | None, refresh: bool) -> tuple[payouts.AccountStatus, payouts.PayoutsView]:
    """The Stripe account's state and its payouts: both ask the payment provider."""
    return (payouts.account_status(actor=user, refresh=refresh),
            payouts.list_payouts(actor=user, limit=PAYOUTS_READ))


def _sale_row(sale: sales.SaleRecord, zone: ZoneInfo) -> SaleRow:
    return SaleRow(
        id=sale.order_id,
        agent=sale.agent_name,
        customer=sale.customer_email,
        date=format_day_time(sale.created_at, zone),
        total=money.format_amount(sale.total_amount_cents, sale.currency),
        earnings=money.format_amount(sale.vendor_earnings_cents, sale.currency),
        fee=money.format_amount(sale.platform_fee_cents, sale.currency),
        split=sale.split,
        split_label=money.split_label(sale.commission_rate),
        reason=sale.split_block_reason or "",
        kind=pricing.order_kind_label(sale.kind),
        discount=pricing.code_discount_line(code=sale.promotion_code, discount=sale.discount_cents,
                                            currency=sale.currency),
    )


def _agent_row(agent: agents.VendorAgent, zone: ZoneInfo) -> AgentRow:
    return AgentRow(
        id=agent.id,
        name=agent.name,
        price=money.price_label(agent.price_cents, pricing_model=agent.pricing_model),
        status=agent.status,
        rejection_reason=agent.rejection_reason or "",
        category=agent.category_name or "",
        image_url=images.displayable_image_url(agent.image_url),
        rating=f"{agent.avg_rating:.1f}",
        review_count=agent.review_count,
        sales_count=agent.sales_count,
        submitted=format_day(agent.created_at, zone),
        has_revision=agent.pending_revision is not None,
        revision_rejected=agent.revision_rejection is not None,
        revision_rejection_reason=agent.revision_rejection or "",
        version_label=agent.version_label,
        pending_version_label=(agent.pending_revision.version_label or "") if agent.pending_revision else "",
        **_scan_summary(agent),
    )


def _scan_summary(agent: agents.VendorAgent) -> dict[str, str]:
    """The row's scan line: one line for files all clean, else the files that are not, each with its status."""
    if not agent.file_scans:
        return {"scan": "", "scan_status": ""}
    order = wizard_rows.SCAN_ORDER
    status = max((scan.status for _, scan in agent.file_scans),
                 key=lambda s: order.index(s) if s in order else len(order))
    if status == "clean":
        n = len(agent.file_scans)
        return {"scan": f"{n} file{'s' if n != 1 else ''} scanned: no threats found", "scan_status": status}
    return {"scan": "; ".join(f"{name}: {wizard_rows.scan_label(scan)}" for name, scan in agent.file_scans
                              if scan.status != "clean"), "scan_status": status}


def _payout_row(payout: payouts.PayoutRecord, zone: ZoneInfo) -> PayoutRow:
    return PayoutRow(
        id=payout.id,
        amount=money.format_amount(payout.amount_cents, payout.currency),
        currency=payout.currency.upper(),
        status=payout.status,
        method=METHOD_LABELS.get(payout.method, payout.method),
        type=payout.type,
        arrival=format_day(payout.arrival_date, zone) if payout.arrival_date else "",
        created=format_day(payout.created, zone),
        failure=payout.failure_message or "",
    )
