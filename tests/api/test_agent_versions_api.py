"""Versions with release notes over HTTP (issue 33), on SQLite and PostgreSQL: the label and notes rules on
`PUT /api/vendor/agents/{id}`, who may set them, what the admin sees, `GET /api/agents/{id}/versions`, the
Changelog bots read, downloads of the current version and the two before it, and My Agents' 'New'."""

from __future__ import annotations

import io
import zipfile

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import AgentRevision
from marketplace.services import downloads
from marketplace.services.versions import history, labels
from tests import factories
from tests.factories import make_admin, make_agent, make_category, make_purchase, make_upload, make_user, make_vendor
from tests.unit.test_page_head import read

DRAFT = {
    "name": "Mail Bot",
    "shortDescription": "Answers mail",
    "description": "Reads and answers your mail.",
    "price": "29.99",
    "tags": [],
}


def as_user(client, login, user):
    client.cookies.clear()
    return login(user) if user else client


def _zip(response) -> dict[str, bytes]:
    assert response.status_code == 200, response.text
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {n: archive.read(n) for n in archive.namelist() if n != downloads.LICENSE_FILE}


@pytest.fixture
def live():
    """A live agent of its vendor, with one stored file, whose vendor has just attached a new file to it."""
    vendor, category = make_vendor(), make_category("Writing")
    agent = make_agent(vendor, "Mail Bot", category=category)
    factories.store_agent_file(agent, b"print('v1')\n", filename="agent.py")
    return vendor, category, agent


def _attach(client, login, vendor, agent):
    upload = make_upload(vendor, b"print('v2')\n", filename="agent.py")
    attached = as_user(client, login, vendor).put(
        "/api/agent-files", json={"agentId": agent.id, "agentFileURL": factories.upload_url(upload)}
    )
    assert attached.is_success, attached.text


def _revision(agent_id):
    with db.session_scope() as session:
        return session.exec(select(AgentRevision).where(AgentRevision.agent_id == agent_id)).one()


@pytest.mark.parametrize(
    ("label", "notes", "status", "message"),
    [
        (None, "Notes", 400, labels.LABEL_REQUIRED),
        ("  ", "Notes", 400, labels.LABEL_REQUIRED),
        ("1.0.0", "Notes", 400, "Version label must be greater than the live version 1.0.0"),
        ("1", "Notes", 400, "Version label must be greater than the live version 1.0.0"),
        ("0.9.9", "Notes", 400, "Version label must be greater than the live version 1.0.0"),
        ("v1.1.0", "Notes", 400, labels.LABEL_INVALID),
        ("1.1.0-beta", "Notes", 400, labels.LABEL_INVALID),
        ("1..1", "Notes", 400, labels.LABEL_INVALID),
        ("1.1.", "Notes", 400, labels.LABEL_INVALID),
        ("1.1.0.0.1", "Notes", 400, labels.LABEL_INVALID),
        ("\uff11.\uff12", "Notes", 400, labels.LABEL_INVALID),  # full-width digits
        ("1" * 40, "Notes", 400, labels.LABEL_INVALID),
        ("1.1\x00", "Notes", 422, "versionLabel: contains characters that are not allowed"),
        ("1.1.0", None, 400, labels.NOTES_REQUIRED),
        ("1.1.0", " \n ", 400, labels.NOTES_REQUIRED),
        ("1.1.0", "x" * 5001, 400, "Release notes must be at most 5,000 characters"),
    ],
)
def test_a_file_change_needs_a_greater_label_and_notes(client, login, live, label, notes, status, message):
    vendor, category, agent = live
    _attach(client, login, vendor, agent)
    body = {**DRAFT, "categoryId": category.id, "versionLabel": label, "releaseNotes": notes}
    refused = client.put(f"/api/vendor/agents/{agent.id}", json=body)
    assert (refused.status_code, refused.json()["message"]) == (status, message)
    revision = _revision(agent.id)
    assert (revision.version_label, revision.release_notes) == (None, None)  # nothing written


