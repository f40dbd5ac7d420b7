"""Upload rules: who gets keys, how many open ones, ownership of multipart uploads, claims and expiry."""

from __future__ import annotations

import asyncio
import os
import time
from datetime import timedelta

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.models import Upload, UploadMethod
from marketplace.models.base import utcnow
from marketplace.services import uploads
from marketplace.services.errors import Forbidden, Invalid, InvalidParameter, NotFound, TooManyRequests, Unauthorized
from tests.factories import make_admin, make_upload, make_user, make_vendor


def _row(key: str) -> Upload | None:
    with db.session_scope() as session:
        return session.get(Upload, key)


def _set(key: str, **values: object) -> None:
    with db.session_scope() as session:
        row = session.get(Upload, key)
        for name, value in values.items():
            setattr(row, name, value)


# --- issuing ------------------------------------------------------------------------------------------------
def test_only_approved_vendors_and_admins_get_upload_urls(local_storage):
    with pytest.raises(Unauthorized):
        uploads.issue_put_url(actor=None)
    with pytest.raises(Forbidden, match="Vendor access required"):
        uploads.issue_put_url(actor=make_user())
    with pytest.raises(Forbidden):
        uploads.issue_put_url(actor=make_vendor(vendor_approved=False))
    with pytest.raises(Forbidden):
        uploads.issue_post_form(actor=make_user(), filename="a.zip", content_type="application/zip")
    with pytest.raises(Forbidden):
        uploads.start_multipart(actor=make_user(), filename="a.zip", content_type="application/zip")
    assert "/api/uploads/local/uploads/" in uploads.issue_put_url(actor=make_admin())


def test_an_issued_key_is_recorded_with_its_name_type_and_expiry(local_storage):
    vendor = make_vendor()
    post = uploads.issue_post_form(actor=vendor, filename="../../My agent\x07.zip", content_type="application/zip")
    row = _row(post.fields["key"])
    assert row.vendor_id == vendor.id and row.method == UploadMethod.POST
    assert (row.filename, row.content_type) == ("My agent.zip", "application/zip")
    expected = utcnow() + timedelta(hours=settings.upload_expire_hours)
    assert abs((row.expires_at - expected).total_seconds()) < 60
    assert uploads.KEY_PATTERN.fullmatch(row.key)


def test_a_malformed_content_type_is_refused(local_storage):
    with pytest.raises(Invalid, match="Invalid file type"):
        uploads.issue_post_form(actor=make_vendor(), filename="a.txt", content_type="text/plain\r\nX-Evil: 1")


def test_open_uploads_are_limited_per_vendor(local_storage, monkeypatch):
    monkeypatch.setattr(settings, "upload_max_open_per_vendor", 2)
    vendor, other = make_vendor(), make_vendor()
    make_upload(vendor, expires_at=utcnow() - timedelta(minutes=1))  # expired: does not count
    attached = make_upload(vendor)
    _set(attached.key, attached_at=utcnow())                          # attached: does not count
    uploads.issue_put_url(actor=vendor)
    uploads.start_multipart(actor=vendor, filename="big.zip", content_type="application/zip")
    with pytest.raises(TooManyRequests, match="You have 2 unfinished uploads"):
        uploads.issue_put_url(actor=vendor)
    with pytest.raises(TooManyRequests):
        uploads.issue_post_form(actor=vendor, filename="a.txt", content_type="text/plain")
    uploads.issue_put_url(actor=other)


# --- multipart ownership ------------------------------------------------------------------------------------
@pytest.fixture
def multipart(local_storage):
    vendor = make_vendor()
    started = uploads.start_multipart(actor=vendor, filename="big.zip", content_type="application/zip")
    return vendor, started


def test_another_vendor_cannot_touch_a_multipart_upload(multipart):
    _, started = multipart
    rival = make_vendor()
    ops = [
        lambda: uploads.sign_part(actor=rival, key=started.key, upload_id=started.upload_id, part_number=1),
        lambda: uploads.list_parts(actor=rival, key=started.key, upload_id=started.upload_id),
        lambda: uploads.complete_multipart(actor=rival, key=started.key, upload_id=started.upload_id,
                                           parts=[(1, "abc")]),
        lambda: uploads.abort_multipart(actor=rival, key=started.key, upload_id=started.upload_id),
    ]
    for op in ops:
        with pytest.raises(Forbidden, match="belongs to another vendor"):
            op()
    assert _row(started.key) is not None


def test_an_unknown_key_or_upload_id_is_not_found(multipart):
    vendor, started = multipart
    other_key = uploads.issue_put_url(actor=vendor).split("/api/uploads/local/")[1].split("?")[0]
    for key, upload_id in [("uploads/" + "0" * 32, started.upload_id), ("../etc", started.upload_id),
                           (None, started.upload_id), (started.key, "f" * 32), (started.key, None),
                           (other_key, started.upload_id)]:
        with pytest.raises(NotFound):
            uploads.sign_part(actor=vendor, key=key, upload_id=upload_id, part_number=1)
        with pytest.raises(NotFound):
            uploads.list_parts(actor=vendor, key=key, upload_id=upload_id)


@pytest.mark.parametrize("number", [0, -1, 10_001])
def test_part_numbers_run_from_1_to_10000(multipart, number):
    vendor, started = multipart
    with pytest.raises(InvalidParameter, match="between 1 and 10000"):
        uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=number)
    assert uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=10_000)


