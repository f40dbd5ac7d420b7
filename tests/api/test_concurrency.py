"""Decisions under simultaneous requests, over real HTTP against one app (tests/live_api.py), on SQLite and
PostgreSQL: of N requests deciding the same thing, exactly one wins (200) and every other answers 409 with a
message and causes nothing: one notification, one mail, one audit entry, and nothing lost in storage.

Other areas keep their races in `test_concurrency_<area>.py`, in the same style.
"""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from functools import partial

import httpx
import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import (
    Agent,
    AgentFile,
    AgentRevision,
    AuditEntry,
    Notification,
    OutboxMail,
    Report,
    Review,
    User,
    VendorApplication,
)
from marketplace.services import downloads
from marketplace.services.admin import applications, moderation
from tests import factories
from tests.live_api import LiveApi, fire
from tests.mail_fixtures import Mailbox

# Each race runs this many times on fresh rows: a lost race shows up in one of them.
rounds = pytest.mark.parametrize("round_", range(3))


def _winner(answers: list[httpx.Response], ok: int = 200) -> int:
    """The index of the one answer that won; every other one is a 409 with a message."""
    statuses = [a.status_code for a in answers]
    assert sorted(statuses) == sorted([ok] + [409] * (len(answers) - 1)), [(a.status_code, a.text) for a in answers]
    for answer in answers:
        if answer.status_code == 409:
            assert answer.json()["message"], answer.text
    return statuses.index(ok)


def _notes(user_id: str) -> list[tuple[str, str]]:
    with db.session_scope() as session:
        rows = session.exec(select(Notification).where(Notification.user_id == user_id)).all()
        return sorted((n.type, n.title) for n in rows)


def _audit(target_id: str) -> list[str]:
    with db.session_scope() as session:
        return [e.action for e in session.exec(select(AuditEntry).where(AuditEntry.target_id == target_id)).all()]


def _mail_subjects(mailbox: Mailbox, to: str) -> list[str]:
    """Subjects of the mail written for `to` (outbox rows) and, once sent, of what the SMTP catcher received."""
    received = sorted(m.subject for m in mailbox.messages(to))
    with db.session_scope() as session:
        assert sorted(session.exec(select(OutboxMail.subject).where(OutboxMail.recipient == to)).all()) == received
    return received


def _agent(agent_id: str) -> Agent:
    with db.session_scope() as session:
        return session.get(Agent, agent_id)


def _files(agent: Agent) -> dict[str, str]:
    """File name -> storage key of the files buyers get (the current version)."""
    with db.session_scope() as session:
        rows = session.exec(select(AgentFile).where(AgentFile.agent_id == agent.id,
                                                    AgentFile.version == agent.current_version)).all()
        return {row.filename: row.storage_key for row in rows}


def _download(client: httpx.Client, agent_id: str) -> dict[str, bytes]:
    """The agent's files in the buyer's zip (their LICENSE-KEY.txt aside)."""
    response = client.get(f"/api/agents/{agent_id}/download")
    assert response.status_code == 200, response.text
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name: archive.read(name) for name in archive.namelist() if name != downloads.LICENSE_FILE}


