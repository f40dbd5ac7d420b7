"""Uploads through the API exactly as `@uppy/aws-s3` 6.x drives them, on the local backend and on S3 (moto).

Local targets are served by the app (the test client); S3 targets are moto's server (plain HTTP).
"""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient

from marketplace import db
from marketplace.config import settings
from marketplace.integrations.storage import get_storage
from marketplace.models import Upload
from marketplace.models.base import utcnow
from tests import s3_fixtures
from tests.factories import make_upload, make_user, make_vendor

MB = 1024 * 1024
ORIGIN = {"Origin": "http://localhost:3000"}
COMPANION = "/api/uploads/s3"


@pytest.fixture(params=["local", "s3"])
def backend(request) -> str:
    request.getfixturevalue("local_storage" if request.param == "local" else "s3_storage")
    return request.param


@pytest.fixture
def vendor_client(client, login):
    vendor = make_vendor()
    login(vendor)
    return client


def _send(client: TestClient, method: str, url: str, **kwargs) -> httpx.Response:
    """The browser's request to an upload target: the app's own for local storage, moto's for S3."""
    if url.startswith(settings.public_url):
        kwargs["headers"] = {**ORIGIN, **kwargs.get("headers", {})}
        return client.request(method, url, **kwargs)
    return httpx.request(method, url, **kwargs)


def _row(key: str) -> Upload | None:
    with db.session_scope() as session:
        return session.get(Upload, key)


def _strip_query(url: str) -> str:
    return url.split("?", 1)[0]


# --- the three flows, end to end ----------------------------------------------------------------------------
def test_one_put_upload(backend, vendor_client):
    answer = vendor_client.post("/api/objects/upload", headers=ORIGIN)
    assert answer.status_code == 200, answer.text
    url = answer.json()["uploadURL"]
    key = urlsplit(url).path.split("/", 2)[-1] if backend == "s3" else urlsplit(url).path.split("/local/")[1]
    key = key[key.index("uploads/"):]
    data = b"print('hello')\n" * 1000
    put = _send(vendor_client, "PUT", url, content=data, headers={"Content-Type": "text/x-python"})
    assert put.status_code == 200, put.text
    assert put.headers["ETag"].strip('"')
    assert get_storage().head(key) == len(data)
    assert b"".join(get_storage().iter_chunks(key, chunk_size=1000)) == data
    assert _strip_query(url).endswith(key)


def test_form_post_upload(backend, vendor_client):
    params = vendor_client.get(f"{COMPANION}/params", params={"filename": "agent.json", "type": "application/json",
                                                             "metadata[name]": "agent.json"})
    assert params.status_code == 200, params.text
    body = params.json()
    assert body["method"] == "POST"
    url, fields = body["url"], body["fields"]
    key = fields["key"]
    row = _row(key)
    assert (row.filename, row.content_type, row.method) == ("agent.json", "application/json", "post")
    data = b'{"name": "agent"}' * 100
    post = _send(vendor_client, "POST", url, data=fields, files={"file": ("agent.json", data, "application/json")})
    assert post.status_code in (201, 204), post.text
    location = f"{_strip_query(url).rstrip('/')}/{key}"  # what Uppy reports
    if backend == "local":
        assert location == f"{settings.public_url}/api/uploads/local/{key}"
    else:
        policy = json.loads(base64.b64decode(fields["policy"]))
        assert ["content-length-range", 0, settings.upload_max_file_bytes] in policy["conditions"]
        assert location == f"{get_storage().endpoint_url}/{s3_fixtures.BUCKET}/{key}"
    assert get_storage().head(key) == len(data)


def _multipart_sizes(backend: str) -> list[int]:
    return [5 * MB, 1000] if backend == "s3" else [5 * MB, 3 * MB, 10]


