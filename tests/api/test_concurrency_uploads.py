"""Uploads under requests that arrive at the same moment, over real HTTP (tests/live_api.py), on SQLite and
PostgreSQL: one upload attached twice, an agent's five places, the open-uploads cap, and multipart parts that
together would pass the size limit. After each burst, storage and rows must agree: no object that no row
names (the expiry sweep only knows rows) and no row whose object is gone.
"""

from __future__ import annotations

import httpx
import pytest
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.integrations.storage import S3Storage, get_storage
from marketplace.models import AgentFile, AgentStatus, Upload
from tests.factories import make_agent, make_upload, make_vendor, upload_url
from tests.live_api import LiveApi, fire

MB = 1024 * 1024


@pytest.fixture(params=["local", "s3"])
def backend(request) -> str:
    request.getfixturevalue("local_storage" if request.param == "local" else "s3_storage")
    return request.param


def _clients(live_api: LiveApi, username: str, n: int) -> list[httpx.Client]:
    """`n` clients sharing one vendor session (one connection each, as separate browser tabs would)."""
    first = live_api.signed_in(username)
    return [first] + [live_api.client(cookies=first.cookies) for _ in range(n - 1)]


def _stored_keys() -> set[str]:
    storage = get_storage()
    if isinstance(storage, S3Storage):
        pages = storage.client.get_paginator("list_objects_v2").paginate(Bucket=storage.bucket)
        return {item["Key"] for page in pages for item in page.get("Contents", [])}
    root = storage.root
    return {path.relative_to(root).as_posix() for path in root.rglob("*")
            if path.is_file() and not any(part.startswith(".") for part in path.relative_to(root).parts)}


def _assert_storage_matches_rows() -> None:
    with db.session_scope() as session:
        files = set(session.exec(select(AgentFile.storage_key)).all())
        open_uploads = set(session.exec(select(Upload.key).where(Upload.attached_at.is_(None))).all())
    stored = _stored_keys()
    assert files <= stored, f"rows without their object: {files - stored}"
    assert stored <= files | open_uploads, f"objects no row names: {stored - files - open_uploads}"


def _attach(client: httpx.Client, agent_id: str, upload: Upload) -> httpx.Response:
    return client.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": upload_url(upload)})


def test_one_upload_attached_to_two_agents_at_once_has_one_winner(live_api, backend):
    vendor = make_vendor()
    first, second = make_agent(vendor, status=AgentStatus.PENDING), make_agent(vendor, status=AgentStatus.PENDING)
    one, two = _clients(live_api, vendor.username, 2)
    rounds = 5
    for _ in range(rounds):
        upload = make_upload(vendor, b"# Read me\n", filename="README.md")
        answers = fire([lambda u=upload: _attach(one, first.id, u), lambda u=upload: _attach(two, second.id, u)])
        assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
        loser = next(a for a in answers if a.status_code == 409)
        assert loser.json()["message"] == "This file is already attached to an agent"
        _assert_storage_matches_rows()
    with db.session_scope() as session:
        rows = session.exec(select(AgentFile)).all()
        assert len(rows) == rounds
        assert session.exec(select(Upload).where(Upload.attached_at.is_(None))).all() == []
    assert _stored_keys() == {row.storage_key for row in rows}


def test_ten_uploads_attached_at_once_fill_an_agents_five_places(live_api, backend):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    limit = settings.upload_max_files_per_agent
    clients = _clients(live_api, vendor.username, 2 * limit)
    batch = [make_upload(vendor, f"# File {n}\n".encode(), filename=f"f{n}.md") for n in range(2 * limit)]
    answers = fire([lambda c=c, u=u: _attach(c, agent.id, u) for c, u in zip(clients, batch, strict=True)])
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] * limit + [400] * limit, [a.text for a in answers]
    assert {a.json()["message"] for a in answers if a.status_code == 400} == {
        f"An agent can have at most {limit} files"}
    with db.session_scope() as session:
        rows = session.exec(select(AgentFile).where(AgentFile.agent_id == agent.id)).all()
    assert len(rows) == limit
    _assert_storage_matches_rows()
    assert _stored_keys() == {row.storage_key for row in rows}, "refused uploads are deleted"


def test_the_open_uploads_cap_holds_under_a_burst_of_put_urls_and_multipart_creates(live_api, local_storage,
                                                                                     monkeypatch):
    cap = 4
    monkeypatch.setattr(settings, "upload_max_open_per_vendor", cap)
    vendor = make_vendor()
    clients = _clients(live_api, vendor.username, 12)
    calls = [lambda c=c: c.post("/api/objects/upload") for c in clients[:6]]
    calls += [lambda c=c: c.post("/api/uploads/s3/multipart", json={"filename": "big.zip", "type": "application/zip"})
              for c in clients[6:]]
    answers = fire(calls)
    granted = [a for a in answers if a.status_code == 200]
    assert all(a.status_code == 429 for a in answers if a.status_code != 200), [a.text for a in answers]
    assert len(granted) <= cap
    with db.session_scope() as session:
        rows = session.exec(select(Upload).where(Upload.vendor_id == vendor.id)).all()
    assert len(rows) == len(granted), "a refused request leaves no key behind"
    folders = list((local_storage.root / ".multipart").glob("*"))
    assert len(folders) == sum(1 for a in answers[6:] if a.status_code == 200), "nor a multipart upload"
    # The refused ones left nothing counted: the vendor gets exactly the places that are left.
    for _ in range(cap - len(granted)):
        assert clients[0].post("/api/objects/upload").status_code == 200
    assert clients[0].post("/api/objects/upload").status_code == 429


def test_two_parts_at_once_cannot_pass_the_size_limit(live_api, local_storage, monkeypatch):
    monkeypatch.setattr(settings, "upload_max_file_bytes", 6 * MB)
    vendor = make_vendor()
    one, two = _clients(live_api, vendor.username, 2)
    created = one.post("/api/uploads/s3/multipart", json={"filename": "big.zip", "type": "application/zip"}).json()
    key, upload_id = created["key"], created["uploadId"]
    urls = [one.get(f"/api/uploads/s3/multipart/{upload_id}/{n}", params={"key": key}).json()["url"]
            .replace(settings.public_url, live_api.url) for n in (1, 2)]
    part = b"p" * (4 * MB)
    answers = fire([lambda: one.put(urls[0], content=part), lambda: two.put(urls[1], content=part)])
    assert sorted(a.status_code for a in answers) == [200, 413], [a.text for a in answers]
    listed = one.get(f"/api/uploads/s3/multipart/{upload_id}", params={"key": key}).json()
    assert sum(p["Size"] for p in listed) == 4 * MB
