"""Vendor routes: the application, own agents, analytics, sales (+ CSV), earnings chart, Stripe Connect,
track record. Thin adapters over services/vendors/*; every permission is checked by the services."""

from __future__ import annotations

from datetime import UTC

from fastapi import APIRouter, Query, Response
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser, SignedInUser
from marketplace.api.exports import csv_download
from marketplace.models.scans import FileScanPublic
from marketplace.models.submissions import AgentDraftIn, AgentFilePublic, RevisionSummaryPublic, VendorAgentDraftPublic
from marketplace.models.vendor import (
    AccountDetailsPublic,
    AccountLinkPublic,
    AccountStatusPublic,
    CommissionBreakdownPublic,
    EarningsPointPublic,
    PayoutPublic,
    PayoutsPublic,
    SalePublic,
    VendorAgentPublic,
    VendorAnalyticsPublic,
    VendorApplicationPublic,
    VendorApplyIn,
    VendorCategoryRef,
    VendorStatsPublic,
    VerificationPublic,
)
from marketplace.services import money
from marketplace.services.vendors import agents, applications, payouts, recurring, sales, stats
from marketplace.services.vendors.drafts import UNLIMITED, AgentDraft

router = APIRouter(prefix="/api", tags=["vendor"])

SALE_LIST = TypeAdapter(list[SalePublic])


@router.post("/vendor/apply", response_model=VendorApplicationPublic, status_code=201)
def vendor_apply(body: VendorApplyIn, user: SignedInUser) -> VendorApplicationPublic:
    """Any signed-in customer may apply (the one vendor route that does not need a vendor)."""
    application = applications.apply(actor=user, business_name=body.business_name,
                                     business_description=body.business_description, website=body.website)
    return VendorApplicationPublic.model_validate(application)


@router.get("/vendor/application", response_model=VendorApplicationPublic | None)
def vendor_application(user: SignedInUser) -> VendorApplicationPublic | None:
    application = applications.latest_application(actor=user)
    return VendorApplicationPublic.model_validate(application) if application else None


def _draft(body: AgentDraftIn) -> AgentDraft:
    """The wizard's JSON as the service's draft: a price sent as a number is read as its text."""
    price = body.price if isinstance(body.price, str) or body.price is None else str(body.price)
    return AgentDraft(name=body.name, short_description=body.short_description, description=body.description,
                      price=price or "", category_id=body.category_id, demo_url=body.demo_url,
                      image_url=body.image_url, tags=list(body.tags or []), pricing_model=body.pricing_model,
                      activation_limit=body.activation_limit, version_label=body.version_label,
                      release_notes=body.release_notes, trial_days=body.trial_days)


def _draft_public(a: agents.EditableAgent) -> VendorAgentDraftPublic:
    d = a.draft
    return VendorAgentDraftPublic(
        id=a.id, status=a.status, has_pending_revision=a.has_pending_revision, name=d.name,
        short_description=d.short_description, description=d.description, price=d.price,
        pricing_model=d.pricing_model or "monthly", activation_limit=d.activation_limit or UNLIMITED,
        trial_days=int(d.trial_days or 0),
        category_id=d.category_id, demo_url=d.demo_url, image_url=d.image_url, tags=list(d.tags),
        files=[AgentFilePublic(id=f.id, filename=f.filename, size_bytes=f.size_bytes, content_type=f.content_type,
                               scan=FileScanPublic.model_validate(f.scan)) for f in a.files],
        version_label=d.version_label, release_notes=d.release_notes, current_version_label=a.current_version_label,
    )


def _agent(a: agents.VendorAgent) -> VendorAgentPublic:
    return VendorAgentPublic(
        id=a.id, name=a.name, short_description=a.short_description, price=money.format_cents(a.price_cents),
        pricing_model=a.pricing_model, trial_days=a.trial_days, status=a.status, is_approved=a.status == "approved",
        rejection_reason=a.rejection_reason,
        category_id=a.category_id,
        category=VendorCategoryRef(id=a.category_id, name=a.category_name or "") if a.category_id is not None else None,
        image_url=a.image_url, avg_rating=f"{a.avg_rating:.2f}", review_count=a.review_count,
        sales_count=a.sales_count, created_at=a.created_at, updated_at=a.updated_at,
        has_pending_revision=a.has_pending_revision, file_count=a.file_count, version_label=a.version_label,
        pending_revision=RevisionSummaryPublic(
            id=r.id, version=r.version, files_changed=r.files_changed, created_at=r.created_at,
            updated_at=r.updated_at, version_label=r.version_label) if (r := a.pending_revision) else None,
    )