def test_a_label_and_notes_at_the_limits_are_kept_and_shown_to_the_admin(client, login, live):
    vendor, category, agent = live
    _attach(client, login, vendor, agent)
    notes = "<script>alert(1)</script> **bold**" + "x" * (5000 - 34)
    assert len(notes) == 5000
    saved = client.put(
        f"/api/vendor/agents/{agent.id}",
        json={**DRAFT, "categoryId": category.id, "versionLabel": " 1.0.0.1 ", "releaseNotes": notes},
    )
    assert saved.status_code == 200, saved.text
    assert (saved.json()["versionLabel"], saved.json()["releaseNotes"], saved.json()["currentVersionLabel"]) == (
        "1.0.0.1",
        notes,
        "1.0.0",
    )
    # Saved again without them: the revision keeps what it has.
    again = client.put(f"/api/vendor/agents/{agent.id}", json={**DRAFT, "categoryId": category.id})
    assert again.status_code == 200 and again.json()["versionLabel"] == "1.0.0.1"
    [item] = as_user(client, login, make_admin()).get("/api/admin/agents/pending").json()
    assert (item["versionLabel"], item["currentVersionLabel"], item["releaseNotes"]) == ("1.0.0.1", "1.0.0", notes)
    assert "<script>" not in item["releaseNotesHtml"] and "&lt;script&gt;" in item["releaseNotesHtml"]
    assert "<strong>bold</strong>" in item["releaseNotesHtml"]


def test_a_details_only_edit_of_a_live_agent_needs_no_label(client, login, live):
    vendor, category, agent = live
    saved = as_user(client, login, vendor).put(
        f"/api/vendor/agents/{agent.id}", json={**DRAFT, "categoryId": category.id, "name": "Renamed"}
    )
    assert saved.status_code == 200, saved.text
    assert _revision(agent.id).version_label is None


def test_only_the_owner_sets_a_version(client, login, live):
    vendor, category, agent = live
    _attach(client, login, vendor, agent)
    body = {**DRAFT, "categoryId": category.id, "versionLabel": "1.1.0", "releaseNotes": "Notes"}
    assert as_user(client, login, None).put(f"/api/vendor/agents/{agent.id}", json=body).status_code == 401
    for user, message in (
        (make_user(), "Vendor access required"),
        (make_vendor(), "You can only change your own agents"),
    ):
        refused = as_user(client, login, user).put(f"/api/vendor/agents/{agent.id}", json=body)
        assert (refused.status_code, refused.json()["message"]) == (403, message)
    assert _revision(agent.id).version_label is None
    # Approving is the admins': the owner cannot publish its own version.
    refused = as_user(client, login, vendor).post(f"/api/admin/agents/{agent.id}/approve")
    assert refused.status_code == 403


def test_a_revision_without_its_label_is_not_approved(client, login, live):
    vendor, _, agent = live
    _attach(client, login, vendor, agent)
    refused = as_user(client, login, make_admin()).post(f"/api/admin/agents/{agent.id}/approve")
    assert refused.status_code == 409 and refused.json()["message"] == (
        "This update changes the agent's files: its vendor must give it a version label and release notes "
        "before it can be approved"
    )


def _new_agent(client, login, vendor, category, **fields):
    created = as_user(client, login, vendor).post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id,
                                                                               **fields})
    assert created.status_code == 201, created.text
    upload = make_upload(vendor, b"print('v1')\n", filename="agent.py")
    attached = client.put("/api/agent-files", json={"agentId": created.json()["id"],
                                                    "agentFileURL": factories.upload_url(upload)})
    assert attached.is_success, attached.text
    return created.json()


