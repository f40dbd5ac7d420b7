"""Agent versions (issue 33): the label and notes rules, safe rendering of the notes, and the deletion of an old
version's objects, which waits for every download in flight (services/versions/leases.py)."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import AgentFile, AgentVersion, DownloadLease
from marketplace.models.base import utcnow
from marketplace.services import downloads
from marketplace.services.errors import Invalid, InvalidParameter, NotFound
from marketplace.services.vendors import agents, revisions
from marketplace.services.versions import history, labels, leases, notes
from marketplace.state.vendors.dashboard import _agent_row
from tests import factories
from tests.factories import make_admin, make_agent, make_purchase, make_user, make_vendor


@pytest.mark.parametrize("label", ["2", "1.0.1", "1.1", "1.0.0.1", " 3.0 ", "10.0.0", "1.0.10"])
def test_labels_greater_than_the_live_one_pass(label):
    assert labels.clean_label(label, live="1.0.0") == label.strip()


@pytest.mark.parametrize(
    ("label", "message"),
    [
        (None, labels.LABEL_REQUIRED),
        ("", labels.LABEL_REQUIRED),
        (3, labels.LABEL_INVALID),
        ("1.0", "Version label must be greater than the live version 1.0.0"),
        ("0.99", "Version label must be greater than the live version 1.0.0"),
        ("1.a", labels.LABEL_INVALID),
        ("-1", labels.LABEL_INVALID),
        ("1.2.3.4.5", labels.LABEL_INVALID),
        (".1", labels.LABEL_INVALID),
        ("1 .2", labels.LABEL_INVALID),
        ("\u0663.1", labels.LABEL_INVALID),
        ("1" * 33, labels.LABEL_INVALID),
    ],
)
def test_bad_labels_are_refused(label, message):
    with pytest.raises(Invalid) as refused:
        labels.clean_label(label, live="1.0.0")
    assert (refused.value.message, refused.value.field) == (message, "version_label")


def test_labels_compare_part_by_part():
    assert labels.parse_label("1.10") > labels.parse_label("1.9.9")
    assert labels.parse_label("1.4") == labels.parse_label("1.4.0.0")
    with pytest.raises(InvalidParameter):
        labels.clean_label("1.\x07", live="1.0")


def test_notes_rules():
    assert labels.clean_notes("  *New*  \n") == "*New*"
    assert labels.clean_notes("x" * 5000) == "x" * 5000
    for bad, message in (
        (None, labels.NOTES_REQUIRED),
        ("   ", labels.NOTES_REQUIRED),
        (7, labels.NOTES_REQUIRED),
        ("x" * 5001, "Release notes must be at most 5,000 characters"),
    ):
        with pytest.raises(Invalid, match=message):
            labels.clean_notes(bad)


@pytest.mark.parametrize(
    ("markdown", "kept", "never"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;", "<script"),
        ('<img src=x onerror="alert(1)">', "&lt;img", "<img"),
        ("[click](javascript:alert(1))", "[click](javascript:alert(1))", "href"),
        ("[data](data:text/html;base64,PHNjcmlwdD4=)", "[data]", "href"),
        ('<a href="https://x.test" onclick="steal()">x</a>', "&lt;a href=", "<a "),
        (
            "# Title\n\n- **one**\n- `two`\n\n[docs](https://docs.example.com)",
            '<a href="https://docs.example.com">docs</a>',
            "<script",
        ),
    ],
)
def test_notes_render_without_raw_html_or_script_links(markdown, kept, never):
    html = notes.render_notes(markdown)
    assert kept in html and never not in html


def test_notes_render_markdown():
    assert notes.render_notes("# Title\n\n- **one**") == "<h1>Title</h1>\n<ul>\n<li><strong>one</strong></li>\n</ul>\n"
    assert notes.render_notes("  ") == ""


def test_notes_as_plain_text_keep_the_words_not_the_marks():
    markdown = ("# Big release\n\n**Faster** replies, *less* noise: see [the docs](https://docs.example.com) or "
                "<https://x.test>.\n\n- one\n- `two`\n  1. nested\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                "```\npip install bot\n```\n\n[click](javascript:alert(1)) <script>x</script>")
    assert notes.notes_text(markdown) == (
        "Big release\n\nFaster replies, less noise: see the docs (https://docs.example.com) or https://x.test.\n\n"
        "- one\n- two\n  1. nested\n\na | b\n1 | 2\n\npip install bot\n"
        "[click](javascript:alert(1)) <script>x</script>")  # as the HTML shows it: text, never a link
    assert notes.notes_text("1. first\n2. second") == "1. first\n2. second"
    assert notes.notes_text(" \n ") == ""


@pytest.mark.parametrize("label, kept", [(None, "1.0.0"), ("", "1.0.0"), (" 0.1 ", "0.1"), ("2.0.0.1", "2.0.0.1")])
def test_a_first_label_is_any_label_above_zero(label, kept):
    assert labels.clean_first_label(label) == kept


@pytest.mark.parametrize("label, message", [("0", labels.FIRST_LABEL_ZERO), ("0.0.0", labels.FIRST_LABEL_ZERO),
                                            ("v1", labels.LABEL_INVALID), (1, labels.LABEL_INVALID),
                                            ("1.2.3.4.5", labels.LABEL_INVALID)])
def test_bad_first_labels_are_refused(label, message):
    with pytest.raises(Invalid, match=message) as refused:
        labels.clean_first_label(label)
    assert refused.value.field == "version_label"


def test_first_notes_are_optional():
    assert (labels.clean_first_notes(None), labels.clean_first_notes("  "), labels.clean_first_notes(" *a* ")) == (
        "", "", "*a*")
    with pytest.raises(Invalid, match="at most 5,000"):
        labels.clean_first_notes("x" * 5001)


def _live_agent_with_versions(count: int):
    """A live agent with a buyer and `count` published versions: 1.0.0 (implicit) then 1.1.0, 1.2.0..."""
    admin, vendor = make_admin(), make_vendor()
    agent = make_agent(vendor, "Kept Bot")
    first = factories.store_agent_file(agent, b"v0\n", filename="agent.py")
    buyer = make_user()
    make_purchase(buyer, agent)
    for n in range(1, count):
        factories.publish_version(agent, admin, f"1.{n}.0", f"Release {n}", {"agent.py": f"v{n}\n".encode()})
    return admin, agent, buyer, first


def _unzip(chunks) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(b"".join(chunks))) as archive:
        return {n: archive.read(n) for n in archive.namelist() if n != downloads.LICENSE_FILE}


def test_an_old_versions_objects_wait_for_a_download_in_flight():
    admin, agent, buyer, first = _live_agent_with_versions(3)  # 1.0.0, 1.1.0, 1.2.0: all three downloadable
    storage = get_storage()
    archive = downloads.agent_archive(actor=buyer, agent_id=agent.id, version="1.0.0")  # started, not yet sent
    factories.publish_version(agent, admin, "2.0.0", "Pushes 1.0.0 out")
    with db.session_scope() as session:
        assert session.exec(select(AgentFile).where(AgentFile.storage_key == first.storage_key)).all() == []
    assert storage.head(first.storage_key) is not None  # no row refers to it, but the download holds it
    with pytest.raises(NotFound, match="no longer available"):
        downloads.agent_archive(actor=buyer, agent_id=agent.id, version="1.0.0")  # nobody starts a new one
    assert _unzip(archive.chunks) == {"agent.py": b"v0\n"}  # the download in flight completes, whole
    assert storage.head(first.storage_key) is None  # and its end deletes the object
    with db.session_scope() as session:
        assert session.exec(select(DownloadLease)).all() == []


def test_a_download_cut_off_releases_its_lease():
    admin, agent, buyer, first = _live_agent_with_versions(3)
    archive = downloads.agent_archive(actor=buyer, agent_id=agent.id, version="1.0.0")
    next(archive.chunks)  # the client reads a little, then goes away
    factories.publish_version(agent, admin, "2.0.0", "Pushes 1.0.0 out")
    assert get_storage().head(first.storage_key) is not None
    archive.chunks.close()  # what the server does when the client disconnects
    assert get_storage().head(first.storage_key) is None


def test_a_version_dropped_between_the_two_reads_is_404_and_its_objects_go(monkeypatch):
    """The race the leases close: the download read the version's files, then the approval dropped them and
    looked for leases before this download's lease was committed. The second read sees the rows gone."""
    admin, agent, buyer, first = _live_agent_with_versions(3)
    take = leases.take

    def late_take(keys):
        monkeypatch.setattr(leases, "take", take)
        factories.publish_version(agent, admin, "2.0.0", "Lands between the reads")
        return take(keys)

    monkeypatch.setattr(leases, "take", late_take)
    with pytest.raises(NotFound):
        downloads.agent_archive(actor=buyer, agent_id=agent.id, version="1.0.0")
    assert get_storage().head(first.storage_key) is None  # nothing keeps it: no row, no lease
    with db.session_scope() as session:
        assert session.exec(select(DownloadLease)).all() == []


