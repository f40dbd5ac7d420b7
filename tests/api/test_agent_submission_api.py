"""Agent submission routes x signed out / customer / other vendor / owner / admin: create, edit, attach and
remove files, moderation, and the whole revision flow down to what a buyer downloads."""

from __future__ import annotations

import io
import zipfile

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentDownload, AgentStatus, OutboxMail
from marketplace.services import downloads
from tests.factories import (
    make_admin,
    make_agent,
    make_category,
    make_purchase,
    make_upload,
    make_user,
    make_vendor,
    upload_url,
)

DRAFT = {"name": "Mail Bot", "shortDescription": "Answers mail", "description": "Reads and answers your mail.",
         "price": "29.99", "demoUrl": "https://demo.example.com", "imageUrl": "", "tags": ["mail", "ai"]}


@pytest.fixture
def category():
    return make_category("Writing")


def as_user(client, login, user):
    client.cookies.clear()
    return login(user) if user else client


def test_create_agent(client, login, category):
    body = {**DRAFT, "categoryId": category.id}
    assert client.post("/api/vendor/agents", json=body).status_code == 401
    for user in (make_user(), make_vendor(vendor_approved=False)):
        refused = as_user(client, login, user).post("/api/vendor/agents", json=body)
        assert refused.status_code == 403 and refused.json() == {"message": "Vendor access required"}
    created = as_user(client, login, make_vendor()).post("/api/vendor/agents", json=body)
    assert created.status_code == 201, created.text
    agent = created.json()
    assert agent["id"] and agent["status"] == "pending" and agent["hasPendingRevision"] is False
    assert (agent["name"], agent["price"], agent["categoryId"], agent["tags"], agent["imageUrl"], agent["files"]) == (
        "Mail Bot", "29.99", category.id, ["mail", "ai"], None, [])
    listed = client.get("/api/vendor/agents").json()
    assert [(a["id"], a["status"], a["isApproved"]) for a in listed] == [(agent["id"], "pending", False)]
    assert client.get(f"/api/agents/{agent['id']}").status_code == 200  # its vendor sees it
    client.cookies.clear()
    assert client.get(f"/api/agents/{agent['id']}").status_code == 404  # the public does not


@pytest.mark.parametrize(("changes", "message", "field"), [
    ({"name": ""}, "Name is required", "name"),
    ({"price": "9.999"}, "Price can have at most 2 decimals", "price"),
    ({"price": "-1"}, "Price cannot be negative", "price"),
    ({"price": "lots"}, "Price must be a number such as 29.99", "price"),
    ({"categoryId": None}, "Category is required", "category_id"),
    ({"categoryId": 987654}, "Category not found", "category_id"),
    ({"demoUrl": "javascript:alert(1)"}, "Demo URL must be a valid http(s) URL", "demo_url"),
    ({"tags": ["a", "b", "c", "d", "e", "f"]}, "Maximum 5 tags allowed to prevent spam", "tags"),
])
def test_create_agent_bad_input_is_400_with_the_message(client, login, category, changes, message, field):
    response = login(make_vendor()).post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id, **changes})
    assert response.status_code == 400
    assert response.json() == {"message": message, "field": field}


def test_price_as_a_json_number_and_category_as_text(client, login, category):
    response = login(make_vendor()).post("/api/vendor/agents",
                                         json={**DRAFT, "price": 12.5, "categoryId": str(category.id)})
    assert response.status_code == 201 and response.json()["price"] == "12.50"