def test_a_new_agent_chooses_its_first_version_label_and_notes(client, login):
    vendor, admin, category = make_vendor(), make_admin(), make_category("Writing")
    created = _new_agent(client, login, vendor, category, versionLabel=" 0.9.0 ", releaseNotes="First **beta**")
    assert (created["versionLabel"], created["releaseNotes"], created["currentVersionLabel"]) == (
        "0.9.0", "First **beta**", None)
    # Still pending: edited in place (left out: kept).
    agent_id = created["id"]
    body = {**DRAFT, "categoryId": category.id}
    assert client.put(f"/api/vendor/agents/{agent_id}", json={**body, "versionLabel": "0.9.1"}).is_success
    again = client.put(f"/api/vendor/agents/{agent_id}", json=body)
    assert (again.json()["versionLabel"], again.json()["releaseNotes"]) == ("0.9.1", "First **beta**")
    as_user(client, login, admin)
    [item] = client.get("/api/admin/agents/pending").json()
    assert (item["kind"], item["versionLabel"], item["currentVersionLabel"]) == ("agent", "0.9.1", None)
    assert "<strong>beta</strong>" in item["releaseNotesHtml"]
    assert client.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
    [version] = client.get(f"/api/agents/{agent_id}/versions").json()
    assert (version["label"], version["releaseNotes"], version["current"]) == ("0.9.1", "First **beta**", True)
    assert version["files"] == [{"filename": "agent.py", "sizeBytes": 12}]  # the files that went live
    assert version["releasedAt"] > item["submittedAt"]  # the approval's date, not the submission's
    # The next version must be greater than the first one's label.
    as_user(client, login, vendor)
    upload = make_upload(vendor, b"print('v2')\n", filename="agent.py")
    assert client.put("/api/agent-files", json={"agentId": agent_id,
                                                "agentFileURL": factories.upload_url(upload)}).is_success
    refused = client.put(f"/api/vendor/agents/{agent_id}", json={**body, "versionLabel": "0.9.1",
                                                                  "releaseNotes": "More"})
    assert (refused.status_code, refused.json()["message"]) == (
        400, "Version label must be greater than the live version 0.9.1")
    assert client.put(f"/api/vendor/agents/{agent_id}", json={**body, "versionLabel": "0.10",
                                                              "releaseNotes": "More"}).is_success


def test_a_new_agent_without_a_label_starts_at_1_0_0(client, login):
    vendor, admin, category = make_vendor(), make_admin(), make_category("Writing")
    created = _new_agent(client, login, vendor, category)
    assert (created["versionLabel"], created["releaseNotes"]) == ("1.0.0", "")
    assert as_user(client, login, admin).post(f"/api/admin/agents/{created['id']}/approve").status_code == 200
    [version] = client.get(f"/api/agents/{created['id']}/versions").json()
    assert (version["label"], version["releaseNotes"], version["releaseNotesHtml"]) == ("1.0.0", "", "")


@pytest.mark.parametrize(
    ("fields", "status", "message"),
    [
        ({"versionLabel": "v1.0"}, 400, labels.LABEL_INVALID),
        ({"versionLabel": "1.0.0.0.1"}, 400, labels.LABEL_INVALID),
        ({"versionLabel": 7}, 422, None),
        ({"versionLabel": "0.0"}, 400, labels.FIRST_LABEL_ZERO),
        ({"versionLabel": "1.0\x00"}, 422, "versionLabel: contains characters that are not allowed"),
        ({"releaseNotes": "x" * 5001}, 400, labels.NOTES_TOO_LONG),
    ],
)
def test_a_bad_first_version_creates_nothing(client, login, fields, status, message):
    vendor, category = make_vendor(), make_category("Writing")
    refused = as_user(client, login, vendor).post("/api/vendor/agents", json={**DRAFT, "categoryId": category.id,
                                                                               **fields})
    assert refused.status_code == status, refused.text
    if message:
        assert refused.json()["message"] == message
    assert client.get("/api/vendor/agents").json() == []


def test_only_a_vendor_sets_a_first_version_and_only_on_their_own_agent(client, login):
    vendor, category = make_vendor(), make_category("Writing")
    body = {**DRAFT, "categoryId": category.id, "versionLabel": "2.0", "releaseNotes": "Mine"}
    refused = as_user(client, login, make_user()).post("/api/vendor/agents", json=body)
    assert (refused.status_code, refused.json()["message"]) == (403, "Vendor access required")
    agent_id = as_user(client, login, vendor).post("/api/vendor/agents", json=body).json()["id"]
    taken = as_user(client, login, make_vendor()).put(f"/api/vendor/agents/{agent_id}",
                                                     json={**body, "versionLabel": "9.0"})
    assert (taken.status_code, taken.json()["message"]) == (403, "You can only change your own agents")
    assert as_user(client, login, vendor).get(f"/api/vendor/agents/{agent_id}").json()["versionLabel"] == "2.0"