def test_multipart_upload(backend, vendor_client):
    created = vendor_client.post(f"{COMPANION}/multipart", headers=ORIGIN,
                                 json={"filename": "big.zip", "type": "application/zip",
                                       "metadata": {"name": "big.zip"}})
    assert created.status_code == 200, created.text
    key, upload_id = created.json()["key"], created.json()["uploadId"]
    query = urlencode({"key": key})
    sizes = _multipart_sizes(backend)
    chunks = [bytes([65 + n]) * size for n, size in enumerate(sizes)]
    etags = []
    for number, chunk in enumerate(chunks, start=1):
        signed = vendor_client.get(f"{COMPANION}/multipart/{upload_id}/{number}?{query}")
        assert signed.status_code == 200, signed.text
        put = _send(vendor_client, "PUT", signed.json()["url"], content=chunk)
        assert put.status_code == 200, put.text
        etags.append(put.headers["ETag"].strip('"'))

    listed = vendor_client.get(f"{COMPANION}/multipart/{upload_id}?{query}")
    assert listed.status_code == 200, listed.text
    assert [(p["PartNumber"], p["ETag"].strip('"'), p["Size"]) for p in listed.json()] == \
        list(zip(range(1, len(sizes) + 1), etags, sizes, strict=True))

    parts = [{"PartNumber": n, "ETag": e} for n, e in enumerate(etags, start=1)]
    done = vendor_client.post(f"{COMPANION}/multipart/{upload_id}/complete?{query}", headers=ORIGIN,
                              json={"parts": parts})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["key"] == key and body["location"].endswith(f"/{key}") and body["bucket"]
    if backend == "local":
        assert body["location"] == f"{settings.public_url}/api/uploads/local/{key}"
    assert get_storage().head(key) == sum(sizes)
    assert get_storage().get(key)[:3] == b"AAA"
    assert _row(key).upload_id is None  # finished: it cannot be resumed or completed again
    again = vendor_client.get(f"{COMPANION}/multipart/{upload_id}?{query}")
    assert again.status_code == 404


def test_abort_multipart(backend, vendor_client):
    created = vendor_client.post(f"{COMPANION}/multipart", headers=ORIGIN,
                                 json={"filename": "big.zip", "type": "application/zip", "metadata": {}}).json()
    key, upload_id = created["key"], created["uploadId"]
    query = urlencode({"key": key})
    url = vendor_client.get(f"{COMPANION}/multipart/{upload_id}/1?{query}").json()["url"]
    assert _send(vendor_client, "PUT", url, content=b"x" * 100).status_code == 200
    aborted = vendor_client.delete(f"{COMPANION}/multipart/{upload_id}?{query}", headers=ORIGIN)
    assert aborted.status_code == 200 and aborted.json() == {}
    assert _row(key) is None
    assert vendor_client.get(f"{COMPANION}/multipart/{upload_id}?{query}").status_code == 404
    assert get_storage().head(key) is None


# --- refusals ---------------------------------------------------------------------------------------------------
def _companion_calls(key: str, upload_id: str) -> list[tuple[str, str, dict]]:
    query = urlencode({"key": key})
    return [
        ("POST", "/api/objects/upload", {}),
        ("GET", f"{COMPANION}/params?filename=a.zip&type=application%2Fzip", {}),
        ("POST", f"{COMPANION}/multipart", {"json": {"filename": "a.zip", "type": "application/zip"}}),
        ("GET", f"{COMPANION}/multipart/{upload_id}?{query}", {}),
        ("GET", f"{COMPANION}/multipart/{upload_id}/1?{query}", {}),
        ("POST", f"{COMPANION}/multipart/{upload_id}/complete?{query}",
         {"json": {"parts": [{"PartNumber": 1, "ETag": "abc"}]}}),
        ("DELETE", f"{COMPANION}/multipart/{upload_id}?{query}", {}),
    ]


@pytest.fixture
def started(local_storage, client, login):
    """A multipart upload another vendor started (then signed out)."""
    owner = make_vendor()
    login(owner)
    body = client.post(f"{COMPANION}/multipart", json={"filename": "a.zip", "type": "application/zip"}).json()
    client.cookies.clear()
    return body["key"], body["uploadId"]