@rounds
def test_approve_and_reject_of_a_revision_that_removes_a_file(live_api: LiveApi, mailbox: Mailbox, round_: int):
    """The reported bug: both answered 200, the agent ended approved with no files and its objects deleted."""
    admin = live_api.signed_in(factories.make_admin().username)
    vendor, buyer = factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor, name="Racy Bot")
    keep = factories.store_agent_file(agent, b"kept\n", filename="keep.txt")
    gone = factories.store_agent_file(agent, b"removed\n", filename="gone.txt")
    factories.make_purchase(buyer, agent)
    removed = live_api.signed_in(vendor.username).delete(f"/api/agent-files/{gone.id}")
    assert removed.status_code == 204, removed.text
    factories.label_revision(agent, "1.1.0", "Drops gone.txt.")

    answers = fire([partial(admin.post, f"/api/admin/agents/{agent.id}/approve"),
                    partial(admin.post, f"/api/admin/agents/{agent.id}/reject")])
    approved = _winner(answers) == 0

    after = _agent(agent.id)
    assert after.status == "approved"
    expected = {"keep.txt": b"kept\n"} if approved else {"keep.txt": b"kept\n", "gone.txt": b"removed\n"}
    assert _download(live_api.signed_in(buyer.username), agent.id) == expected
    storage = get_storage()
    assert all(storage.head(key) is not None for key in _files(after).values())  # nothing lost
    assert storage.head(keep.storage_key) is not None
    # Kept either way: approved, the version before stays downloadable (the current one and the two before it).
    assert storage.head(gone.storage_key) is not None
    if approved:
        assert after.current_version == 2
        with db.session_scope() as session:
            note = session.exec(select(Notification).where(Notification.user_id == buyer.id)).one()
        assert "Version 1.1.0 of Racy Bot" in note.message and "Drops gone.txt." in note.message
        assert _notes(vendor.id) == [("approval", moderation.UPDATE_APPROVED_TITLE)]
        assert _notes(buyer.id) == [("update", moderation.BUYER_UPDATE_TITLE)]
        assert _mail_subjects(mailbox, buyer.email) == [moderation.BUYER_UPDATE_TITLE]
    else:
        assert after.current_version == 1
        assert _notes(vendor.id) == [("rejection", moderation.UPDATE_REJECTED_TITLE)]
        assert _notes(buyer.id) == [] and _mail_subjects(mailbox, buyer.email) == []
    assert len(_mail_subjects(mailbox, vendor.email)) == 1
    assert _audit(agent.id) == ["agent.approve" if approved else "agent.reject"]


@rounds
def test_five_approvals_and_five_rejections_of_a_pending_agent(live_api: LiveApi, mailbox: Mailbox, round_: int):
    admin = live_api.signed_in(factories.make_admin().username)
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor, status="pending", files=1)
    approved = _winner(fire([partial(admin.post, f"/api/admin/agents/{agent.id}/approve")] * 5
                            + [partial(admin.post, f"/api/admin/agents/{agent.id}/reject")] * 5)) < 5

    assert _agent(agent.id).status == ("approved" if approved else "rejected")
    title = moderation.APPROVED_TITLE if approved else moderation.REJECTED_TITLE
    assert _notes(vendor.id) == [("approval" if approved else "rejection", title)]
    assert _mail_subjects(mailbox, vendor.email) == [title]
    assert _audit(agent.id) == ["agent.approve" if approved else "agent.reject"]


@rounds
def test_four_approvals_and_one_rejection_of_an_application(live_api: LiveApi, mailbox: Mailbox, round_: int):
    admin = live_api.signed_in(factories.make_admin().username)
    user = factories.make_user()
    factories.make_application(user)
    approved = _winner(fire([partial(admin.post, f"/api/admin/vendor/{user.id}/approve")] * 4
                            + [partial(admin.post, f"/api/admin/vendor/{user.id}/reject")])) < 4

    with db.session_scope() as session:
        [application] = session.exec(select(VendorApplication).where(VendorApplication.user_id == user.id)).all()
        row = session.get(User, user.id)
    assert application.status == ("approved" if approved else "rejected")
    assert (row.role, row.is_vendor_approved) == (("vendor", True) if approved else ("user", False))
    title = applications.APPROVED_TITLE if approved else applications.REJECTED_TITLE
    assert _notes(user.id) == [("approval" if approved else "rejection", title)]
    assert _mail_subjects(mailbox, user.email) == [title]
    assert _audit(user.id) == ["vendor.approve" if approved else "vendor.reject"]


@rounds
def test_one_report_move_of_many_at_once(live_api: LiveApi, round_: int):
    admin = live_api.signed_in(factories.make_admin().username)
    report = factories.make_report(factories.make_agent(factories.make_vendor()))
    _winner(fire([partial(admin.put, f"/api/admin/reports/{report.id}", json={"status": "resolved"})] * 5))
    with db.session_scope() as session:
        assert session.get(Report, report.id).status == "resolved"
    assert _audit(report.id) == ["report.status"]


@rounds
def test_one_mark_reviewed_then_one_resolve_of_many_at_once(live_api: LiveApi, round_: int):
    """The Reports tab's two moves, each raced: one request moves the report, the others answer 409."""
    admin = live_api.signed_in(factories.make_admin().username)
    report = factories.make_report(factories.make_agent(factories.make_vendor()))
    for status in ("reviewed", "resolved"):
        _winner(fire([partial(admin.put, f"/api/admin/reports/{report.id}", json={"status": status})] * 5))
        with db.session_scope() as session:
            assert session.get(Report, report.id).status == status
    assert _audit(report.id) == ["report.status", "report.status"]


