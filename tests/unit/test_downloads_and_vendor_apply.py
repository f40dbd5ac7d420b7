"""Download access matrix and zip contents; vendor applications from the customer dashboard."""

from __future__ import annotations

import io
import threading
import zipfile

import pytest
from sqlalchemy import func
from sqlmodel import select

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentDownload, AgentFile, Purchase, Role, VendorApplication
from marketplace.services import downloads
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from marketplace.services.vendors import applications as vendors
from tests import factories


def add_file(agent, filename, data, *, store=True, content_type="application/octet-stream"):
    key = f"agents/{agent.id}/{filename.replace('/', '_').replace('.', '_')}-{len(data)}"
    if store:
        get_storage().put(key, data)
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=agent.id, storage_key=key, filename=filename, size_bytes=len(data),
                              content_type=content_type))
        session.add(factories.clean_scan(key))


def grant(user, agent):
    with db.session_scope() as session:
        session.add(Purchase(user_id=user.id, agent_id=agent.id, purchase_price_cents=agent.price_cents))


@pytest.fixture
def shop(make_user, make_agent):
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    agent = make_agent(vendor, name="Data Wizard 2.0 (beta)")
    add_file(agent, "README.md", b"# Data Wizard\n")
    add_file(agent, "src/agent.py", b"print('hi')\n")
    add_file(agent, "README.md", b"second readme")
    return vendor, agent


def test_archive_name_replaces_every_non_alphanumeric():
    assert downloads.archive_name("Data Wizard 2.0 (beta)") == "Data_Wizard_2_0__beta__files.zip"
    assert downloads.archive_name("Émile's bot") == "_mile_s_bot_files.zip"


@pytest.mark.parametrize("who", ["buyer", "vendor", "admin"])
def test_allowed_users_get_one_zip_with_every_file(shop, make_user, who):
    vendor, agent = shop
    user = {"vendor": lambda: vendor, "admin": lambda: make_user("root", role=Role.ADMIN),
            "buyer": lambda: make_user("buyer")}[who]()
    if who == "buyer":
        grant(user, agent)
    archive = downloads.agent_archive(actor=user, agent_id=agent.id)
    assert archive.filename == "Data_Wizard_2_0__beta__files.zip"
    with zipfile.ZipFile(io.BytesIO(b"".join(archive.chunks))) as z:
        assert sorted(z.namelist()) == ["README (2).md", "README.md", "agent.py"]  # same name kept apart
        assert z.read("agent.py") == b"print('hi')\n"
        assert {z.read("README.md"), z.read("README (2).md")} == {b"# Data Wizard\n", b"second readme"}
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}  # text is deflated
    assert archive.size is None  # deflated: the length is not known in advance
    with db.session_scope() as session:
        [logged] = session.exec(select(AgentDownload)).all()
    assert (logged.user_id, logged.agent_id, logged.version) == (user.id, agent.id, 1)


def test_archives_and_pdfs_are_stored_and_the_length_is_known(make_user, make_agent):
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    agent = make_agent(vendor, name="Packed")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("a.txt", "a")
    add_file(agent, "bundle.zip", inner.getvalue())
    add_file(agent, "manual.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 2000)
    archive = downloads.agent_archive(actor=vendor, agent_id=agent.id)
    content = b"".join(archive.chunks)
    assert archive.size == len(content)
    with zipfile.ZipFile(io.BytesIO(content)) as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}
        assert z.read("bundle.zip") == inner.getvalue() and z.read("manual.pdf").startswith(b"%PDF-1.7")


def test_entries_are_plain_names_whatever_a_row_holds(make_user, make_agent):
    """Rows written before names were checked may say `..`: a buyer's zip never gets such an entry."""
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    agent = make_agent(vendor, name="Odd names")
    for name, data in (("..", b"up"), (".", b"here"), ("a/../../b.md", b"b"), ("notes.md", b"n")):
        add_file(agent, name, data)
    archive = downloads.agent_archive(actor=vendor, agent_id=agent.id)
    with zipfile.ZipFile(io.BytesIO(b"".join(archive.chunks))) as z:
        assert sorted(z.namelist()) == ["b.md", "file", "file (2)", "notes.md"]
        assert {z.read("file"), z.read("file (2)")} == {b"up", b"here"}


def test_the_stored_type_decides_what_is_already_compressed(make_user, make_agent):
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    agent = make_agent(vendor, name="Typed")
    add_file(agent, "bundle", b"PK\x05\x06" + b"\0" * 18, content_type="application/zip")  # named without extension
    add_file(agent, "notes", b"text " * 100, content_type="text/plain")
    archive = downloads.agent_archive(actor=vendor, agent_id=agent.id)
    with zipfile.ZipFile(io.BytesIO(b"".join(archive.chunks))) as z:
        kinds = {info.filename: info.compress_type for info in z.infolist()}
    assert kinds == {"bundle": zipfile.ZIP_STORED, "notes": zipfile.ZIP_DEFLATED}