@pytest.mark.parametrize(("who", "status", "message"), [
    (None, 401, "Unauthorized"), ("customer", 403, "Vendor access required"),
    ("unapproved", 403, "Vendor access required"), ("rival", 403, "belongs to another vendor"),
])
def test_companion_calls_are_for_approved_vendors_on_their_own_uploads(client, login, started, who, status,
                                                                       message):
    users = {"customer": lambda: make_user(), "unapproved": lambda: make_vendor(vendor_approved=False),
             "rival": lambda: make_vendor()}
    if who:
        login(users[who]())
    for method, url, kwargs in _companion_calls(*started):
        answer = client.request(method, url, headers=ORIGIN, **kwargs)
        if who == "rival" and "/multipart/" not in url:
            assert answer.status_code == 200, (url, answer.text)  # a vendor's own new upload
            continue
        assert answer.status_code == status, (method, url, answer.text)
        assert message in answer.json()["message"]
    assert _row(started[0]) is not None


def test_unknown_upload_ids_and_bad_part_numbers(client, login, started):
    key, upload_id = started
    with db.session_scope() as session:
        vendor_id = session.get(Upload, key).vendor_id
    from marketplace.models import User

    with db.session_scope() as session:
        login(session.get(User, vendor_id))
    assert client.get(f"{COMPANION}/multipart/{'0' * 32}?key={key}").status_code == 404
    assert client.get(f"{COMPANION}/multipart/{upload_id}?key=uploads/{'0' * 32}").status_code == 404
    assert client.get(f"{COMPANION}/multipart/{upload_id}/0?key={key}").status_code == 422
    assert client.get(f"{COMPANION}/multipart/{upload_id}/10001?key={key}").status_code == 422
    assert client.get(f"{COMPANION}/multipart/{upload_id}/x?key={key}").status_code == 422
    bad = client.post(f"{COMPANION}/multipart/{upload_id}/complete?key={key}",
                      json={"parts": [{"PartNumber": 1, "ETag": "nope"}]})
    assert bad.status_code == 400 and "Part 1" in bad.json()["message"]


def test_a_cross_site_upload_request_is_refused(vendor_client, local_storage):
    answer = vendor_client.post("/api/objects/upload", headers={"Origin": "https://evil.example"})
    assert answer.status_code == 403


def test_too_many_open_uploads(vendor_client, local_storage, monkeypatch):
    monkeypatch.setattr(settings, "upload_max_open_per_vendor", 1)
    assert vendor_client.post("/api/objects/upload").status_code == 200
    answer = vendor_client.post("/api/objects/upload")
    assert answer.status_code == 429 and "unfinished uploads" in answer.json()["message"]


# --- the local targets ---------------------------------------------------------------------------------------
def _put_url(client) -> tuple[str, str]:
    url = client.post("/api/objects/upload").json()["uploadURL"]
    return url, urlsplit(url).path.split("/local/")[1]


def _with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query.update(changes)
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode(query)}"


def test_local_targets_refuse_expired_and_tampered_tokens(client, login, local_storage, monkeypatch):
    login(make_vendor())
    url, key = _put_url(client)
    monkeypatch.setattr(settings, "upload_url_ttl_seconds", -1)
    expired, expired_key = _put_url(client)
    client.cookies.clear()  # the signature, not the session, authorises the PUT
    for bad in (_with_query(url, signature="0" * 64), _with_query(url, expires="9999999999"),
                url.replace(key, "uploads/" + "0" * 32), _strip_query(url),
                _with_query(url, uploadId="a" * 32, partNumber="1"), url.replace(key, "uploads/../../etc")):
        answer = client.put(bad, content=b"x")
        assert answer.status_code in (403, 404), (bad, answer.text)
        if answer.status_code == 403:
            assert answer.json()["message"] == "Invalid upload signature"
    answer = client.put(expired, content=b"x")
    assert answer.status_code == 403 and answer.json()["message"] == "Request has expired"
    assert local_storage.head(key) is None and local_storage.head(expired_key) is None
    assert client.put(url, content=b"ok").status_code == 200


