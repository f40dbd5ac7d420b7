"""A new agent and its files as one unit: nothing is created unless every file passes, and the admin queue never
shows a pending agent without files; each upload can be checked as soon as it finishes."""

from __future__ import annotations

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, AgentStatus, AgentTag, AgentVersion, Upload
from marketplace.services import filetypes
from marketplace.services.admin import moderation
from marketplace.services.errors import Conflict, Forbidden, Invalid, Unauthorized
from marketplace.services.vendors import agents, files, submission
from marketplace.services.vendors.drafts import AgentDraft
from tests.factories import ago, make_admin, make_agent, make_category, make_upload, make_user, make_vendor, upload_url

EXE = b"MZ\x90\x00" + b"\x00" * 60


def _draft(**changes) -> AgentDraft:
    values = {"name": "Inbox Zero", "short_description": "Sorts mail", "description": "Sorts, labels, answers.",
              "price": "29.99", "category_id": make_category().id, "tags": ["email"]}
    return AgentDraft(**{**values, **changes})


def _agents_of(vendor) -> list[Agent]:
    with db.session_scope() as session:
        return list(session.exec(select(Agent).where(Agent.vendor_id == vendor.id)).all())


def _upload(key):
    with db.session_scope() as session:
        return session.get(Upload, key)


def test_submit_creates_the_agent_with_every_file():
    vendor = make_vendor()
    first = make_upload(vendor, b"# Read me\n", filename="README.md")
    second = make_upload(vendor, b"print('hi')\n", filename="agent.py")
    agent_id, attached = submission.submit_agent(actor=vendor, draft=_draft(),
                                                 file_urls=[upload_url(first), upload_url(second)])
    assert [f.filename for f in attached] == ["README.md", "agent.py"]
    [agent] = _agents_of(vendor)
    assert (agent.id, agent.status) == (agent_id, AgentStatus.PENDING)
    assert [a.file_count for a in agents.list_own_agents(actor=vendor)] == [2]


@pytest.mark.parametrize("data, filename", [(EXE, "fake.zip"), (b"just text", "fake.zip"), (EXE, "tool.exe")])
def test_a_refused_file_creates_nothing_and_names_the_file(data, filename):
    vendor = make_vendor()
    good = make_upload(vendor, b"# Read me\n", filename="README.md")
    bad = make_upload(vendor, data, filename=filename)
    with pytest.raises(submission.RefusedFile) as refused:
        submission.submit_agent(actor=vendor, draft=_draft(), file_urls=[upload_url(good), upload_url(bad)])
    assert (refused.value.filename, refused.value.url, refused.value.status) == (filename, upload_url(bad), 400)
    assert _agents_of(vendor) == []
    # The refused file is gone (it could never be attached); the good one waits for the next try.
    assert _upload(bad.key) is None and get_storage().head(bad.key) is None
    assert _upload(good.key).attached_at is None and get_storage().head(good.key) == 10


def test_at_least_one_file_and_at_most_the_limit_are_the_services_rules(monkeypatch):
    vendor = make_vendor()
    for urls in ([], ["", ""]):
        with pytest.raises(Invalid, match="at least one agent file") as error:
            submission.submit_agent(actor=vendor, draft=_draft(), file_urls=urls)
        assert error.value.field == "agentFileURL"
    monkeypatch.setattr(submission.settings, "upload_max_files_per_agent", 1)
    uploads = [upload_url(make_upload(vendor)) for _ in range(2)]
    with pytest.raises(Invalid, match="at most 1 files"):
        submission.submit_agent(actor=vendor, draft=_draft(), file_urls=uploads)
    assert _agents_of(vendor) == []


def test_a_bad_field_is_refused_before_any_file_is_touched():
    vendor = make_vendor()
    upload = make_upload(vendor, EXE, filename="tool.exe")
    with pytest.raises(Invalid, match="Price") as error:
        submission.submit_agent(actor=vendor, draft=_draft(price="abc"), file_urls=[upload_url(upload)])
    assert error.value.field == "price"
    assert _agents_of(vendor) == [] and _upload(upload.key) is not None