@rounds
def test_a_vendor_edit_at_the_moment_of_approval_never_undoes_it(live_api: LiveApi, round_: int):
    """The edit lands before the decision (the admin approves the edited agent), goes to a revision after it,
    or is refused (409): never an agent back in review that its vendor was just told is live."""
    admin = live_api.signed_in(factories.make_admin().username)
    vendor, category = factories.make_vendor(), factories.make_category()
    agent = factories.make_agent(vendor, name="Before", status="pending", category=category, files=1)
    owner = live_api.signed_in(vendor.username)
    draft = {"name": "After", "shortDescription": "Short", "description": "Long text", "price": "29.99",
             "categoryId": category.id, "tags": []}
    edit, decision = fire([partial(owner.put, f"/api/vendor/agents/{agent.id}", json=draft),
                           partial(admin.post, f"/api/admin/agents/{agent.id}/approve")])
    after = _agent(agent.id)
    assert decision.status_code == 200, decision.text
    assert edit.status_code in (200, 409), edit.text
    assert after.status == "approved"
    edited_first = edit.status_code == 200 and _pending_changes(agent.id) is None
    assert after.name == ("After" if edited_first else "Before")
    assert _notes(vendor.id) == [("approval", moderation.APPROVED_TITLE)]
    assert _audit(agent.id) == ["agent.approve"]


def _pending_changes(agent_id: str) -> str | None:
    with db.session_scope() as session:
        revision = session.exec(select(AgentRevision).where(AgentRevision.agent_id == agent_id,
                                                            AgentRevision.status == "pending")).first()
        return revision.changes if revision else None


@rounds
def test_no_agent_goes_live_without_files_when_its_last_file_is_removed_at_once(live_api: LiveApi, round_: int):
    admin = live_api.signed_in(factories.make_admin().username)
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor, status="pending")
    only = factories.store_agent_file(agent, b"only\n", filename="only.txt")
    owner = live_api.signed_in(vendor.username)
    removal, decision = fire([partial(owner.delete, f"/api/agent-files/{only.id}"),
                              partial(admin.post, f"/api/admin/agents/{agent.id}/approve")])
    after = _agent(agent.id)
    assert removal.status_code in (204, 409) and decision.status_code in (200, 409), (removal.text, decision.text)
    if after.status == "approved":
        assert decision.status_code == 200 and _files(after) == {"only.txt": only.storage_key}
    else:
        assert (after.status, decision.status_code, removal.status_code) == ("pending", 409, 204)
        assert decision.json()["message"] == moderation.NO_FILES and _audit(agent.id) == []


def test_one_application_of_many_at_once(live_api: LiveApi):
    user = factories.make_user()
    client = live_api.signed_in(user.username)
    _winner(fire([partial(client.post, "/api/vendor/apply", json={"businessName": "Acme"})] * 5), ok=201)
    with db.session_scope() as session:
        assert len(session.exec(select(VendorApplication).where(VendorApplication.user_id == user.id)).all()) == 1


def test_one_delete_of_many_at_once(live_api: LiveApi):
    """The rows stay (soft delete): the first delete wins, the others find nothing left to delete (404)."""
    admin = live_api.signed_in(factories.make_admin().username)
    agent = factories.make_agent(factories.make_vendor())
    answers = fire([partial(admin.delete, f"/api/admin/agents/{agent.id}")] * 5)
    assert Counter(a.status_code for a in answers) == {204: 1, 404: 4}
    assert _audit(agent.id) == ["agent.delete"]


def test_simultaneous_edits_of_one_review_keep_the_agent_totals_right(live_api: LiveApi):
    agent = factories.make_agent(factories.make_vendor())
    buyer = factories.make_buyer(agent)
    client = live_api.signed_in(buyer.username)
    path = f"/api/agents/{agent.id}/reviews"
    assert client.post(path, json={"rating": 3, "comment": "ok"}).status_code == 201
    answers = fire([partial(client.post, path, json={"rating": 1 + 4 * (n % 2), "comment": f"edit {n}"})
                    for n in range(6)])
    assert {a.status_code for a in answers} <= {200, 201}, [a.text for a in answers]
    after = _agent(agent.id)
    with db.session_scope() as session:
        [review] = session.exec(select(Review).where(Review.agent_id == agent.id)).all()
    assert (after.review_count, after.rating_sum, after.avg_rating) == (1, review.rating, review.rating)
