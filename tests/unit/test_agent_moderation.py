"""Admin moderation: the pending list, approving and rejecting new agents and revisions, notifications."""

from __future__ import annotations

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, AgentRevision, AgentStatus, Notification
from marketplace.services import catalog
from marketplace.services.admin import moderation
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from marketplace.services.vendors import agents
from marketplace.services.vendors.drafts import AgentDraft
from tests import factories
from tests.factories import make_admin, make_agent, make_category, make_purchase, make_user, make_vendor


def _notes(user):
    with db.session_scope() as session:
        return list(session.exec(select(Notification).where(Notification.user_id == user.id)
                                 .order_by(Notification.created_at)).all())


def _agent(agent_id):
    with db.session_scope() as session:
        return session.get(Agent, agent_id)


def _files(agent_id, version):
    with db.session_scope() as session:
        return list(session.exec(select(AgentFile).where(AgentFile.agent_id == agent_id,
                                                         AgentFile.version == version)).all())


def _add_file(agent, name, data, *, version=1):
    key = f"agents/{agent.id}/{version}/{name}"
    get_storage().put(key, data)
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=agent.id, version=version, storage_key=key, filename=name,
                              size_bytes=len(data)))
        session.add(factories.clean_scan(key))
    return key


def edit(vendor, agent, category, **changes):
    values = {"name": agent.name, "short_description": agent.short_description, "description": agent.description,
              "price": "29.99", "category_id": category.id, "tags": []}
    agents.update_agent(actor=vendor, agent_id=agent.id, draft=AgentDraft(**{**values, **changes}))


def test_moderation_is_admin_only():
    agent = make_agent(make_vendor(), status=AgentStatus.PENDING, files=1)
    for call in (lambda a: moderation.list_pending(actor=a), lambda a: moderation.approve(actor=a, agent_id=agent.id),
                 lambda a: moderation.reject(actor=a, agent_id=agent.id)):
        with pytest.raises(Unauthorized):
            call(None)
        for user in (make_user(), make_vendor()):
            with pytest.raises(Forbidden, match="Admin access required"):
                call(user)
    assert _agent(agent.id).status == "pending"


def test_approve_a_new_agent_needs_files_and_notifies_the_vendor():
    admin, vendor = make_admin(), make_vendor()
    empty = make_agent(vendor, name="Empty", status=AgentStatus.PENDING)
    with pytest.raises(Conflict, match="An agent without files cannot be approved"):
        moderation.approve(actor=admin, agent_id=empty.id)
    assert _agent(empty.id).status == "pending" and _notes(vendor) == []
    agent = make_agent(vendor, name="Ready", status=AgentStatus.PENDING, files=1)
    decision = moderation.approve(actor=admin, agent_id=agent.id)
    assert (decision.status, decision.current_version) == ("approved", 1)
    row = _agent(agent.id)
    assert row.status == "approved" and row.reviewed_at is not None
    [note] = _notes(vendor)
    assert (note.type, note.title, note.message) == ("approval", "Agent approved",
                                                     "Your agent Ready has been approved and is now live.")
    assert [a.name for a in catalog.list_agents().items] == ["Ready"]
    with pytest.raises(Conflict, match="no pending changes"):
        moderation.approve(actor=admin, agent_id=agent.id)
    for missing in ("missing", make_agent(vendor, deleted_at=row.created_at).id):
        with pytest.raises(NotFound):
            moderation.approve(actor=admin, agent_id=missing)


@pytest.mark.parametrize(("reason", "stored", "message"), [
    ("  Needs a demo  ", "Needs a demo", "Your agent Bot was not approved. Reason: Needs a demo"),
    ("   ", None, "Your agent Bot was not approved."),
    (None, None, "Your agent Bot was not approved."),
])
def test_reject_a_new_agent_with_an_optional_reason(reason, stored, message):
    admin, vendor = make_admin(), make_vendor()
    agent = make_agent(vendor, name="Bot", status=AgentStatus.PENDING)
    decision = moderation.reject(actor=admin, agent_id=agent.id, rejection_reason=reason)
    row = _agent(agent.id)
    assert (decision.status, row.status, row.rejection_reason) == ("rejected", "rejected", stored)
    [note] = _notes(vendor)
    assert (note.type, note.title, note.message) == ("rejection", "Agent rejected", message)
    with pytest.raises(Conflict, match="nothing waiting for review"):
        moderation.reject(actor=admin, agent_id=agent.id)


