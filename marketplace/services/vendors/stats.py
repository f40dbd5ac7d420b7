"""A vendor's track record (spec: the vendor-stats card) and who is verified.

How the figures are computed (also in the README):
- submissions: the vendor's agents that are not deleted; approved / rejected: those in that status;
- averageApprovalTime: mean hours from an agent's `created_at` to its `reviewed_at`, over approved and
  rejected agents (0 when none was reviewed), one decimal;
- approval rate: approved / submissions (0 without submissions), as the card shows it;
- qualityScore (0-1, two decimals) = 0.5 x approval rate
  + 0.3 x (mean rating of its rated live agents / 5, or 0.6 when none is rated: a neutral prior, so a new
  vendor is neither rewarded nor punished for having no reviews yet)
  + 0.2 x (1 - share of its agents with an open report, i.e. a report pending or reviewed);
- isVerified: at least 3 approved agents AND a connected Stripe account with charges enabled AND
  qualityScore >= 0.6. Verified means "has a record and can be paid", which is what a buyer cares about.

The counts are grouped by vendor in SQL, so `verification_status` costs three queries for all vendors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import case, distinct, func
from sqlalchemy import select as sql_select
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentStatus, Report, ReportStatus, Role, User
from marketplace.services.errors import Forbidden, NotFound
from marketplace.services.permissions import require_user, require_vendor

VERIFIED_MIN_APPROVED = 3
VERIFIED_MIN_QUALITY = Decimal("0.6")
NEUTRAL_RATING_SHARE = Decimal("0.6")
OPEN_REPORTS = (ReportStatus.PENDING, ReportStatus.REVIEWED)
VERIFIED_RULE = (f"Verified vendors have at least {VERIFIED_MIN_APPROVED} approved agents, a quality score of "
                 f"{VERIFIED_MIN_QUALITY:.2f} or more and a Stripe account that can take payments. "
                 "Payouts are a separate step, shown under Payment setup.")
VENDOR_NOT_FOUND = "Vendor not found"
STATS_FORBIDDEN = "You can only view your own vendor stats"


@dataclass(frozen=True)
class VendorStats:
    total_submissions: int
    approved_submissions: int
    rejected_submissions: int
    average_approval_time: float  # hours, one decimal
    approval_rate: int  # whole percent, as the card shows it
    quality_score: float
    is_verified: bool
    last_submission_at: datetime | None


@dataclass
class _Record:
    submissions: int = 0
    approved: int = 0
    rejected: int = 0
    last_submission_at: datetime | None = None
    rating: float | None = None
    reported_agents: int = 0


def _records(session: Session, vendor_ids: Iterable[str] | None) -> dict[str, _Record]:
    """Per-vendor counts in three grouped queries (all vendors when `vendor_ids` is None)."""
    mine = [Agent.deleted_at.is_(None)]
    if vendor_ids is not None:
        mine.append(Agent.vendor_id.in_(list(vendor_ids)))
    records: dict[str, _Record] = {}
    for vendor_id, total, approved, rejected, last in session.execute(
        sql_select(Agent.vendor_id, func.count(),
                   func.sum(case((Agent.status == AgentStatus.APPROVED, 1), else_=0)),
                   func.sum(case((Agent.status == AgentStatus.REJECTED, 1), else_=0)),
                   func.max(Agent.created_at))
        .where(*mine).group_by(Agent.vendor_id)).all():
        records[vendor_id] = _Record(submissions=total, approved=int(approved or 0), rejected=int(rejected or 0),
                                     last_submission_at=last)
    for vendor_id, rating in session.exec(
        select(Agent.vendor_id, func.avg(Agent.avg_rating))
        .where(*mine, Agent.status == AgentStatus.APPROVED, Agent.review_count > 0).group_by(Agent.vendor_id)).all():
        if vendor_id is not None:
            records.setdefault(vendor_id, _Record()).rating = float(rating)
    for vendor_id, reported in session.exec(
        select(Agent.vendor_id, func.count(distinct(Report.agent_id)))
        .join(Agent, Agent.id == Report.agent_id)
        .where(*mine, Report.status.in_(OPEN_REPORTS)).group_by(Agent.vendor_id)).all():
        if vendor_id is not None:
            records.setdefault(vendor_id, _Record()).reported_agents = reported
    return records


def _approval_share(record: _Record) -> Decimal:
    return Decimal(record.approved) / record.submissions if record.submissions else Decimal(0)


def approval_rate_percent(record: _Record) -> int:
    """Approved / submissions as a whole percent, half-up; 0 without submissions (spec section 2)."""
    return int((_approval_share(record) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def quality_score(record: _Record) -> Decimal:
    """See the module docstring; half-up to two decimals."""
    approval_rate = _approval_share(record)
    reported_share = Decimal(record.reported_agents) / record.submissions if record.submissions else Decimal(0)
    rating_share = (Decimal(str(record.rating)) / 5) if record.rating is not None else NEUTRAL_RATING_SHARE
    score = Decimal("0.5") * approval_rate + Decimal("0.3") * rating_share + Decimal("0.2") * (1 - reported_share)
    return min(max(score, Decimal(0)), Decimal(1)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def is_verified(record: _Record, *, charges_enabled: bool, score: Decimal) -> bool:
    return record.approved >= VERIFIED_MIN_APPROVED and charges_enabled and score >= VERIFIED_MIN_QUALITY


def _average_approval_hours(session: Session, vendor_id: str) -> float:
    """Mean review time; read per agent (a vendor has few) to stay the same on SQLite and PostgreSQL."""
    rows = session.exec(select(Agent.created_at, Agent.reviewed_at).where(
        Agent.vendor_id == vendor_id, Agent.deleted_at.is_(None), Agent.reviewed_at.is_not(None),
        Agent.status.in_((AgentStatus.APPROVED, AgentStatus.REJECTED)))).all()
    if not rows:
        return 0.0
    took = [(reviewed - created).total_seconds() for created, reviewed in rows if reviewed is not None]
    seconds = sum(took) / len(rows)
    hours = Decimal(str(seconds)) / 3600
    return float(hours.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _charges_enabled(user: User) -> bool:
    return bool(user.stripe_account_id) and user.stripe_charges_enabled


def vendor_stats(*, actor: User | None, vendor_id: str) -> VendorStats:
    """The track record of `vendor_id`: for that vendor itself or an admin."""
    user = require_user(actor)
    if user.role != Role.ADMIN:
        if user.id != vendor_id:
            raise Forbidden(STATS_FORBIDDEN)
        require_vendor(user)
    with session_scope() as session:
        vendor = session.get(User, vendor_id)
        if vendor is None or vendor.deleted_at is not None or vendor.role not in (Role.VENDOR, Role.ADMIN):
            raise NotFound(VENDOR_NOT_FOUND)
        record = _records(session, [vendor_id]).get(vendor_id, _Record())
        hours = _average_approval_hours(session, vendor_id)
    score = quality_score(record)
    return VendorStats(
        total_submissions=record.submissions, approved_submissions=record.approved,
        rejected_submissions=record.rejected, average_approval_time=hours, approval_rate=approval_rate_percent(record),
        quality_score=float(score),
        is_verified=is_verified(record, charges_enabled=_charges_enabled(vendor), score=score),
        last_submission_at=record.last_submission_at,
    )


def verification_status(*, actor: User | None) -> dict[str, bool]:
    """Every approved vendor's id -> verified or not."""
    require_vendor(actor)
    with session_scope() as session:
        vendors = session.exec(select(User.id, User.stripe_account_id, User.stripe_charges_enabled).where(
            User.role == Role.VENDOR, User.is_vendor_approved.is_(True), User.deleted_at.is_(None))).all()
        records = _records(session, None)
    status = {}
    for vendor_id, account, charges in vendors:
        record = records.get(vendor_id, _Record())
        status[vendor_id] = is_verified(record, charges_enabled=bool(account) and bool(charges),
                                        score=quality_score(record))
    return status