def test_a_bad_first_version_label_is_refused_before_any_file_is_touched():
    vendor = make_vendor()
    upload = make_upload(vendor, EXE, filename="tool.exe")
    with pytest.raises(Invalid, match="numbers separated by dots") as error:
        submission.submit_agent(actor=vendor, draft=_draft(version_label="v2"), file_urls=[upload_url(upload)])
    assert error.value.field == "version_label"
    assert _agents_of(vendor) == [] and _upload(upload.key) is not None


def test_a_new_agent_taken_away_takes_its_first_version_row(monkeypatch):
    vendor = make_vendor()
    upload = make_upload(vendor, b"# Read me\n", filename="README.md")
    monkeypatch.setattr(files, "attach_file", lambda **_: (_ for _ in ()).throw(Invalid("no", field="agentFileURL")))
    with pytest.raises(submission.RefusedFile):
        submission.submit_agent(actor=vendor, draft=_draft(version_label="2.0"), file_urls=[upload_url(upload)])
    with db.session_scope() as session:
        assert _agents_of(vendor) == [] and session.exec(select(AgentVersion)).all() == []


def test_an_attach_that_fails_after_the_check_takes_the_new_agent_away(monkeypatch):
    vendor = make_vendor()
    first = make_upload(vendor, b"# Read me\n", filename="README.md")
    second = make_upload(vendor, b"print('hi')\n", filename="agent.py")
    real_attach = files.attach_file

    def swapped_after_check(*, actor, agent_id, file_url):
        if file_url == upload_url(second):
            raise Invalid(filetypes.EXECUTABLE, field="agentFileURL")
        return real_attach(actor=actor, agent_id=agent_id, file_url=file_url)

    monkeypatch.setattr(files, "attach_file", swapped_after_check)
    with db.session_scope() as session:
        rows_before = len(session.exec(select(AgentFile)).all())
    with pytest.raises(submission.RefusedFile, match="Executable"):
        submission.submit_agent(actor=vendor, draft=_draft(tags=["swapped"]),
                                file_urls=[upload_url(first), upload_url(second)])
    assert _agents_of(vendor) == []
    with db.session_scope() as session:
        assert len(session.exec(select(AgentFile)).all()) == rows_before
        assert session.exec(select(AgentTag).where(AgentTag.tag == "swapped")).all() == []
    # The first file was attached, then given back: the next try attaches it again.
    assert (_upload(first.key).attached_at, _upload(first.key).claimed_key) == (None, None)
    assert get_storage().get(first.key) == b"# Read me\n"
    monkeypatch.undo()
    third = make_upload(vendor, b"print('hi')\n", filename="agent.py")
    agent_id, attached = submission.submit_agent(actor=vendor, draft=_draft(),
                                                 file_urls=[upload_url(first), upload_url(third)])
    assert [f.filename for f in attached] == ["README.md", "agent.py"] and [a.id for a in _agents_of(vendor)] == [
        agent_id]


def test_submit_and_check_need_an_approved_vendor_and_their_own_uploads():
    vendor, rival = make_vendor(), make_vendor()
    theirs = make_upload(rival)
    with pytest.raises(Unauthorized):
        submission.submit_agent(actor=None, draft=_draft(), file_urls=[upload_url(theirs)])
    with pytest.raises(Unauthorized):
        submission.check_upload(actor=None, file_url=upload_url(theirs))
    for user in (make_user(), make_vendor(vendor_approved=False)):
        with pytest.raises(Forbidden, match="Vendor access required"):
            submission.submit_agent(actor=user, draft=_draft(), file_urls=[upload_url(theirs)])
        with pytest.raises(Forbidden, match="Vendor access required"):
            submission.check_upload(actor=user, file_url=upload_url(theirs))
    with pytest.raises(Forbidden, match="another vendor"):
        submission.submit_agent(actor=vendor, draft=_draft(), file_urls=[upload_url(theirs)])
    with pytest.raises(Forbidden, match="another vendor"):
        submission.check_upload(actor=vendor, file_url=upload_url(theirs))
    assert _upload(theirs.key) is not None and _agents_of(vendor) == []