@router.get("/vendor/agents", response_model=list[VendorAgentPublic])
def vendor_agents(user: OptionalUser) -> list[VendorAgentPublic]:
    """Every own agent with its status, pending revision (if any) and file count."""
    return [_agent(a) for a in agents.list_own_agents(actor=user)]


@router.post("/vendor/agents", response_model=VendorAgentDraftPublic, status_code=201)
def create_agent(body: AgentDraftIn, user: OptionalUser) -> VendorAgentDraftPublic:
    """A new agent, pending review; attach its files next with `PUT /api/agent-files`."""
    agent_id = agents.create_agent(actor=user, draft=_draft(body))
    return _draft_public(agents.get_editable_agent(actor=user, agent_id=agent_id))


@router.get("/vendor/agents/{agent_id}", response_model=VendorAgentDraftPublic)
def editable_agent(agent_id: str, user: OptionalUser) -> VendorAgentDraftPublic:
    """An own agent as the wizard edits it (the pending revision's values if any)."""
    return _draft_public(agents.get_editable_agent(actor=user, agent_id=agent_id))


@router.put("/vendor/agents/{agent_id}", response_model=VendorAgentDraftPublic)
def update_agent(agent_id: str, body: AgentDraftIn, user: OptionalUser) -> VendorAgentDraftPublic:
    """Edit an own agent: pending/rejected -> updated, (back) to pending; approved -> a pending revision,
    the live listing unchanged until an admin approves it."""
    agents.update_agent(actor=user, agent_id=agent_id, draft=_draft(body))
    return _draft_public(agents.get_editable_agent(actor=user, agent_id=agent_id))


@router.get("/vendor/analytics", response_model=VendorAnalyticsPublic)
def vendor_analytics(user: OptionalUser) -> VendorAnalyticsPublic:
    """The dashboard's figures, with its recurring revenue (subscribers, MRR, the last 30 days' cancellations and
    refunds); money in USD at each order's or subscription's own rate."""
    a = sales.analytics(actor=user)
    r = recurring.vendor_recurring(actor=user)
    return VendorAnalyticsPublic(
        total_vendor_earnings=money.format_cents(a.total_vendor_earnings_cents),
        total_revenue=money.format_cents(a.total_revenue_cents),
        this_month_earnings=money.format_cents(a.this_month_earnings_cents),
        this_month_revenue=money.format_cents(a.this_month_revenue_cents),
        total_sales=a.total_sales, approved_agents=a.approved_agents, total_agents=a.total_agents,
        avg_rating=f"{a.avg_rating:.2f}", commission_rate=money.format_percent(a.commission_rate),
        active_subscribers=r.active_subscribers, monthly_recurring_revenue=money.format_cents(r.mrr_cents),
        cancellations_last_30_days=r.cancellations_30d, refunds_last_30_days=r.refunds_30d,
        refunded_last_30_days=money.format_cents(r.refunded_30d_cents),
        trialing_subscribers=r.trialing_subscribers, trials_ended_last_30_days=r.trials_ended_30d,
        trials_converted_last_30_days=r.trials_converted_30d, trial_conversion_percent=r.trial_conversion_percent,
    )


