"""Security scans over the API (issue 33): an infected upload is refused at approval, findings are shown to the
vendor and admins only (buyers never see secrets, only the scan date), blocked downloads answer 403, and an
approval racing a rescan that finds malware never leaves an infected file approved and served. Run on SQLite and
PostgreSQL (TEST_DATABASE_URL)."""

from __future__ import annotations

import io
import zipfile

import pytest
from sqlmodel import select

from dev.clamav import EICAR
from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, AgentStatus, FileScan
from marketplace.services import scanning
from tests import factories
from tests.live_api import LiveApi, fire

AWS_SAMPLE = b"AWS_ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE'\n"


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _submit(client, login, vendor, data: bytes, filename: str) -> str:
    login(vendor)
    created = client.post("/api/vendor/agents", json={
        "name": "Scanned Agent", "shortDescription": "Short", "description": "Long text", "price": "9.99",
        "categoryId": factories.make_category().id, "tags": []})
    assert created.status_code == 201, created.text
    agent_id = created.json()["id"]
    upload = factories.make_upload(vendor, data, filename=filename)
    attached = client.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": factories.upload_url(upload)})
    assert attached.status_code == 200, attached.text
    client.post("/api/logout")
    return agent_id


def test_an_infected_upload_is_shown_and_cannot_be_approved(client, login):
    vendor, admin = factories.make_vendor(), factories.make_admin()
    agent_id = _submit(client, login, vendor, _zip({"README.md": b"# hi\n", "bin/eicar.txt": EICAR}), "agent.zip")
    login(vendor)
    files = client.get(f"/api/vendor/agents/{agent_id}").json()["files"]
    assert files[0]["scan"]["status"] == "infected"
    assert files[0]["scan"]["findings"] == [{"kind": "malware", "name": "Eicar-Test-Signature",
                                             "member": "bin/eicar.txt", "detail": "ClamAV signature"}]
    client.post("/api/logout")
    login(admin)
    pending = client.get("/api/admin/agents/pending").json()
    scan = pending[0]["files"][0]["scan"]
    assert scan["status"] == "infected" and scan["scannedAt"] and scan["engines"]["clamav"].startswith("ClamAV")
    refused = client.post(f"/api/admin/agents/{agent_id}/approve")
    assert refused.status_code == 409
    assert refused.json()["message"] == ("This agent cannot be approved: a security scan found Eicar-Test-Signature "
                                         "(bin/eicar.txt) in agent.zip.")
    blocked = client.get(f"/api/admin/agent-files/{pending[0]['files'][0]['id']}")
    assert blocked.status_code == 403 and blocked.json()["message"] == "This file has been blocked by a security scan."


def test_secrets_are_shown_to_the_vendor_and_admin_never_to_buyers(client, login):
    vendor, admin, buyer = factories.make_vendor(), factories.make_admin(), factories.make_user()
    agent_id = _submit(client, login, vendor, AWS_SAMPLE, "config.py")
    login(admin)
    flagged = client.get("/api/admin/agents/pending").json()[0]["files"][0]["scan"]
    assert flagged["status"] == "flagged"
    assert flagged["findings"][0] == {"kind": "secret", "name": "aws-access-key-id", "member": None,
                                      "detail": "line 1: AKIA…MPLE"}
    assert client.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200  # the admin's call
    client.post("/api/logout")
    with db.session_scope() as session:
        agent = session.get(Agent, agent_id)
    factories.make_purchase(buyer, agent)
    login(buyer)
    for path in (f"/api/agents/{agent_id}", "/api/agents", "/api/user/purchases"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert "aws-access-key-id" not in answer.text and "AKIA" not in answer.text and "findings" not in answer.text
    assert client.get(f"/api/agents/{agent_id}").json()["scannedAt"] is None  # something was found: no claim
    assert client.get(f"/api/vendor/agents/{agent_id}").status_code == 403


def test_buyers_see_the_date_of_a_clean_scan(client, login):
    vendor, admin = factories.make_vendor(), factories.make_admin()
    agent_id = _submit(client, login, vendor, b"print('hello')\n", "agent.py")
    login(admin)
    assert client.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
    client.post("/api/logout")
    public = client.get(f"/api/agents/{agent_id}").json()
    with db.session_scope() as session:
        scanned_at = session.exec(select(FileScan.scanned_at)).one()
    assert public["scannedAt"] is not None and public["scannedAt"][:19] == scanned_at.isoformat()[:19]
    assert "scan" not in public


def test_a_blocked_live_file_answers_403_to_its_buyers(client, login):
    vendor, buyer = factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor)
    row = factories.store_agent_file(agent, b"fine\n", filename="notes.txt")
    factories.make_purchase(buyer, agent)
    login(buyer)
    assert client.get(f"/api/agents/{agent.id}/download").status_code == 200
    get_storage().put(row.storage_key, EICAR)
    assert scanning.queue_all() == 1
    blocked = client.get(f"/api/agents/{agent.id}/download")
    assert blocked.status_code == 403
    assert blocked.json()["message"] == "This file has been blocked by a security scan."


@pytest.mark.parametrize("round_", range(3))
def test_approve_racing_a_rescan_never_serves_an_infected_file(live_api: LiveApi, queued_scans, round_: int):
    """An admin approves while a rescan (new signatures) finds the file infected: either the rescan's verdict
    came first and the approval is refused (409, the agent stays pending), or the approval came first and the
    verdict, seeing a live file, blocks it with the admins told and an audit entry. Never approved unseen."""
    admin, vendor, buyer = factories.make_admin(), factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor, status=AgentStatus.PENDING)
    row = factories.store_agent_file(agent, b"fine\n", filename="notes.txt")
    factories.make_purchase(buyer, agent)
    get_storage().put(row.storage_key, EICAR)
    with db.session_scope() as session:
        scanning.enqueue(session, [row.storage_key])  # queued (new signatures): scanned in the race below
    client = live_api.signed_in(admin.username)

    def rescan():
        scanning.drain()
        return client.get("/api/notifications")

    approval, _ = fire([lambda: client.post(f"/api/admin/agents/{agent.id}/approve"), rescan])
    with db.session_scope() as session:
        status = session.get(Agent, agent.id).status
        verdict = session.exec(select(FileScan.status).where(FileScan.storage_key == row.storage_key)).one()
        assert session.exec(select(AgentFile).where(AgentFile.agent_id == agent.id)).first() is not None
    assert verdict == "infected"
    actions = [a for a, _, target in factories.audit_actions() if target == agent.id]
    if approval.status_code == 409:
        assert status == "pending" and "Eicar-Test-Signature" in approval.json()["message"]
        assert "file.block" not in actions and "agent.approve" not in actions
    else:
        assert approval.status_code == 200 and status == "approved"
        assert actions == ["agent.approve", "file.block"]
    answer = live_api.signed_in(buyer.username).get(f"/api/agents/{agent.id}/download")
    assert answer.status_code == 403 and answer.json()["message"] == "This file has been blocked by a security scan."