def test_check_upload_answers_what_attach_will_find():
    vendor = make_vendor()
    upload = make_upload(vendor, b"# Read me\n", filename="README.md", content_type="application/x-msdownload")
    checked = submission.check_upload(actor=vendor, file_url=upload_url(upload))
    assert (checked.filename, checked.size_bytes, checked.content_type) == ("README.md", 10, "text/markdown")
    assert _upload(upload.key).claimed_key is None  # only read: still free to attach
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    assert files.attach_file(actor=vendor, agent_id=agent.id, file_url=upload_url(upload)).filename == "README.md"
    with pytest.raises(Conflict, match="already attached"):
        submission.check_upload(actor=vendor, file_url=upload_url(upload))


@pytest.mark.parametrize("data, filename, match", [
    (EXE, "tool.exe", "not allowed"), (EXE, "fake.zip", "Executable"), (b"", "empty.txt", "empty"),
])
def test_check_upload_refuses_and_deletes_a_forbidden_file(data, filename, match):
    vendor = make_vendor()
    upload = make_upload(vendor, data, filename=filename)
    with pytest.raises(submission.RefusedFile, match=match):
        submission.check_upload(actor=vendor, file_url=upload_url(upload))
    assert _upload(upload.key) is None and get_storage().head(upload.key) is None


def test_check_upload_bad_urls_and_expired_uploads():
    vendor = make_vendor()
    for url in ("https://evil.example.com/file.zip", "not a url", ""):
        with pytest.raises(Invalid, match="not issued by this marketplace"):
            submission.check_upload(actor=vendor, file_url=url)
    with pytest.raises(Invalid, match="expired"):
        submission.check_upload(actor=vendor, file_url=upload_url(make_upload(vendor, expires_at=ago(minutes=1))))


def test_the_admin_queue_never_shows_a_pending_agent_without_files():
    vendor = make_vendor()
    fileless = make_agent(vendor, status=AgentStatus.PENDING, name="No files yet")  # e.g. POST, attach not yet
    ready = make_agent(vendor, status=AgentStatus.PENDING, files=1, name="Ready")
    items, total = moderation.list_pending(actor=make_admin())
    names = {item.name for item in items}
    assert "Ready" in names and "No files yet" not in names
    files.attach_file(actor=vendor, agent_id=fileless.id, file_url=upload_url(make_upload(vendor)))
    items_after, total_after = moderation.list_pending(actor=make_admin())
    assert "No files yet" in {item.name for item in items_after} and total_after == total + 1
    assert ready.id in {item.agent_id for item in items_after}


def test_changes_check_every_file_first_and_keep_at_least_one():
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.REJECTED, category=make_category(), files=1, name="Old name")
    bad = make_upload(vendor, EXE, filename="fake.zip")
    with pytest.raises(submission.RefusedFile, match="Executable"):
        submission.submit_changes(actor=vendor, agent_id=agent.id, draft=_draft(name="New name"),
                                  file_urls=[upload_url(bad)])
    with db.session_scope() as session:
        row = session.get(Agent, agent.id)
        assert (row.name, row.status) == ("Old name", AgentStatus.REJECTED)  # nothing changed
    good = make_upload(vendor, b"# Read me\n", filename="README.md")
    attached = submission.submit_changes(actor=vendor, agent_id=agent.id, draft=_draft(name="New name"),
                                         file_urls=[upload_url(good)])
    assert [f.filename for f in attached] == ["README.md"]
    empty = make_agent(vendor, status=AgentStatus.REJECTED, category=make_category())
    with pytest.raises(Invalid, match="at least one agent file"):
        submission.submit_changes(actor=vendor, agent_id=empty.id, draft=_draft(), file_urls=[])
    with pytest.raises(Forbidden, match="your own agents"):
        submission.submit_changes(actor=make_vendor(), agent_id=agent.id, draft=_draft(), file_urls=[])