def test_expired_leases_are_swept_with_what_they_kept():
    admin, agent, buyer, first = _live_agent_with_versions(3)
    archive = downloads.agent_archive(actor=buyer, agent_id=agent.id, version="1.0.0")
    factories.publish_version(agent, admin, "2.0.0", "Pushes 1.0.0 out")
    assert leases.sweep() == 0 and get_storage().head(first.storage_key) is not None  # still running: kept
    with db.session_scope() as session:  # a worker that crashed mid-download never ends its stream
        for lease in session.exec(select(DownloadLease)).all():
            lease.expires_at = utcnow() - timedelta(seconds=1)
            session.add(lease)
    assert leases.sweep() == 1
    assert get_storage().head(first.storage_key) is None
    del archive


def test_approval_keeps_three_versions_and_their_rows():
    _, agent, _, _ = _live_agent_with_versions(5)
    with db.session_scope() as session:
        versions = sorted(set(session.exec(select(AgentFile.version).where(AgentFile.agent_id == agent.id)).all()))
        rows = session.exec(
            select(AgentVersion.label).where(AgentVersion.agent_id == agent.id).order_by(AgentVersion.version)
        ).all()
    assert versions == [3, 4, 5] and rows == ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0"]
    assert [v.label for v in history.list_versions(agent_id=agent.id)] == ["1.4.0", "1.3.0", "1.2.0", "1.1.0", "1.0.0"]