def test_the_vendors_list_shows_the_live_and_the_pending_version(client, login, live):
    vendor, category, agent = live
    admin = make_admin()
    factories.publish_version(agent, admin, "1.2.0", "Second")
    [row] = as_user(client, login, vendor).get("/api/vendor/agents").json()
    assert (row["versionLabel"], row["pendingRevision"]) == ("1.2.0", None)
    # A details-only edit waits with no new version; files and a label make one.
    assert client.put(f"/api/vendor/agents/{agent.id}", json={**DRAFT, "categoryId": category.id,
                                                              "name": "Renamed"}).is_success
    [row] = client.get("/api/vendor/agents").json()
    assert (row["versionLabel"], row["pendingRevision"]["versionLabel"]) == ("1.2.0", None)
    _attach(client, login, vendor, agent)
    assert client.put(f"/api/vendor/agents/{agent.id}", json={**DRAFT, "categoryId": category.id,
                                                              "versionLabel": "1.3", "releaseNotes": "n"}).is_success
    [row] = client.get("/api/vendor/agents").json()
    assert (row["versionLabel"], row["pendingRevision"]["versionLabel"]) == ("1.2.0", "1.3")
    # A new agent shows the label its first version will have.
    _new_agent(client, login, vendor, category, name="Second Bot", versionLabel="0.1")
    assert [(r["name"], r["versionLabel"]) for r in client.get("/api/vendor/agents").json()] == [
        ("Second Bot", "0.1"), ("Mail Bot", "1.2.0")]


def test_versions_changelog_and_downloads_of_the_current_version_and_the_two_before(client, login):
    admin, vendor = make_admin(), make_vendor()
    agent = make_agent(vendor, "Mail Bot")
    first = factories.store_agent_file(agent, b"one\n", filename="agent.py")
    buyer, stranger = make_user(), make_user()
    make_purchase(buyer, agent)
    assert [v["label"] for v in client.get(f"/api/agents/{agent.id}/versions").json()] == ["1.0.0"]
    factories.publish_version(agent, admin, "1.1", "Second **release**", {"agent.py": b"two\n"})
    factories.publish_version(
        agent, admin, "1.2.0", "Third <script>alert(1)</script>", {"agent.py": b"three\n", "README.md": b"# read me\n"}
    )
    factories.publish_version(agent, admin, "2.0.0", "Fourth", {"agent.py": b"four\n"})

    versions = client.get(f"/api/agents/{agent.id}/versions").json()
    assert [(v["label"], v["releaseNotes"], v["current"]) for v in versions] == [
        ("2.0.0", "Fourth", True),
        ("1.2.0", "Third <script>alert(1)</script>", False),
        ("1.1", "Second **release**", False),
        ("1.0.0", "", False),
    ]
    assert versions[1]["files"] == [
        {"filename": "agent.py", "sizeBytes": 6},
        {"filename": "README.md", "sizeBytes": 10},
    ]
    assert versions[3]["files"] == [{"filename": "agent.py", "sizeBytes": 4}]  # listed after its objects went
    assert "storageKey" not in str(versions) and first.storage_key not in str(versions)
    assert "&lt;script&gt;" in versions[1]["releaseNotesHtml"] and "<script>" not in versions[1]["releaseNotesHtml"]
    assert "<strong>release</strong>" in versions[2]["releaseNotesHtml"]
    assert [v["releasedAt"] for v in versions] == sorted((v["releasedAt"] for v in versions), reverse=True)

    download = f"/api/agents/{agent.id}/download"
    as_user(client, login, buyer)
    assert _zip(client.get(download)) == {"agent.py": b"four\n"}
    assert _zip(client.get(f"{download}?version=2.0.0")) == {"agent.py": b"four\n"}
    assert _zip(client.get(f"{download}?version=1.2.0")) == {"agent.py": b"three\n", "README.md": b"# read me\n"}
    assert _zip(client.get(f"{download}?version=1.1.0")) == {"agent.py": b"two\n"}  # '1.1' under any spelling
    gone = client.get(f"{download}?version=1.0.0")
    assert (gone.status_code, gone.json()["message"]) == (404, history.VERSION_GONE.format(label="1.0.0"))
    unknown = client.get(f"{download}?version=3.0")
    assert (unknown.status_code, unknown.json()["message"]) == (404, "Version 3.0 of this agent was not found.")
    assert client.get(f"{download}?version=nonsense").status_code == 404
    assert client.get(f"{download}?version=1.0%00").status_code == 422  # characters not allowed
    assert client.get(f"{download}?version={'1' * 101}").status_code == 422  # longer than the route takes
    assert get_storage().head(first.storage_key) is None  # the oldest version's object is gone
    # No access: as for the current version.
    for version in ("", "?version=1.2.0", "?version=1.0.0"):
        refused = as_user(client, login, stranger).get(download + version)
        assert (refused.status_code, refused.json()["message"]) == (403, downloads.NO_ACCESS)
        assert as_user(client, login, None).get(download + version).status_code == 401