def test_complete_needs_parts_that_were_uploaded(multipart):
    vendor, started = multipart
    with pytest.raises(Invalid, match="At least one part"):
        uploads.complete_multipart(actor=vendor, key=started.key, upload_id=started.upload_id, parts=[])
    with pytest.raises(Invalid, match="Part 1 was not uploaded"):
        uploads.complete_multipart(actor=vendor, key=started.key, upload_id=started.upload_id, parts=[(1, "x")])


def test_an_expired_multipart_upload_cannot_go_on(multipart):
    vendor, started = multipart
    _set(started.key, expires_at=utcnow() - timedelta(seconds=1))
    with pytest.raises(Invalid, match="expired"):
        uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=1)


def test_abort_drops_the_parts_and_the_key(multipart, local_storage):
    vendor, started = multipart
    folder = local_storage.root / ".multipart" / started.upload_id
    assert folder.is_dir()
    uploads.abort_multipart(actor=vendor, key=started.key, upload_id=started.upload_id)
    assert not folder.exists() and _row(started.key) is None


# --- claims ---------------------------------------------------------------------------------------------------
def _claim(vendor, url):
    with db.session_scope() as session:
        return uploads.claim(session, vendor=vendor, url=url)


def _url_forms(key: str) -> list[str]:
    return [
        f"http://localhost:3000/api/uploads/local/{key}",
        f"http://localhost:3000/api/uploads/local/{key}?expires=1&signature=ab",
        f"http://127.0.0.1:9000/marketplace/{key}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ab",
        f"http://127.0.0.1:9000/marketplace/{key}",
        f"https://marketplace.s3.us-east-1.amazonaws.com/{key.replace('/', '%2F')}",
    ]


@pytest.mark.parametrize("form", range(5))
def test_claim_finds_the_upload_in_each_url_form(local_storage, form):
    vendor = make_vendor()
    upload = make_upload(vendor)
    assert _claim(vendor, _url_forms(upload.key)[form]).key == upload.key


@pytest.mark.parametrize("url", [None, "", "not a url", "ftp://localhost/uploads/" + "a" * 32,
                                 "http://localhost:3000/api/uploads/local/uploads/" + "a" * 32,
                                 "http://localhost:3000/agents/x/0.zip", "http://[::1/uploads/" + "a" * 32])
def test_claim_refuses_a_url_the_app_did_not_issue(local_storage, url):
    make_upload(make_vendor())
    with pytest.raises(Invalid, match="was not issued by this marketplace"):
        _claim(make_vendor(), url)


def test_claim_refuses_another_vendors_expired_attached_or_unfinished_upload(local_storage):
    vendor = make_vendor()
    with pytest.raises(Forbidden, match="another vendor"):
        _claim(make_vendor(), _url_forms(make_upload(vendor).key)[0])
    expired = make_upload(vendor, expires_at=utcnow() - timedelta(seconds=1))
    with pytest.raises(Invalid, match="expired"):
        _claim(vendor, _url_forms(expired.key)[0])
    attached = make_upload(vendor)
    _set(attached.key, attached_at=utcnow())
    with pytest.raises(Invalid, match="already attached"):
        _claim(vendor, _url_forms(attached.key)[0])
    started = uploads.start_multipart(actor=vendor, filename="big.zip", content_type="application/zip")
    with pytest.raises(Invalid, match="not finished"):
        _claim(vendor, _url_forms(started.key)[0])


def test_discard_deletes_the_object_and_the_row(local_storage):
    upload = make_upload(make_vendor(), b"data")
    assert local_storage.head(upload.key) == 4
    with db.session_scope() as session:
        uploads.discard(session, upload=upload)
    assert local_storage.head(upload.key) is None and _row(upload.key) is None


# --- expiry ---------------------------------------------------------------------------------------------------
def test_expire_stale_removes_expired_unattached_uploads_only(local_storage):
    vendor = make_vendor()
    expired = make_upload(vendor, b"old", expires_at=utcnow() - timedelta(minutes=1))
    fresh = make_upload(vendor, b"new")
    kept = make_upload(vendor, b"kept", expires_at=utcnow() - timedelta(minutes=1))
    _set(kept.key, attached_at=utcnow() - timedelta(hours=1))
    started = uploads.start_multipart(actor=vendor, filename="big.zip", content_type="application/zip")
    _set(started.key, expires_at=utcnow() - timedelta(minutes=1))
    parts = local_storage.root / ".multipart" / started.upload_id
    # An abandoned multipart folder that no row knows, older than the expiry, goes too.
    orphan_id = local_storage.create_multipart("uploads/" + "e" * 32, content_type="text/plain")
    orphan = local_storage.root / ".multipart" / orphan_id
    old = time.time() - (settings.upload_expire_hours + 1) * 3600
    for path in (orphan, orphan / "key"):
        os.utime(path, (old, old))

    assert uploads.expire_stale() == 2
    assert local_storage.head(expired.key) is None and _row(expired.key) is None
    assert not parts.exists() and _row(started.key) is None
    assert not orphan.exists()
    assert local_storage.head(fresh.key) == 3 and local_storage.head(kept.key) == 4
    with db.session_scope() as session:
        assert {u.key for u in session.exec(select(Upload))} == {fresh.key, kept.key}
    assert uploads.expire_stale() == 0


def test_sweep_forever_runs_the_expiry_in_a_loop_and_survives_errors(monkeypatch):
    calls = []

    def expire() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("storage unreachable")
        return 0

    monkeypatch.setattr("marketplace.services.uploads.sweep.expire_stale", expire)
    monkeypatch.setattr(settings, "upload_sweep_seconds", 0.01)

    async def run() -> None:
        task = asyncio.create_task(uploads.sweep_forever())
        await asyncio.sleep(0.2)
        task.cancel()

    asyncio.run(run())
    assert len(calls) >= 3