def test_a_part_token_only_fits_its_part(vendor_client, local_storage):
    created = vendor_client.post(f"{COMPANION}/multipart", json={"filename": "a.zip", "type": "application/zip"})
    key, upload_id = created.json()["key"], created.json()["uploadId"]
    url = vendor_client.get(f"{COMPANION}/multipart/{upload_id}/2?key={key}").json()["url"]
    assert vendor_client.put(_with_query(url, partNumber="3"), content=b"x").status_code == 403
    assert vendor_client.put(_with_query(url, uploadId="b" * 32), content=b"x").status_code == 403
    assert vendor_client.put(_with_query(url, partNumber="two"), content=b"x").status_code == 403
    assert vendor_client.put(url, content=b"x").status_code == 200


@pytest.mark.parametrize("streamed", [False, True])
def test_a_local_put_over_the_size_limit_is_refused_and_nothing_kept(vendor_client, local_storage, monkeypatch,
                                                                      streamed):
    monkeypatch.setattr(settings, "upload_max_file_bytes", 1000)
    url, key = _put_url(vendor_client)
    data = b"x" * 5000
    body = (data[i:i + 500] for i in range(0, len(data), 500)) if streamed else data
    answer = vendor_client.put(url, content=body)
    assert answer.status_code == 413 and "larger than the limit" in answer.json()["message"]
    assert local_storage.head(key) is None
    assert not any((local_storage.root / ".tmp").glob("*"))
    assert vendor_client.put(url, content=b"x" * 1000).status_code == 200
    assert local_storage.head(key) == 1000


def test_a_local_form_post_over_the_size_limit_is_refused(vendor_client, local_storage, monkeypatch):
    monkeypatch.setattr(settings, "upload_max_file_bytes", 1000)
    body = vendor_client.get(f"{COMPANION}/params?filename=a.txt&type=text/plain").json()
    answer = vendor_client.post(body["url"], data=body["fields"], files={"file": ("a.txt", b"x" * 200_000)})
    assert answer.status_code == 413
    assert local_storage.head(body["fields"]["key"]) is None


def test_a_local_form_post_needs_valid_fields(vendor_client, local_storage):
    body = vendor_client.get(f"{COMPANION}/params?filename=a.txt&type=text/plain").json()
    fields = body["fields"]
    tampered = {**fields, "key": "uploads/" + "1" * 32}
    assert vendor_client.post(body["url"], data=tampered, files={"file": ("a", b"x")}).status_code == 403
    assert vendor_client.post(body["url"], data=fields).status_code == 400  # no file
    assert vendor_client.post(body["url"], content=b"x", headers={"Content-Type": "text/plain"}).status_code == 400


def test_local_targets_refuse_attached_or_discarded_uploads(vendor_client, local_storage):
    url, key = _put_url(vendor_client)
    assert vendor_client.put(url, content=b"first").status_code == 200
    with db.session_scope() as session:
        session.get(Upload, key).attached_at = utcnow()
    answer = vendor_client.put(url, content=b"replaced after the checks")
    assert answer.status_code == 400 and "already attached" in answer.json()["message"]
    assert local_storage.get(key) == b"first"
    url, key = _put_url(vendor_client)
    with db.session_scope() as session:
        session.delete(session.get(Upload, key))
    assert vendor_client.put(url, content=b"x").status_code == 404


def _multipart_started(client) -> tuple[str, str]:
    created = client.post(f"{COMPANION}/multipart", json={"filename": "a.zip", "type": "application/zip"})
    assert created.status_code == 200, created.text
    return created.json()["key"], created.json()["uploadId"]