def test_edit_agent_permissions_and_revision(client, login, category):
    vendor = make_vendor()
    live = make_agent(vendor, name="Live", category=category, files=1)
    body = {**DRAFT, "categoryId": category.id, "name": "Live v2"}
    url = f"/api/vendor/agents/{live.id}"
    assert client.put(url, json=body).status_code == 401
    assert as_user(client, login, make_user()).put(url, json=body).status_code == 403
    for other in (make_vendor(), make_admin()):
        refused = as_user(client, login, other).put(url, json=body)
        assert refused.status_code == 403 and refused.json() == {"message": "You can only change your own agents"}
        assert as_user(client, login, other).get(url).status_code == 403
    as_user(client, login, vendor)
    assert client.put("/api/vendor/agents/missing", json=body).status_code == 404
    assert client.put(url, json={**body, "name": " "}).json() == {"message": "Name is required", "field": "name"}
    edited = client.put(url, json=body)
    assert edited.status_code == 200
    assert (edited.json()["status"], edited.json()["hasPendingRevision"], edited.json()["name"]) == (
        "approved", True, "Live v2")
    assert len(edited.json()["files"]) == 1
    [listed] = client.get("/api/vendor/agents").json()
    assert (listed["name"], listed["status"], listed["hasPendingRevision"]) == ("Live", "approved", True)
    assert listed["pendingRevision"]["version"] == 2 and listed["pendingRevision"]["filesChanged"] is False
    client.cookies.clear()
    assert client.get(f"/api/agents/{live.id}").json()["name"] == "Live"


def test_attach_file_routes(client, login):
    vendor, rival = make_vendor(), make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    upload = make_upload(vendor, b"# hi\n", filename="README.md")
    body = {"agentId": agent.id, "agentFileURL": upload_url(upload)}
    assert client.put("/api/agent-files", json=body).status_code == 401
    assert as_user(client, login, make_user()).put("/api/agent-files", json=body).status_code == 403
    attached = as_user(client, login, vendor).put("/api/agent-files", json=body)
    assert attached.status_code == 200, attached.text
    info = attached.json()
    assert (info["filename"], info["sizeBytes"]) == ("README.md", 5) and info["id"]
    files = client.get(f"/api/vendor/agents/{agent.id}").json()["files"]
    assert [f["id"] for f in files] == [info["id"]]
    # Refusals: 4xx with a message, nothing attached, the object deleted.
    elf = make_upload(vendor, b"\x7fELF\x02\x01" + b"\0" * 64, filename="agent.py")
    refused = client.put("/api/agent-files", json={"agentId": agent.id, "agentFileURL": upload_url(elf)})
    assert refused.status_code == 400 and refused.json()["message"].startswith("Executable files are not allowed")
    assert get_storage().head(elf.key) is None
    theirs = make_agent(rival, status=AgentStatus.PENDING)
    mine = make_upload(vendor)
    refused = client.put("/api/agent-files", json={"agentId": theirs.id, "agentFileURL": upload_url(mine)})
    assert refused.status_code == 403 and get_storage().head(mine.key) is None
    foreign = make_upload(rival)
    refused = client.put("/api/agent-files", json={"agentId": agent.id, "agentFileURL": upload_url(foreign)})
    assert refused.status_code == 403 and refused.json()["message"]
    refused = client.put("/api/agent-files", json={"agentId": agent.id, "agentFileURL": "https://x.example/a.zip"})
    assert refused.status_code == 400
    assert refused.json()["message"] == "This file URL was not issued by this marketplace"
    assert len(client.get(f"/api/vendor/agents/{agent.id}").json()["files"]) == 1
    # Removing: owner only.
    remove = f"/api/agent-files/{info['id']}"
    client.cookies.clear()
    assert client.delete(remove).status_code == 401
    assert as_user(client, login, make_user()).delete(remove).status_code == 403
    assert as_user(client, login, rival).delete(remove).status_code == 403
    assert as_user(client, login, vendor).delete(remove).status_code == 204
    assert client.delete(remove).status_code == 404
    assert get_storage().head(upload.key) is None


