"""Track record: submissions, review time, quality score and verification, and who may read them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from marketplace import db
from marketplace.models import AgentStatus, Report, ReportStatus, User
from marketplace.models.base import utcnow
from marketplace.services.errors import Forbidden, NotFound, Unauthorized
from marketplace.services.vendors import stats
from tests.factories import make_admin, make_agent, make_user, make_vendor


def _report(agent, status: str = ReportStatus.PENDING) -> None:
    with db.session_scope() as session:
        session.add(Report(agent_id=agent.id, report_type="spam", reason="why", status=status))


def _connect(vendor: User, *, charges: bool = True) -> None:
    with db.session_scope() as session:
        row = session.get(User, vendor.id)
        row.stripe_account_id, row.stripe_charges_enabled = "acct_test", charges
        session.add(row)


@pytest.fixture
def record():
    """4 submissions (2 approved, 1 rejected, 1 pending), reviewed after 10, 20 and 3 hours."""
    vendor = make_vendor()
    t0 = utcnow() - timedelta(days=10)
    a1 = make_agent(vendor, created_at=t0, reviewed_at=t0 + timedelta(hours=10), avg_rating=4.0, review_count=2)
    a2 = make_agent(vendor, created_at=t0, reviewed_at=t0 + timedelta(hours=20), avg_rating=5.0, review_count=1)
    make_agent(vendor, status=AgentStatus.REJECTED, created_at=t0, reviewed_at=t0 + timedelta(hours=3))
    last = make_agent(vendor, status=AgentStatus.PENDING, created_at=t0 + timedelta(days=1))
    make_agent(vendor, created_at=t0 + timedelta(days=2), deleted_at=utcnow())  # deleted: not counted
    _report(a1)                               # open: a1 counts as reported
    _report(a2, ReportStatus.RESOLVED)        # closed: does not count
    return vendor, last


def test_figures_follow_the_documented_formula(record):
    vendor, last = record
    result = stats.vendor_stats(actor=vendor, vendor_id=vendor.id)
    assert (result.total_submissions, result.approved_submissions, result.rejected_submissions) == (4, 2, 1)
    assert result.average_approval_time == 11.0  # (10 + 20 + 3) / 3
    assert result.approval_rate == 50  # 2 of 4
    # 0.5 x 2/4 + 0.3 x (4.5 / 5) + 0.2 x (1 - 1/4) = 0.25 + 0.27 + 0.15
    assert result.quality_score == 0.67
    assert result.is_verified is False  # 2 approved agents
    assert result.last_submission_at == last.created_at


def test_verified_needs_three_approved_a_charging_account_and_quality(record):
    vendor, _ = record
    make_agent(vendor)  # 3 approved of 5; rate 0.6 -> 0.3 + 0.27 + 0.2 x 0.8 = 0.73
    assert stats.vendor_stats(actor=vendor, vendor_id=vendor.id).quality_score == 0.73
    assert stats.vendor_stats(actor=vendor, vendor_id=vendor.id).is_verified is False  # no account
    _connect(vendor, charges=False)
    assert stats.verification_status(actor=vendor)[vendor.id] is False
    _connect(vendor)
    assert stats.vendor_stats(actor=vendor, vendor_id=vendor.id).is_verified is True
    assert stats.verification_status(actor=vendor)[vendor.id] is True
    for _ in range(6):  # quality falls below 0.6: 3 approved of 11, rejected ones lower the rate
        make_agent(vendor, status=AgentStatus.REJECTED)
    result = stats.vendor_stats(actor=vendor, vendor_id=vendor.id)
    assert result.quality_score < 0.6 and result.is_verified is False


def test_approval_rate_is_a_whole_percent_rounded_half_up():
    vendor = make_vendor()
    for status in (AgentStatus.APPROVED, AgentStatus.APPROVED, AgentStatus.APPROVED, AgentStatus.PENDING,
                   AgentStatus.REJECTED, AgentStatus.REJECTED, AgentStatus.REJECTED):
        make_agent(vendor, status=status)
    assert stats.vendor_stats(actor=vendor, vendor_id=vendor.id).approval_rate == 43  # 3 of 7 = 42.86%
    make_agent(vendor, status=AgentStatus.PENDING)
    assert stats.vendor_stats(actor=vendor, vendor_id=vendor.id).approval_rate == 38  # 3 of 8 = 37.5%


def test_a_new_vendor_has_the_neutral_score():
    vendor = make_vendor()
    result = stats.vendor_stats(actor=vendor, vendor_id=vendor.id)
    # 0 + 0.3 x 0.6 (no ratings) + 0.2 x 1 (no reports)
    assert (result.total_submissions, result.average_approval_time, result.quality_score) == (0, 0.0, 0.38)
    assert result.approval_rate == 0  # no submissions: 0, not a division by zero
    assert result.last_submission_at is None and result.is_verified is False


def test_who_may_read_stats(record):
    vendor, _ = record
    with pytest.raises(Unauthorized):
        stats.vendor_stats(actor=None, vendor_id=vendor.id)
    with pytest.raises(Forbidden):
        stats.vendor_stats(actor=make_vendor(), vendor_id=vendor.id)
    customer = make_user()
    with pytest.raises(Forbidden):
        stats.vendor_stats(actor=customer, vendor_id=customer.id)
    admin = make_admin()
    assert stats.vendor_stats(actor=admin, vendor_id=vendor.id).total_submissions == 4
    for unknown in ("missing", customer.id):
        with pytest.raises(NotFound, match="Vendor not found"):
            stats.vendor_stats(actor=admin, vendor_id=unknown)


def test_verification_map_lists_approved_vendors_only(record):
    vendor, _ = record
    other = make_vendor()
    make_vendor(vendor_approved=False)
    make_user()
    assert stats.verification_status(actor=make_admin()) == {vendor.id: False, other.id: False}
    with pytest.raises(Forbidden):
        stats.verification_status(actor=make_user())
    with pytest.raises(Unauthorized):
        stats.verification_status(actor=None)
