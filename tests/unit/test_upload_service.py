"""Upload rules: who gets keys, how many open ones, ownership of multipart uploads, claims and expiry."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from datetime import timedelta

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.models import Upload, UploadMethod
from marketplace.models.base import utcnow
from marketplace.services import uploads
from marketplace.services.errors import (
    Conflict,
    Forbidden,
    Invalid,
    InvalidParameter,
    NotFound,
    TooManyRequests,
    Unauthorized,
)
from marketplace.services.uploads import PayloadTooLarge
from tests.factories import make_admin, make_upload, make_user, make_vendor

MB = 1024 * 1024


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


@pytest.mark.parametrize(("limit", "parts"), [(52_428_800, 10), (52_428_801, 11), (1000, 1), (6 * MB, 2),
                                              (10 ** 12, 10_000)])
def test_the_part_count_follows_the_size_limit(monkeypatch, limit, parts):
    """Every part but the last is at least 5 MiB, so a file within the limit never needs more parts."""
    monkeypatch.setattr(settings, "upload_max_file_bytes", limit)
    assert uploads.max_parts() == parts


@pytest.mark.parametrize("number", [0, -1, 11, 10_000])
def test_part_numbers_run_from_1_to_the_part_count(multipart, number):
    vendor, started = multipart
    assert uploads.max_parts() == 10  # 50 MB in parts of 5 MiB
    with pytest.raises(InvalidParameter, match=r"between 1 and 10$"):
        uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=number)
    assert uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=10)


def _store_part(storage, started, number: int, size: int) -> None:
    with storage.part_writer(started.key, started.upload_id, number, max_bytes=None) as writer:
        writer.write(b"p" * size)
        storage.commit_part(writer)


def test_no_part_is_signed_once_the_stored_parts_fill_the_limit(multipart, local_storage, monkeypatch):
    vendor, started = multipart
    monkeypatch.setattr(settings, "upload_max_file_bytes", 6 * MB)
    _store_part(local_storage, started, 1, 6 * MB)
    with pytest.raises(PayloadTooLarge, match="larger than the limit of 6291456 bytes"):
        uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=2)
    # Sent again, a part replaces itself: its room is its own.
    assert uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=1)
    assert _row(started.key) is not None


def test_an_upload_whose_stored_parts_pass_the_limit_is_dropped_when_seen(multipart, local_storage, monkeypatch):
    """S3 cannot cap a part's size through its signed URL: parts there may overshoot, and the upload goes."""
    vendor, started = multipart
    monkeypatch.setattr(settings, "upload_max_file_bytes", 6 * MB)
    _store_part(local_storage, started, 1, 4 * MB)
    _store_part(local_storage, started, 2, 4 * MB)
    with pytest.raises(PayloadTooLarge):
        uploads.sign_part(actor=vendor, key=started.key, upload_id=started.upload_id, part_number=1)
    assert _row(started.key) is None and not (local_storage.root / ".multipart" / started.upload_id).exists()


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
STORED = "agents/a1/" + "b" * 32


def _claim(vendor, url, stored_key: str = STORED) -> uploads.Claimed:
    return uploads.claim(vendor=vendor, url=url, stored_key=stored_key)


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
    upload = make_upload(vendor, filename="agent.py")
    claimed = _claim(vendor, _url_forms(upload.key)[form])
    assert (claimed.key, claimed.stored_key, claimed.filename) == (upload.key, STORED, "agent.py")
    row = _row(upload.key)
    assert (row.claimed_key, row.attached_at) == (STORED, None)


@pytest.mark.parametrize("url", [None, "", "not a url", "ftp://localhost/uploads/" + "a" * 32,
                                 "http://localhost:3000/api/uploads/local/uploads/" + "a" * 32,
                                 "http://localhost:3000/agents/x/0.zip", "http://[::1/uploads/" + "a" * 32])
def test_claim_refuses_a_url_the_app_did_not_issue(local_storage, url):
    make_upload(make_vendor())
    with pytest.raises(Invalid, match="was not issued by this marketplace"):
        _claim(make_vendor(), url)


def test_claim_refuses_another_vendors_expired_attached_claimed_or_unfinished_upload(local_storage):
    vendor = make_vendor()
    theirs = make_upload(vendor)
    with pytest.raises(Forbidden, match="another vendor"):
        _claim(make_vendor(), _url_forms(theirs.key)[0])
    expired = make_upload(vendor, expires_at=utcnow() - timedelta(seconds=1))
    with pytest.raises(Invalid, match="expired"):
        _claim(vendor, _url_forms(expired.key)[0])
    attached = make_upload(vendor)
    _set(attached.key, attached_at=utcnow())
    with pytest.raises(Conflict, match="already attached"):
        _claim(vendor, _url_forms(attached.key)[0])
    claimed = make_upload(vendor)
    _claim(vendor, _url_forms(claimed.key)[0])
    with pytest.raises(Conflict, match="already attached"):  # the second of two attaches changes nothing
        _claim(vendor, _url_forms(claimed.key)[0], stored_key="agents/a2/" + "c" * 32)
    assert _row(claimed.key).claimed_key == STORED
    started = uploads.start_multipart(actor=vendor, filename="big.zip", content_type="application/zip")
    with pytest.raises(Invalid, match="not finished"):
        _claim(vendor, _url_forms(started.key)[0])
    creating = make_upload(vendor, upload_id="", method=UploadMethod.MULTIPART)  # its storage upload not started
    with pytest.raises(Invalid, match="not finished"):
        _claim(vendor, _url_forms(creating.key)[0])
    assert [_row(u.key).claimed_key for u in (theirs, expired, attached)] == [None, None, None]