def test_moderation_routes(client, login):
    vendor = make_vendor("seller")
    empty = make_agent(vendor, name="Empty", status=AgentStatus.PENDING)
    ready = make_agent(vendor, name="Ready", status=AgentStatus.PENDING, files=1)
    paths = ["/api/admin/agents/pending", f"/api/admin/agents/{ready.id}/approve",
             f"/api/admin/agents/{ready.id}/reject"]
    for path in paths:
        send = client.get if path.endswith("pending") else client.post
        client.cookies.clear()
        assert send(path).status_code == 401
        for user in (make_user(), vendor):
            refused = as_user(client, login, user)
            response = refused.get(path) if path.endswith("pending") else refused.post(path)
            assert response.status_code == 403 and response.json() == {"message": "Admin access required"}
    as_user(client, login, make_admin())
    pending = client.get("/api/admin/agents/pending")
    # An agent waits for review once it has files: the empty one (created, not attached yet) is not listed.
    assert pending.status_code == 200 and pending.headers["X-Total-Count"] == "1"
    [first] = pending.json()
    assert (first["id"], first["kind"], first["vendor"]["username"]) == (ready.id, "agent", "seller")
    assert {"email", "id", "username"} == set(first["vendor"]) and first["fileCount"] == 1
    conflict = client.post(f"/api/admin/agents/{empty.id}/approve")
    assert conflict.status_code == 409 and conflict.json() == {"message": "An agent without files cannot be approved"}
    approved = client.post(f"/api/admin/agents/{ready.id}/approve")
    assert approved.status_code == 200 and approved.json()["status"] == "approved"
    rejected = client.post(f"/api/admin/agents/{empty.id}/reject", json={"rejectionReason": "  Add files  "})
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert client.post("/api/admin/agents/missing/reject").status_code == 404
    assert client.get("/api/admin/agents/pending").json() == []
    notes = as_user(client, login, vendor).get("/api/notifications").json()
    assert {(n["type"], n["title"]) for n in notes} == {("approval", "Agent approved"), ("rejection", "Agent rejected")}
    assert any(n["message"].endswith("Reason: Add files") for n in notes)
    reject_without_body = make_agent(vendor, status=AgentStatus.PENDING)
    as_user(client, login, make_admin())
    assert client.post(f"/api/admin/agents/{reject_without_body.id}/reject").status_code == 200


def test_pending_items_carry_their_files_and_changes(client, login, category):
    """What the admin's details dialog shows is in the API too: each file of the version under review (name,
    size, checked type, the admin's download) and a revision's changed fields, old -> new."""
    vendor, admin = make_vendor(), make_admin()
    as_user(client, login, vendor)
    agent_id = client.post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id}).json()["id"]
    readme = make_upload(vendor, b"# Read me\n", filename="README.md")
    assert client.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": upload_url(readme)}).is_success
    as_user(client, login, admin)
    [item] = client.get("/api/admin/agents/pending").json()
    [file] = item["files"]
    assert (item["kind"], item["fieldChanges"], file["filename"], file["sizeBytes"], file["contentType"]) == (
        "agent", [], "README.md", 10, "text/markdown")
    assert file["downloadUrl"] == f"/api/admin/agent-files/{file['id']}"
    assert client.get(file["downloadUrl"]).content == b"# Read me\n"
    assert client.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
    # The vendor changes the price, the category, the tags and the demo address of the live agent.
    other = make_category("Coding")
    as_user(client, login, vendor)
    assert client.put(f"/api/vendor/agents/{agent_id}", json={
        **DRAFT, "price": "39.00", "categoryId": other.id, "tags": ["mail"], "demoUrl": ""}).status_code == 200
    as_user(client, login, admin)
    [revision] = client.get("/api/admin/agents/pending").json()
    assert revision["kind"] == "revision" and revision["changedFields"] == [
        "price_cents", "category_id", "demo_url", "tags"]
    assert revision["fieldChanges"] == [
        {"field": "price_cents", "old": "29.99", "new": "39.00"},
        {"field": "category_id", "old": "Writing", "new": "Coding"},
        {"field": "demo_url", "old": "https://demo.example.com", "new": None},
        {"field": "tags", "old": ["mail", "ai"], "new": ["mail"]},
    ]
    assert [f["filename"] for f in revision["files"]] == ["README.md"]


def _zip_names(response):
    """The agent's files in the zip (a buyer's LICENSE-KEY.txt aside)."""
    assert response.status_code == 200, response.text
    with zipfile.ZipFile(io.BytesIO(response.content)) as z:
        return {name: z.read(name) for name in z.namelist() if name != downloads.LICENSE_FILE}