def test_the_vendors_agent_row_shows_the_live_and_the_pending_label_and_the_files_scans():
    admin, vendor = make_admin(), make_vendor()
    agent = make_agent(vendor, "Row Bot")
    factories.store_agent_file(agent, b"v1\n", filename="agent.py")
    factories.publish_version(agent, admin, "1.1.0", "Faster")
    [row] = [_agent_row(a, ZoneInfo("UTC")) for a in agents.list_own_agents(actor=vendor)]
    assert (row.version_label, row.pending_version_label) == ("1.1.0", "")
    with db.session_scope() as session:
        revision = revisions.open_revision(session, session.get(type(agent), agent.id), vendor_id=vendor.id)
        revision.files_changed, revision.version_label, revision.release_notes = True, "1.2.0", "More"
        session.add(revision)
    [row] = [_agent_row(a, ZoneInfo("UTC")) for a in agents.list_own_agents(actor=vendor)]
    assert (row.version_label, row.pending_version_label, row.has_revision) == ("1.1.0", "1.2.0", True)
    assert (row.scan, row.scan_status) == ("1 file scanned: no threats found", "clean")
    # The files the approval would publish: a pending one and an infected one are named, the clean one is not.
    with db.session_scope() as session:
        for name, status in (("b.zip", "infected"), ("c.py", "pending")):
            key = f"agents/{agent.id}/{name}"
            session.add(AgentFile(agent_id=agent.id, version=revision.version, storage_key=key, filename=name))
            session.add(factories.clean_scan(key, status=status, findings='[{"kind": "malware", "name": '
                                                                          '"Eicar-Test-Signature", "member": "x.txt"}]'
                                             if status == "infected" else "[]"))
    [row] = [_agent_row(a, ZoneInfo("UTC")) for a in agents.list_own_agents(actor=vendor)]
    assert row.scan_status == "infected"
    assert row.scan == ("b.zip: Infected: cannot be approved (Eicar-Test-Signature in x.txt); c.py: Scan pending")