def test_a_claimed_upload_still_counts_as_open_and_takes_no_more_bytes(local_storage, monkeypatch, client):
    monkeypatch.setattr(settings, "upload_max_open_per_vendor", 1)
    vendor = make_vendor()
    url = uploads.issue_put_url(actor=vendor)
    key = url.split("/api/uploads/local/")[1].split("?")[0]
    _claim(vendor, _url_forms(key)[0])
    with pytest.raises(TooManyRequests):
        uploads.issue_put_url(actor=vendor)
    answer = client.put(url, content=b"replaced while it is checked", headers={"Origin": "http://localhost:3000"})
    assert answer.status_code == 400 and "already attached" in answer.json()["message"]


def test_finish_marks_the_claim_attached_once(local_storage):
    vendor = make_vendor()
    upload = make_upload(vendor)
    claimed = _claim(vendor, _url_forms(upload.key)[0])
    with db.session_scope() as session:
        uploads.finish(session, claimed)
    assert _row(upload.key).attached_at is not None
    with pytest.raises(Conflict, match="expired while it was being attached"), db.session_scope() as session:
        uploads.finish(session, claimed)


def test_release_puts_the_object_back_and_lifts_the_claim(local_storage):
    vendor = make_vendor()
    upload = make_upload(vendor, b"data")
    claimed = _claim(vendor, _url_forms(upload.key)[0])
    local_storage.move(upload.key, claimed.stored_key)
    uploads.release(claimed)
    assert local_storage.get(upload.key) == b"data" and local_storage.head(claimed.stored_key) is None
    assert _row(upload.key).claimed_key is None
    assert _claim(vendor, _url_forms(upload.key)[0]).key == upload.key  # ready for a retry


def test_release_after_the_row_went_deletes_the_object(local_storage):
    vendor = make_vendor()
    upload = make_upload(vendor, b"data")
    claimed = _claim(vendor, _url_forms(upload.key)[0])
    local_storage.move(upload.key, claimed.stored_key)
    with db.session_scope() as session:
        session.delete(session.get(Upload, upload.key))
    uploads.release(claimed)
    assert local_storage.head(upload.key) is None and local_storage.head(claimed.stored_key) is None


def test_drop_deletes_both_objects_and_the_row_but_never_an_attached_upload(local_storage):
    vendor = make_vendor()
    upload = make_upload(vendor, b"data")
    claimed = _claim(vendor, _url_forms(upload.key)[0])
    local_storage.move(upload.key, claimed.stored_key)
    uploads.drop(claimed)
    assert _row(upload.key) is None and local_storage.head(claimed.stored_key) is None
    kept = make_upload(vendor, b"kept")
    claimed = _claim(vendor, _url_forms(kept.key)[0], stored_key="agents/a1/" + "d" * 32)
    local_storage.move(kept.key, claimed.stored_key)
    with db.session_scope() as session:
        uploads.finish(session, claimed)
    uploads.drop(claimed)
    assert _row(kept.key).attached_at is not None and local_storage.get(claimed.stored_key) == b"kept"


def test_discard_deletes_the_object_and_the_row(local_storage):
    upload = make_upload(make_vendor(), b"data")
    assert local_storage.head(upload.key) == 4
    with db.session_scope() as session:
        uploads.discard(session, upload=upload)
    assert local_storage.head(upload.key) is None and _row(upload.key) is None


# --- expiry ---------------------------------------------------------------------------------------------------
def test_expiry_removes_a_claimed_upload_with_both_objects(local_storage):
    """An attach that crashed between its claim and its record leaves a claimed row: the sweep knows it."""
    vendor = make_vendor()
    upload = make_upload(vendor, b"data")
    claimed = _claim(vendor, _url_forms(upload.key)[0])
    local_storage.move(upload.key, claimed.stored_key)
    _set(upload.key, expires_at=utcnow() - timedelta(seconds=1))
    assert uploads.expire_stale() == 1
    assert _row(upload.key) is None and local_storage.head(claimed.stored_key) is None


def test_discard_leaves_an_upload_attached_meanwhile(local_storage):
    upload = make_upload(make_vendor(), b"data")
    _set(upload.key, attached_at=utcnow())
    with db.session_scope() as session:
        assert uploads.discard(session, upload=upload) is False
    assert _row(upload.key) is not None and local_storage.head(upload.key) == 4


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
    third_call = threading.Event()

    def expire() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("storage unreachable")
        if len(calls) == 3:
            third_call.set()
        return 0

    monkeypatch.setattr("marketplace.services.uploads.sweep.expire_stale", expire)
    monkeypatch.setattr(settings, "upload_sweep_seconds", 0.01)

    async def run() -> None:
        task = asyncio.create_task(uploads.sweep_forever())
        # Waits for the third round however loaded the machine is; the loop went on after the failing first.
        await asyncio.to_thread(third_call.wait, 30)
        task.cancel()

    asyncio.run(run())
    assert third_call.is_set()