def test_reject_reason_is_bounded():
    agent = make_agent(make_vendor(), status=AgentStatus.PENDING)
    with pytest.raises(Invalid, match="at most 2000"):
        moderation.reject(actor=make_admin(), agent_id=agent.id, rejection_reason="x" * 2001)
    assert _agent(agent.id).status == "pending"


def test_pending_list_has_new_agents_and_revisions_with_what_changed():
    admin, vendor = make_admin(), make_vendor("seller", email="seller@example.com")
    writing, coding = make_category("Writing"), make_category("Coding")
    new = make_agent(vendor, name="New", status=AgentStatus.PENDING, category=writing, tags=["x"], files=1)
    live = make_agent(vendor, name="Live", category=writing, tags=["old"])
    kept = _add_file(live, "kept.md", b"# kept")
    _add_file(live, "dropped.txt", b"dropped")
    edit(vendor, live, coding, name="Live 2", tags=["old"], price="29.99")
    [dropped] = [f for f in _files(live.id, 2) if f.filename == "dropped.txt"]
    from marketplace.services.vendors import files

    files.remove_file(actor=vendor, file_id=dropped.id)
    make_agent(vendor, name="Other live")  # approved without a revision: not listed
    items, total = moderation.list_pending(actor=admin)
    assert total == 2 and [i.kind for i in items] == ["agent", "revision"]
    first, revision = items
    assert (first.agent_id, first.name, first.category_name, first.tags, first.file_count) == (
        new.id, "New", "Writing", ["x"], 1)
    assert (first.vendor.username, first.vendor.email) == ("seller", "seller@example.com")
    assert (revision.agent_id, revision.name, revision.category_name, revision.file_count) == (
        live.id, "Live 2", "Coding", 1)
    assert revision.changed_fields == ["name", "category_id"]
    assert [(c.field, c.old, c.new) for c in revision.field_changes] == [
        ("name", "Live", "Live 2"), ("category_id", "Writing", "Coding")]  # a category by its name
    assert [(f.filename, f.size_bytes) for f in revision.files] == [("kept.md", 6)]  # the version under review
    assert [f.id for f in first.files] == [f.id for f in _files(new.id, 1)] and len(first.files) == 1
    assert (revision.files_added, revision.files_removed) == ([], ["dropped.txt"])
    assert [f.storage_key for f in _files(live.id, 1)].count(kept) == 1  # the live files are untouched
    page, total = moderation.list_pending(actor=admin, limit=1, offset=1)
    assert [i.kind for i in page] == ["revision"] and total == 2


def test_approving_a_revision_with_new_files_publishes_a_version_and_tells_every_buyer():
    admin, vendor = make_admin(), make_vendor()
    category = make_category()
    live = make_agent(vendor, name="Live", category=category, tags=["old"])
    replaced = _add_file(live, "v1.md", b"v1")
    buyers = [make_user() for _ in range(3)]
    for buyer in buyers:
        make_purchase(buyer, live)
    make_purchase(make_user(deleted_at=live.created_at), live)  # a deleted buyer is not notified
    edit(vendor, live, category, name="Live v2", tags=["new", "tags"])
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=live.id, version=2, storage_key="agents/x/v2.md", filename="v2.md"))
        session.add(factories.clean_scan("agents/x/v2.md"))
        revision = session.exec(select(AgentRevision)).one()
        revision.files_changed = True
        revision.version_label, revision.release_notes = "1.1.0", "Faster *replies*."
        session.add(revision)
        [copy] = session.exec(select(AgentFile).where(AgentFile.version == 2, AgentFile.storage_key == replaced)).all()
        session.delete(copy)
    decision = moderation.approve(actor=admin, agent_id=live.id)
    assert (decision.current_version, decision.revision_id) == (2, revision.id)
    row = _agent(live.id)
    assert (row.name, row.current_version, row.status) == ("Live v2", 2, "approved")
    assert catalog.get_agent(agent_id=live.id).tags == ["new", "tags"]
    # Version 1 stays downloadable (the current version and the two before it), and so does its object.
    assert [f.filename for f in _files(live.id, 1)] == ["v1.md"] and [f.filename for f in _files(live.id, 2)] == [
        "v2.md"]
    assert get_storage().head(replaced) == 2
    for buyer in buyers:
        [note] = _notes(buyer)
        assert (note.type, note.title) == ("update", "Update available")
        assert note.message == ("Version 1.1.0 of Live v2 is available. Download it from your dashboard.\n\n"
                                "Release notes:\nFaster replies.")  # as text: no Markdown marks
        assert len(note.id) == 32
    assert [n.title for n in _notes(vendor)] == ["Agent update approved"]
    with db.session_scope() as session:
        assert session.get(AgentRevision, revision.id).status == "approved"
    assert moderation.list_pending(actor=admin) == ([], 0)


