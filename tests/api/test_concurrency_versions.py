"""Versions under simultaneous requests, over real HTTP (tests/live_api.py), on SQLite and PostgreSQL: one
approval of a new version wins and records it once; downloads of a version at the moment it stops being kept are
whole or refused, and its objects go only once none of them is in flight."""

from __future__ import annotations

import io
import zipfile
from functools import partial

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import AgentVersion, DownloadLease, Notification
from marketplace.services.vendors import revisions
from marketplace.services.versions import objects as version_objects
from tests import factories
from tests.live_api import LiveApi, fire

rounds = pytest.mark.parametrize("round_", range(3))


@rounds
def test_one_approval_of_a_new_version_of_many_at_once(live_api: LiveApi, round_: int):
    admin = live_api.signed_in(factories.make_admin().username)
    vendor, buyer = factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor, name="Racy Bot")
    factories.store_agent_file(agent, b"v1\n", filename="agent.py")
    factories.make_purchase(buyer, agent)
    new = factories.store_agent_file(agent, b"v2\n", filename="agent2.py")  # moved to the revision below
    with db.session_scope() as session:
        live = session.get(type(agent), agent.id)
        revision = revisions.open_revision(session, live, vendor_id=vendor.id)
        for row in version_objects.files_of(session, agent.id, 1):
            if row.storage_key == new.storage_key:
                row.version = revision.version
                session.add(row)
        revision.files_changed = True
        session.add(revision)
    factories.label_revision(agent, "1.1.0", "Adds agent2.")

    answers = fire([partial(admin.post, f"/api/admin/agents/{agent.id}/approve") for _ in range(5)])
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409, 409, 409, 409], [a.text for a in answers]
    assert all(a.json()["message"] for a in answers if a.status_code == 409)
    with db.session_scope() as session:
        rows = session.exec(
            select(AgentVersion.version, AgentVersion.label)
            .where(AgentVersion.agent_id == agent.id)
            .order_by(AgentVersion.version)
        ).all()
        notes = session.exec(select(Notification.message).where(Notification.user_id == buyer.id)).all()
    assert rows == [(1, "1.0.0"), (2, "1.1.0")]
    assert notes == [
        "Version 1.1.0 of Racy Bot is available. Download it from your dashboard.\n\nRelease notes:\nAdds agent2."
    ]
    versions = live_api.client().get(f"/api/agents/{agent.id}/versions").json()
    assert [v["label"] for v in versions] == ["1.1.0", "1.0.0"]


@rounds
def test_downloads_of_a_version_as_it_stops_being_kept_are_whole_or_refused(live_api: LiveApi, round_: int):
    admin = factories.make_admin()
    vendor, buyer = factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor, name="Old Bot")
    oldest = factories.store_agent_file(agent, b"v0\n" * 50_000, filename="agent.py")
    factories.make_purchase(buyer, agent)
    for n in (1, 2):
        factories.publish_version(agent, admin, f"1.{n}.0", f"Release {n}")
    client = live_api.signed_in(buyer.username)
    # Prepared (copies of 1.2.0 plus a new file), approved at the same moment as the downloads of 1.0.0.
    with db.session_scope() as session:
        live = session.get(type(agent), agent.id)
        revision = revisions.open_revision(session, live, vendor_id=vendor.id)
        revision.files_changed, revision.version_label, revision.release_notes = True, "2.0.0", "Pushes 1.0.0 out"
        session.add(revision)
    approver = live_api.signed_in(admin.username)
    download = partial(client.get, f"/api/agents/{agent.id}/download?version=1.0.0")
    answers = fire([download, download, partial(approver.post, f"/api/admin/agents/{agent.id}/approve"), download])
    assert answers[2].status_code == 200, answers[2].text
    for answer in answers[:2] + answers[3:]:
        assert answer.status_code in (200, 404), answer.text
        if answer.status_code == 200:
            with zipfile.ZipFile(io.BytesIO(answer.content)) as archive:
                assert archive.read("agent.py") == b"v0\n" * 50_000  # whole, never cut by the deletion
        else:
            assert "no longer available" in answer.json()["message"]
    assert get_storage().head(oldest.storage_key) is None  # every download ended: the object went
    with db.session_scope() as session:
        assert session.exec(select(DownloadLease)).all() == []
    refused = client.get(f"/api/agents/{agent.id}/download?version=1.0.0")
    assert refused.status_code == 404