def test_downloads_give_the_current_version_only(make_user, make_agent):
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    agent = make_agent(vendor, name="Versioned")
    add_file(agent, "old.md", b"old")
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=agent.id, version=2, storage_key="agents/x/new.md", filename="new.md"))
    get_storage().put("agents/x/new.md", b"new")
    names = zipfile.ZipFile(io.BytesIO(b"".join(downloads.agent_archive(actor=vendor, agent_id=agent.id).chunks)))
    assert names.namelist() == ["old.md"]  # version 2 is not approved yet
    with db.session_scope() as session:
        row = session.get(Agent, agent.id)
        row.current_version = 2
        session.add(row)
    archive = downloads.agent_archive(actor=vendor, agent_id=agent.id)
    assert zipfile.ZipFile(io.BytesIO(b"".join(archive.chunks))).namelist() == ["new.md"]
    assert archive.version == 2


def test_others_are_refused(shop, make_user, make_agent):
    vendor, agent = shop
    with pytest.raises(Unauthorized):
        downloads.agent_archive(actor=None, agent_id=agent.id)
    stranger = make_user("stranger")
    with pytest.raises(Forbidden, match=r"^You don't have access to download this file\.$"):
        downloads.agent_archive(actor=stranger, agent_id=agent.id)
    other_vendor = make_user("othervendor", role=Role.VENDOR, vendor_approved=True)
    with pytest.raises(Forbidden):
        downloads.agent_archive(actor=other_vendor, agent_id=agent.id)
    # Owning another agent is not access to this one.
    grant(stranger, make_agent(vendor))
    with pytest.raises(Forbidden):
        downloads.agent_archive(actor=stranger, agent_id=agent.id)


def test_missing_files_are_not_found(make_user, make_agent):
    admin = make_user("root", role=Role.ADMIN)
    with pytest.raises(NotFound, match=r"^File not found\.$"):
        downloads.agent_archive(actor=admin, agent_id="missing")
    empty = make_agent()
    with pytest.raises(NotFound, match=r"^File not found\.$"):
        downloads.agent_archive(actor=admin, agent_id=empty.id)
    lost = make_agent()
    add_file(lost, "a.txt", b"a")
    add_file(lost, "gone.txt", b"never stored", store=False)
    with pytest.raises(NotFound, match=r"^File not found\.$"):
        downloads.agent_archive(actor=admin, agent_id=lost.id)


# --- vendor applications -------------------------------------------------------------------------------------


def _applications(user_id):
    with db.session_scope() as session:
        return session.exec(select(func.count()).select_from(VendorApplication)
                            .where(VendorApplication.user_id == user_id)).one()


def test_apply_creates_one_pending_application(make_user):
    user = make_user("hopeful")
    app = vendors.apply(actor=user, business_name="  Acme AI  ", business_description="We build agents",
                        website="https://acme.example.com")
    assert (app.business_name, app.status, app.website) == ("Acme AI", "pending", "https://acme.example.com")
    with pytest.raises(Conflict, match="You already have a pending vendor application"):
        vendors.apply(actor=user, business_name="Acme again")
    assert _applications(user.id) == 1
    assert vendors.latest_application(actor=user).id == app.id


def test_apply_input_and_permission_checks(make_user):
    user = make_user("hopeful")
    with pytest.raises(Unauthorized):
        vendors.apply(actor=None, business_name="Acme")
    for role in (Role.VENDOR, Role.ADMIN):
        with pytest.raises(Invalid, match="cannot apply"):
            vendors.apply(actor=make_user(role=role, vendor_approved=True), business_name="Acme")
    with pytest.raises(Invalid, match="Business name is required"):
        vendors.apply(actor=user, business_name="   ")
    with pytest.raises(Invalid, match="at most 200"):
        vendors.apply(actor=user, business_name="x" * 201)
    for bad in ("ftp://acme.example.com", "acme.example.com", "javascript:alert(1)", "https://", "http://a b.com"):
        with pytest.raises(Invalid, match="Website must be a valid http"):
            vendors.apply(actor=user, business_name="Acme", website=bad)
    assert _applications(user.id) == 0
    assert vendors.apply(actor=user, business_name="Acme", website="  ").website is None


def test_concurrent_applications_leave_one_pending(make_user):
    user = make_user("eager")
    barrier = threading.Barrier(8)
    outcomes = []

    def run():
        barrier.wait(timeout=30)
        try:
            vendors.apply(actor=user, business_name="Acme")
            outcomes.append("ok")
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]
    assert _applications(user.id) == 1


def test_a_large_download_streams_in_constant_memory(make_user, make_agent):
    import os
    import tracemalloc

    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    agent = make_agent(vendor, name="Big")
    block = os.urandom(1 << 20)
    add_file(agent, "big.zip", b"PK\x03\x04" + block * 24)  # 24 MB, stored as is
    archive = downloads.agent_archive(actor=vendor, agent_id=agent.id)
    tracemalloc.start()
    total = sum(len(chunk) for chunk in archive.chunks)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert total == archive.size > 24 << 20
    assert peak < 8 << 20, f"peak {peak} bytes while streaming"