def test_approving_a_revision_without_file_changes_drops_its_copies():
    admin, vendor = make_admin(), make_vendor()
    category = make_category()
    live = make_agent(vendor, name="Live", category=category, files=2)
    buyer = make_user()
    make_purchase(buyer, live)
    edit(vendor, live, category, name="Renamed")
    assert len(_files(live.id, 2)) == 2
    moderation.approve(actor=admin, agent_id=live.id)
    row = _agent(live.id)
    assert (row.name, row.current_version) == ("Renamed", 1)
    assert _files(live.id, 2) == [] and len(_files(live.id, 1)) == 2
    assert _notes(buyer) == []


def test_a_revision_that_removes_every_file_cannot_be_approved():
    admin, vendor = make_admin(), make_vendor()
    live = make_agent(vendor, category=make_category())
    _add_file(live, "only.md", b"x")
    from marketplace.services.vendors import files

    [copy] = agents.get_editable_agent(actor=vendor, agent_id=live.id).files
    files.remove_file(actor=vendor, file_id=copy.id)
    with pytest.raises(Conflict, match="without files"):
        moderation.approve(actor=admin, agent_id=live.id)
    assert _agent(live.id).current_version == 1


def test_rejecting_a_revision_keeps_the_live_agent_and_deletes_only_unused_objects():
    admin, vendor = make_admin(), make_vendor()
    category = make_category()
    live = make_agent(vendor, name="Live", category=category)
    shared = _add_file(live, "v1.md", b"v1")
    edit(vendor, live, category, name="Changed")
    fresh = "agents/x/new.md"
    get_storage().put(fresh, b"new")
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=live.id, version=2, storage_key=fresh, filename="new.md"))
    decision = moderation.reject(actor=admin, agent_id=live.id, rejection_reason="Too vague")
    assert decision.status == "approved" and decision.revision_id
    row = _agent(live.id)
    assert (row.name, row.status, row.current_version) == ("Live", "approved", 1)
    assert _files(live.id, 2) == [] and [f.storage_key for f in _files(live.id, 1)] == [shared]
    storage = get_storage()
    assert storage.head(shared) == 2 and storage.head(fresh) is None
    [note] = _notes(vendor)
    assert (note.type, note.title) == ("rejection", "Agent update rejected")
    assert note.message.endswith("Reason: Too vague")
    with db.session_scope() as session:
        revision = session.exec(select(AgentRevision)).one()
    assert (revision.status, revision.rejection_reason, revision.decided_by) == ("rejected", "Too vague", admin.id)
    edit(vendor, live, category, name="Second try")  # a new revision can start again
    assert len(_files(live.id, 2)) == 1


def test_a_rejected_revision_shows_on_the_vendors_own_agent_until_new_edits_wait():
    admin, vendor = make_admin(), make_vendor()
    category = make_category()
    live = make_agent(vendor, name="Live", category=category)
    untouched = make_agent(vendor, name="Untouched", category=category)
    edit(vendor, live, category, name="Changed")
    [mine, _] = sorted(agents.list_own_agents(actor=vendor), key=lambda a: a.name)
    assert mine.revision_rejection is None  # pending, not decided

    moderation.reject(actor=admin, agent_id=live.id, rejection_reason="Too vague")
    rows = {a.id: a for a in agents.list_own_agents(actor=vendor)}
    assert (rows[live.id].revision_rejection, rows[live.id].status) == ("Too vague", "approved")
    assert rows[untouched.id].revision_rejection is None

    edit(vendor, live, category, name="Second try")  # new edits wait: the old refusal no longer applies
    assert {a.id: a for a in agents.list_own_agents(actor=vendor)}[live.id].revision_rejection is None
    moderation.reject(actor=admin, agent_id=live.id)  # no reason given: still shown, as an empty reason
    assert {a.id: a for a in agents.list_own_agents(actor=vendor)}[live.id].revision_rejection == ""
    edit(vendor, live, category, name="Third try")
    moderation.approve(actor=admin, agent_id=live.id)  # the latest decision counts
    assert {a.id: a for a in agents.list_own_agents(actor=vendor)}[live.id].revision_rejection is None