def test_revision_flow_from_submission_to_the_buyers_download(client, login, category):
    vendor, admin, buyer = make_vendor(), make_admin(), make_user("buyer")
    as_user(client, login, vendor)
    agent_id = client.post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id}).json()["id"]
    for name, data in (("agent.py", b"print('v1')\n"), ("README.md", b"# v1\n")):
        upload = make_upload(vendor, data, filename=name)
        assert client.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": upload_url(upload)}).is_success
    as_user(client, login, admin)
    assert client.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
    with db.session_scope() as session:
        agent = session.get(Agent, agent_id)
    make_purchase(buyer, agent)
    download = f"/api/agents/{agent_id}/download"
    as_user(client, login, buyer)
    first = client.get(download)
    assert _zip_names(first) == {"agent.py": b"print('v1')\n", "README.md": b"# v1\n"}
    assert first.headers["content-disposition"] == 'attachment; filename="Mail_Bot_files.zip"'
    # The vendor edits the live agent and uploads a new version of agent.py.
    as_user(client, login, vendor)
    editable = client.get(f"/api/vendor/agents/{agent_id}").json()
    old_py = next(f for f in editable["files"] if f["filename"] == "agent.py")
    assert client.put(f"/api/vendor/agents/{agent_id}",
                      json={**DRAFT, "categoryId": category.id, "name": "Mail Bot 2"}).status_code == 200
    new = make_upload(vendor, b"print('v2')\n", filename="agent.py")
    assert client.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": upload_url(new)}).is_success
    assert client.delete(f"/api/agent-files/{old_py['id']}").status_code == 204
    # Still live on the old files and name until approved.
    as_user(client, login, buyer)
    assert _zip_names(client.get(download))["agent.py"] == b"print('v1')\n"
    assert client.get(f"/api/agents/{agent_id}").json()["name"] == "Mail Bot"
    as_user(client, login, admin)
    [item] = client.get("/api/admin/agents/pending").json()
    assert (item["kind"], item["changedFields"], item["filesAdded"], item["filesRemoved"]) == (
        "revision", ["name"], ["agent.py"], ["agent.py"])
    # Files changed through the file routes alone: no version label or notes yet, so no approval.
    refused = client.post(f"/api/admin/agents/{agent_id}/approve")
    assert refused.status_code == 409 and "version label and release notes" in refused.json()["message"]
    as_user(client, login, vendor)
    assert client.put(f"/api/vendor/agents/{agent_id}", json={
        **DRAFT, "categoryId": category.id, "name": "Mail Bot 2", "versionLabel": "1.1.0",
        "releaseNotes": "Replies in **half** the time."}).status_code == 200
    as_user(client, login, admin)
    [item] = client.get("/api/admin/agents/pending").json()
    assert (item["versionLabel"], item["currentVersionLabel"], item["releaseNotes"]) == (
        "1.1.0", "1.0.0", "Replies in **half** the time.")
    decision = client.post(f"/api/admin/agents/{agent_id}/approve").json()
    assert decision["currentVersion"] == 2
    as_user(client, login, buyer)
    [note] = client.get("/api/notifications").json()
    assert note["type"] == "update" and "Version 1.1.0 of Mail Bot 2" in note["message"]
    # The notification and the mail's text part read as text; the mail's HTML part has the notes' safe HTML.
    assert note["message"].endswith("Release notes:\nReplies in half the time.")
    with db.session_scope() as session:
        mail = session.exec(select(OutboxMail).where(OutboxMail.recipient == buyer.email,
                                                     OutboxMail.subject == "Update available")).one()
    assert "Replies in half the time." in mail.body and "**" not in mail.body
    assert mail.html is not None and "<p>Replies in <strong>half</strong> the time.</p>" in mail.html
    assert _zip_names(client.get(download)) == {"README.md": b"# v1\n", "agent.py": b"print('v2')\n"}
    # The version before stays downloadable by its label.
    assert _zip_names(client.get(f"{download}?version=1.0.0"))["agent.py"] == b"print('v1')\n"
    assert client.get(f"/api/agents/{agent_id}").json()["name"] == "Mail Bot 2"
    with db.session_scope() as session:
        versions = [d.version for d in session.exec(select(AgentDownload).where(AgentDownload.user_id == buyer.id)
                                                   .order_by(AgentDownload.created_at)).all()]
    assert versions == [1, 1, 2, 1]
