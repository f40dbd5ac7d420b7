"""Admin analytics: the three cards, pending reports, rankings; report status moves (audited); page views
counted once per visitor per day; weekly sign-ups."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Agent, AgentStatus, AgentView, AuditEntry, Report
from marketplace.models.base import utcnow
from marketplace.services import views
from marketplace.services.admin import analytics, moderation, reports, stats
from marketplace.services.errors import Conflict, Forbidden, InvalidParameter, NotFound, Unauthorized
from marketplace.services.vendors import files
from tests.factories import (
    ago,
    make_admin,
    make_agent,
    make_application,
    make_category,
    make_report,
    make_upload,
    make_user,
    make_vendor,
    make_views,
    upload_url,
)


def test_overview_counts_and_recent_pending_reports():
    admin = make_admin()
    for status in ("pending", "pending", "approved", "rejected"):
        make_application(make_user(), status=status)
    vendor = make_vendor()
    rated = make_agent(vendor, "Rated", ratings=(5, 4))            # 4.5
    make_agent(vendor, "Rated too", ratings=(3,))                  # 3.0
    make_agent(vendor, "Pending", status=AgentStatus.PENDING, files=1)
    make_agent(vendor, "Half-made", status=AgentStatus.PENDING)  # no files: not in the review queue, not counted
    make_agent(vendor, "Rejected", status=AgentStatus.REJECTED)
    make_agent(vendor, "Deleted", ratings=(1,), deleted_at=utcnow())
    old = make_report(rated, created_at=ago(days=2), description="Details")
    new = make_report(rated, report_type="spam", reason="Spammy", created_at=ago(hours=1))
    make_report(rated, status="reviewed")
    make_report(rated, status="resolved")
    result = analytics.overview(actor=admin)
    assert result.vendor_approval_history == analytics.ApprovalHistory(2, 1, 1, 4)
    assert result.agent_quality_summary == analytics.QualitySummary(
        total_agents=5, pending_approval=1, approved=2, average_rating=3.75, rated_agents=2)
    counts = result.customer_reports
    assert (counts.pending, counts.reviewed, counts.resolved, counts.total_reports) == (2, 1, 1, 4)
    assert [r.id for r in counts.recent_reports] == [new.id, old.id]
    assert (counts.recent_reports[0].report_type, counts.recent_reports[0].reason) == ("spam", "Spammy")
    assert (counts.recent_reports[1].agent_name, counts.recent_reports[1].description) == ("Rated", "Details")


def test_pending_approval_is_the_review_queue_of_new_agents():
    """One rule (moderation.awaits_review) for the queue and the figure: a fileless or deleted pending agent is
    in neither, and attaching a file puts it in both."""
    admin, vendor = make_admin(), make_vendor()
    fileless = make_agent(vendor, "Waiting for its file", status=AgentStatus.PENDING)
    make_agent(vendor, "Deleted pending", status=AgentStatus.PENDING, files=1, deleted_at=utcnow())
    make_agent(vendor, "Ready", status=AgentStatus.PENDING, files=2)

    def figures() -> tuple[int, set[str]]:
        items, _ = moderation.list_pending(actor=admin)
        return (analytics.overview(actor=admin).agent_quality_summary.pending_approval,
                {item.name for item in items if item.kind == "agent"})

    assert figures() == (1, {"Ready"})
    files.attach_file(actor=vendor, agent_id=fileless.id, file_url=upload_url(make_upload(vendor)))
    assert figures() == (2, {"Ready", "Waiting for its file"})


def test_overview_when_empty():
    result = analytics.overview(actor=make_admin())
    assert result.agent_quality_summary.average_rating == 0.0
    assert result.customer_reports.recent_reports == [] and result.vendor_approval_history.total_applications == 0


def test_rankings_live_agents_with_activity_only():
    admin = make_admin()
    vendor = make_vendor()
    a = make_agent(vendor, "A", sales_count=3, favorites_count=1, price_cents=999)
    b = make_agent(vendor, "B", sales_count=7, favorites_count=4, ratings=(5, 5))
    make_agent(vendor, "Idle")
    make_agent(vendor, "Pending", status=AgentStatus.PENDING, sales_count=99, favorites_count=99)
    make_agent(vendor, "Deleted", sales_count=50, deleted_at=utcnow())
    make_views(a, 3)
    make_views(b, 1)
    bought = analytics.most_bought(actor=admin)
    assert [(r.agent_name, r.purchase_count) for r in bought] == [("B", 7), ("A", 3)]
    assert (bought[1].agent_id, bought[1].agent_price_cents) == (a.id, 999)
    assert [(r.agent_name, r.favorites_count) for r in analytics.most_saved(actor=admin)] == [("B", 4), ("A", 1)]
    viewed = analytics.most_viewed(actor=admin)
    assert [(r.name, r.view_count, r.review_count) for r in viewed] == [("A", 3, 0), ("B", 1, 2)]
    assert [r.agent_name for r in analytics.most_bought(actor=admin, limit=1)] == ["B"]
    for limit in (0, 51):
        with pytest.raises(InvalidParameter):
            analytics.most_saved(actor=admin, limit=limit)


def test_top_categories_by_live_agents():
    admin = make_admin()
    vendor = make_vendor()
    writing, code, empty = make_category("Writing", emoji="✍️"), make_category("Code", emoji="💻"), make_category()
    for _ in range(2):
        make_agent(vendor, category=code)
    make_agent(vendor, category=writing)
    make_agent(vendor, category=writing, status=AgentStatus.PENDING)
    make_agent(vendor, category=writing, deleted_at=utcnow(), status=AgentStatus.APPROVED)
    rows = analytics.top_categories(actor=admin)
    assert [(r.category_name, r.category_emoji, r.agent_count) for r in rows] == [("Code", "💻", 2),
                                                                                 ("Writing", "✍️", 1)]
    assert rows[0].category_id == code.id and empty.id not in {r.category_id for r in rows}


# ---- report status ----------------------------------------------------------------------------------------


def test_report_moves_along_and_is_audited():
    admin = make_admin()
    agent = make_agent(make_vendor(), "Broken bot")
    report = make_report(agent)
    row = reports.set_report_status(actor=admin, report_id=report.id, status="reviewed")
    assert (row.status, row.agent_name, row.agent_id) == ("reviewed", "Broken bot", agent.id)
    assert reports.set_report_status(actor=admin, report_id=report.id, status="Resolved").status == "resolved"
    other = make_report(agent)
    assert reports.set_report_status(actor=admin, report_id=other.id, status="resolved").status == "resolved"
    with db.session_scope() as session:
        entries = session.exec(select(AuditEntry).order_by(AuditEntry.created_at)).all()
    assert [(e.action, e.target_type, e.target_id, e.actor_id) for e in entries] == [
        ("report.status", "report", report.id, admin.id), ("report.status", "report", report.id, admin.id),
        ("report.status", "report", other.id, admin.id)]
    assert '"from": "pending"' in entries[0].details and '"to": "reviewed"' in entries[0].details


@pytest.mark.parametrize(("start", "to", "error"), [
    ("resolved", "reviewed", Conflict), ("resolved", "resolved", Conflict), ("reviewed", "reviewed", Conflict),
    ("pending", "pending", InvalidParameter), ("pending", "closed", InvalidParameter), ("pending", 3, InvalidParameter),
])
def test_report_bad_moves(start, to, error):
    admin = make_admin()
    report = make_report(make_agent(make_vendor()), status=start)
    with pytest.raises(error):
        reports.set_report_status(actor=admin, report_id=report.id, status=to)
    with db.session_scope() as session:
        assert session.get(Report, report.id).status == start
        assert session.exec(select(AuditEntry)).all() == []


def test_report_status_permissions_and_unknown():
    report = make_report(make_agent(make_vendor()))
    with pytest.raises(Unauthorized):
        reports.set_report_status(actor=None, report_id=report.id, status="reviewed")
    for user in (make_user(), make_vendor()):
        with pytest.raises(Forbidden):
            reports.set_report_status(actor=user, report_id=report.id, status="reviewed")
    with pytest.raises(NotFound):
        reports.set_report_status(actor=make_admin(), report_id="nope", status="reviewed")
    with db.session_scope() as session:
        assert session.get(Report, report.id).status == "pending"


# ---- page views --------------------------------------------------------------------------------------------


def _view_count(agent_id: str) -> int:
    with db.session_scope() as session:
        return session.get(Agent, agent_id).view_count


def test_a_view_counts_once_per_visitor_per_day():
    agent = make_agent(make_vendor())
    today, tomorrow = date(2026, 3, 15), date(2026, 3, 16)
    assert views.record_view(agent_id=agent.id, visitor="u1", day=today) is True
    assert views.record_view(agent_id=agent.id, visitor="u1", day=today) is False
    assert views.record_view(agent_id=agent.id, visitor="u2", day=today) is True
    assert views.record_view(agent_id=agent.id, visitor="u1", day=tomorrow) is True
    assert _view_count(agent.id) == 3
    with db.session_scope() as session:
        assert len(session.exec(select(AgentView)).all()) == 3


def test_a_view_never_raises():
    assert views.record_view(agent_id="missing-agent", visitor="u1") is False
    assert views.record_view(agent_id="", visitor="u1") is False


def test_views_in_the_background_and_the_visitor_key(monkeypatch):
    agent = make_agent(make_vendor())
    anonymous = views.visitor_key(user_id=None, client_token="token-1")
    assert anonymous == views.visitor_key(user_id=None, client_token="token-1") != "token-1"
    assert len(anonymous) == 64 and views.visitor_key(user_id=None, client_token="token-2") != anonymous
    assert views.visitor_key(user_id="abc", client_token="token-1") == "abc"
    assert views.visitor_key(user_id=None, client_token=None) is None
    assert views.record_view_soon(agent_id=agent.id, visitor=None) is None
    futures = [views.record_view_soon(agent_id=agent.id, visitor=v) for v in (anonymous, anonymous, "abc")]
    assert [f.result(timeout=10) for f in futures] == [True, False, True]
    assert _view_count(agent.id) == 2


def test_agent_page_load_counts_a_view_without_waiting(monkeypatch):
    from marketplace.state import agent_detail

    calls: list[dict] = []
    monkeypatch.setattr(views, "record_view_soon", lambda **kw: calls.append(kw))

    state = SimpleNamespace(agent=agent_detail.AgentView(id="agent-1"),
                            router=SimpleNamespace(session=SimpleNamespace(client_token="tok")))
    agent_detail.AgentDetailState._count_view(state, "user-9")
    agent_detail.AgentDetailState._count_view(state, None)
    assert calls == [{"agent_id": "agent-1", "visitor": "user-9"},
                     {"agent_id": "agent-1", "visitor": views.visitor_key(user_id=None, client_token="tok")}]


# ---- weekly sign-ups ----------------------------------------------------------------------------------------


def test_weekly_signups_monday_weeks_with_zeros():
    now = datetime(2026, 3, 18, 12, 0, tzinfo=UTC)  # a Wednesday
    admin = make_admin(created_at=now - timedelta(days=400))
    make_user(created_at=now - timedelta(days=1))                # this week
    make_user(created_at=datetime(2026, 3, 16, 0, 0, tzinfo=UTC))  # Monday 00:00 of this week
    make_user(created_at=now - timedelta(days=8))                # last week
    make_user(created_at=now - timedelta(days=3), deleted_at=utcnow())
    make_agent(make_vendor(created_at=now - timedelta(days=300)), created_at=now - timedelta(days=9))
    points = stats.weekly_signups(actor=admin, now=now)
    assert len(points) == 12 and points[-1].week_start == date(2026, 3, 16)
    assert all(p.week_start.weekday() == 0 for p in points)
    assert (points[-1].users, points[-2].users, points[-2].agents) == (2, 1, 1)
    assert sum(p.users for p in points) == 3 and sum(p.agents for p in points) == 1
    with pytest.raises(InvalidParameter):
        stats.weekly_signups(actor=admin, weeks=0)


def test_reports_are_listed_by_status_newest_first_with_their_moves():
    admin, agent = make_admin(), make_agent(make_vendor(), name="Flagged")
    old = make_report(agent, created_at=ago(days=2), reason="Old")
    new = make_report(agent, created_at=ago(days=1), reason="New", description="Details")
    done = make_report(agent, status="resolved")
    rows, total = reports.list_reports(actor=admin, status="pending")
    assert total == 2 and [r.id for r in rows] == [new.id, old.id]
    assert (rows[0].reason, rows[0].description, rows[0].agent_name) == ("New", "Details", "Flagged")
    page, total = reports.list_reports(actor=admin, status="pending", limit=1, offset=1)
    assert [r.id for r in page] == [old.id] and total == 2
    reports.set_report_status(actor=admin, report_id=new.id, status="reviewed")
    assert [r.id for r in reports.list_reports(actor=admin, status="reviewed")[0]] == [new.id]
    assert [r.id for r in reports.list_reports(actor=admin, status="resolved")[0]] == [done.id]
    assert (reports.moves("pending"), reports.moves("reviewed"), reports.moves("resolved")) == (
        ["reviewed", "resolved"], ["resolved"], [])
    with pytest.raises(InvalidParameter):
        reports.list_reports(actor=admin, status="open")
    with pytest.raises(Forbidden):
        reports.list_reports(actor=make_user(), status="pending")
    with pytest.raises(Unauthorized):
        reports.list_reports(actor=None, status="pending")