def _sale(s: sales.SaleRecord) -> SalePublic:
    return SalePublic(
        order_id=s.order_id, agent_id=s.agent_id, agent_name=s.agent_name, customer_email=s.customer_email,
        created_at=s.created_at.astimezone(UTC), total_amount=money.format_cents(s.total_amount_cents),
        price=money.format_cents(s.price_usd_cents), vendor_earnings=money.format_cents(s.vendor_earnings_cents),
        platform_fee=money.format_cents(s.platform_fee_cents),
        commission_breakdown=CommissionBreakdownPublic(
            commission_rate=money.format_percent(s.commission_rate), split=s.split,
            split_label=money.split_label(s.commission_rate), split_block_reason=s.split_block_reason,
            currency=s.currency, exchange_rate=money.format_rate(s.exchange_rate),
        ),
        payment_intent_id=s.payment_intent_id, currency=s.currency, kind=s.kind,
        promotion_code=s.promotion_code, discount_amount=money.format_cents(s.discount_cents or 0),
    )


@router.get("/vendor/sales", response_model=list[SalePublic], responses=total_answer("sales"))
def vendor_sales(user: OptionalUser, limit: int = Query(20), offset: int = Query(0)) -> Response:
    """Completed sales, newest first; amounts in each order's currency. Total on all pages in X-Total-Count."""
    page = sales.list_sales(actor=user, limit=limit, offset=offset)
    return json_list([_sale(s) for s in page.items], SALE_LIST, page.total)


@router.get("/vendor/sales.csv", response_class=StreamingResponse)
def vendor_sales_csv(user: OptionalUser) -> StreamingResponse:
    return csv_download(sales.sales_csv(actor=user), "sales.csv")


@router.get("/vendor/earnings", response_model=list[EarningsPointPublic])
def vendor_earnings(user: OptionalUser, period: str = Query("day")) -> list[EarningsPointPublic]:
    """The chart: last 30 days (`period=day`) or last 12 months (`period=month`), USD, zero buckets included."""
    return [
        EarningsPointPublic(date=p.start, label=p.label, vendor_earnings=money.format_cents(p.vendor_cents),
                            platform_fee=money.format_cents(p.fee_cents), sales=p.sales)
        for p in sales.earnings_series(actor=user, period=period)
    ]


@router.get("/vendor/payouts", response_model=PayoutsPublic)
def vendor_payouts(user: OptionalUser) -> PayoutsPublic:
    view = payouts.list_payouts(actor=user)
    return PayoutsPublic(
        has_account=view.has_account, account_currency=view.account_currency,
        payouts=[PayoutPublic(id=p.id, amount=money.format_cents(p.amount_cents), currency=p.currency,
                              status=p.status, method=p.method, type=p.type, arrival_date=p.arrival_date,
                              created=p.created, failure_message=p.failure_message) for p in view.payouts],
    )


@router.get("/vendor/stripe/account-status", response_model=AccountStatusPublic)
def vendor_account_status(user: OptionalUser) -> AccountStatusPublic:
    status = payouts.account_status(actor=user)
    return AccountStatusPublic(
        connected=status.connected, requires_action=status.requires_action, account_status=status.account_status,
        charges_enabled=status.charges_enabled, payouts_enabled=status.payouts_enabled,
        details=AccountDetailsPublic(requirements_due=status.requirements_due, country=status.country,
                                     default_currency=status.default_currency),
    )


@router.post("/vendor/stripe/create-account-link", response_model=AccountLinkPublic)
def vendor_account_link(user: OptionalUser) -> AccountLinkPublic:
    return AccountLinkPublic(url=payouts.create_account_link(actor=user))


@router.get("/vendor/verification-status", response_model=dict[str, VerificationPublic])
def verification_status(user: OptionalUser) -> dict[str, VerificationPublic]:
    return {vendor_id: VerificationPublic(is_verified=ok)
            for vendor_id, ok in stats.verification_status(actor=user).items()}


# Last: the one parameterised path, after every static /vendor/* route above.
@router.get("/vendor/{vendor_id}/stats", response_model=VendorStatsPublic)
def vendor_stats(vendor_id: str, user: OptionalUser) -> VendorStatsPublic:
    s = stats.vendor_stats(actor=user, vendor_id=vendor_id)
    return VendorStatsPublic(
        total_submissions=s.total_submissions, approved_submissions=s.approved_submissions,
        rejected_submissions=s.rejected_submissions, average_approval_time=s.average_approval_time,
        quality_score=s.quality_score, is_verified=s.is_verified, last_submission_at=s.last_submission_at,
    )