def test_versions_of_an_agent_that_is_not_live_are_404(client, login):
    vendor = make_vendor()
    for agent in (make_agent(vendor, status="pending"), make_agent(vendor, deleted_at=factories.ago(days=1))):
        answer = as_user(client, login, vendor).get(f"/api/agents/{agent.id}/versions")
        assert (answer.status_code, answer.json()["message"]) == (404, "Agent not found")
    assert client.get("/api/agents/no-such-agent/versions").status_code == 404


def test_the_changelog_is_on_the_page_bots_read(client):
    admin, vendor = make_admin(), make_vendor()
    agent = make_agent(vendor, "Mail Bot")
    factories.store_agent_file(agent, b"one\n", filename="agent.py")
    factories.publish_version(agent, admin, "1.1.0", "Adds **drafts**.\n\n<img src=x onerror=alert(1)>")
    page = client.get(f"/agents/{agent.id}")
    assert page.status_code == 200
    text = " ".join(read(page.text).text)
    assert "Changelog 1.1.0" in text and "1.0.0" in text and "Adds  drafts ." in text  # text nodes joined by spaces
    assert text.index("1.1.0") < text.index("1.0.0")  # newest first
    assert "<strong>drafts</strong>" in page.text
    assert "<img src=x" not in page.text and "&lt;img src=x onerror=alert(1)&gt;" in page.text


def test_my_agents_shows_the_version_and_new_until_downloaded(client, login):
    admin, vendor = make_admin(), make_vendor()
    agent = make_agent(vendor, "Mail Bot")
    factories.store_agent_file(agent, b"one\n", filename="agent.py")
    buyer = make_user()
    make_purchase(buyer, agent)
    as_user(client, login, buyer)
    [bought] = client.get("/api/user/purchases").json()
    assert (bought["versionLabel"], bought["newVersion"]) == ("1.0.0", False)
    factories.publish_version(agent, admin, "1.1.0", "Faster.")
    [bought] = client.get("/api/user/purchases").json()
    assert (bought["versionLabel"], bought["newVersion"]) == ("1.1.0", True)
    assert _zip(client.get(f"/api/agents/{agent.id}/download?version=1.0.0"))  # the old one: still new
    assert client.get("/api/user/purchases").json()[0]["newVersion"] is True
    assert _zip(client.get(f"/api/agents/{agent.id}/download"))
    assert client.get("/api/user/purchases").json()[0]["newVersion"] is False
    # Bought after the version came out: nothing new for this buyer.
    later = make_user()
    make_purchase(later, agent)
    assert as_user(client, login, later).get("/api/user/purchases").json()[0]["newVersion"] is False