def test_local_parts_stop_at_the_size_limit(vendor_client, local_storage, monkeypatch):
    """One upload could store three 20 MiB parts past a 50 MB limit until `complete`: the running total now
    refuses the part that would pass it (here the limit is 6 MiB, so 2 parts)."""
    monkeypatch.setattr(settings, "upload_max_file_bytes", 6 * MB)
    key, upload_id = _multipart_started(vendor_client)
    signed = {n: vendor_client.get(f"{COMPANION}/multipart/{upload_id}/{n}?key={key}") for n in (1, 2, 3)}
    assert signed[3].status_code == 422 and signed[3].json()["message"] == "partNumber must be between 1 and 2"
    assert vendor_client.put(signed[1].json()["url"], content=b"a" * (4 * MB)).status_code == 200
    over = vendor_client.put(signed[2].json()["url"], content=b"b" * (3 * MB))
    assert over.status_code == 413 and "larger than the limit" in over.json()["message"]
    streamed = vendor_client.put(signed[2].json()["url"], content=(b"b" * MB for _ in range(3)))  # no length sent
    assert streamed.status_code == 413
    assert not any((local_storage.root / ".tmp").glob("*")), "nothing of a refused part is kept"
    etags = [p["ETag"] for p in vendor_client.get(f"{COMPANION}/multipart/{upload_id}?key={key}").json()]
    assert len(etags) == 1
    fits = vendor_client.put(signed[2].json()["url"], content=b"b" * (2 * MB))
    assert fits.status_code == 200
    # A part sent again replaces itself: part 1 may shrink or grow within what part 2 leaves.
    assert vendor_client.put(signed[1].json()["url"], content=b"a" * (4 * MB + 1)).status_code == 413
    assert vendor_client.put(signed[1].json()["url"], content=b"a" * (4 * MB)).status_code == 200
    full = vendor_client.get(f"{COMPANION}/multipart/{upload_id}/2?key={key}")
    assert full.status_code == 200  # re-signing part 2 is fine: its own room
    parts = [{"PartNumber": 1, "ETag": etags[0]}, {"PartNumber": 2, "ETag": fits.headers["ETag"]}]
    done = vendor_client.post(f"{COMPANION}/multipart/{upload_id}/complete?key={key}", json={"parts": parts})
    assert done.status_code == 200, done.text
    assert local_storage.head(key) == 6 * MB


def test_s3_parts_past_the_limit_drop_the_upload(vendor_client, s3_storage, monkeypatch):
    """S3 signs a part without knowing its size, so parts may overshoot; the next signature, or complete,
    sees the stored total and drops the whole upload."""
    monkeypatch.setattr(settings, "upload_max_file_bytes", 6 * MB)
    key, upload_id = _multipart_started(vendor_client)
    assert vendor_client.get(f"{COMPANION}/multipart/{upload_id}/3?key={key}").status_code == 422
    etags = []
    for number in (1, 2):
        url = vendor_client.get(f"{COMPANION}/multipart/{upload_id}/{number}?key={key}").json()["url"]
        etags.append(httpx.put(url, content=bytes([64 + number]) * (5 * MB)).headers["ETag"])
    refused = vendor_client.get(f"{COMPANION}/multipart/{upload_id}/1?key={key}")
    assert refused.status_code == 413
    assert _row(key) is None
    assert s3_storage.client.list_multipart_uploads(Bucket=s3_storage.bucket).get("Uploads", []) == []
    # The same at complete, for parts that arrive after the last signature.
    key, upload_id = _multipart_started(vendor_client)
    urls = [vendor_client.get(f"{COMPANION}/multipart/{upload_id}/{n}?key={key}").json()["url"] for n in (1, 2)]
    etags = [httpx.put(url, content=b"c" * (5 * MB)).headers["ETag"] for url in urls]
    parts = [{"PartNumber": n, "ETag": e} for n, e in enumerate(etags, start=1)]
    answer = vendor_client.post(f"{COMPANION}/multipart/{upload_id}/complete?key={key}", json={"parts": parts})
    assert answer.status_code == 413
    assert _row(key) is None and s3_storage.head(key) is None


def test_factory_uploads_resolve_on_the_local_backend(local_storage):
    upload = make_upload(make_vendor(), b"abc", expires_at=utcnow() + timedelta(hours=1))
    assert local_storage.head(upload.key) == 3
