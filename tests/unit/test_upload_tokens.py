"""The local backend's signed upload URLs: only the exact key, expiry, kind and part they were issued for."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest

from marketplace.config import settings
from marketplace.integrations.storage import LocalStorage, safe_key, tokens
from marketplace.integrations.storage.tokens import Purpose, TokenError, TokenExpired

KEY = "uploads/" + "a" * 32
OTHER_KEY = "uploads/" + "b" * 32


def test_a_signature_verifies_for_exactly_what_it_was_issued_for():
    expires, signature = tokens.issue(Purpose.PUT, KEY, ttl=60)
    assert abs(expires - (time.time() + 60)) < 5
    tokens.verify(Purpose.PUT, KEY, str(expires), signature)
    tokens.verify(Purpose.PUT, KEY, expires, signature.upper())  # hex case does not matter


@pytest.mark.parametrize("change", ["key", "expiry", "signature", "purpose_post", "purpose_part"])
def test_a_tampered_or_reused_token_is_refused(change):
    expires, signature = tokens.issue(Purpose.PUT, KEY, ttl=60)
    key, purpose = KEY, Purpose.PUT
    if change == "key":
        key = OTHER_KEY
    elif change == "expiry":
        expires += 3600
    elif change == "signature":
        signature = ("0" if signature[0] != "0" else "1") + signature[1:]
    elif change == "purpose_post":
        purpose = Purpose.POST
    else:
        purpose = Purpose.PART
    with pytest.raises(TokenError, match="Invalid upload signature"):
        tokens.verify(purpose, key, expires, signature)


@pytest.mark.parametrize("field", ["part_number", "upload_id", "no_part"])
def test_a_part_token_is_bound_to_its_upload_and_part_number(field):
    expires, signature = tokens.issue(Purpose.PART, KEY, ttl=60, upload_id="c" * 32, part_number=2)
    tokens.verify(Purpose.PART, KEY, expires, signature, upload_id="c" * 32, part_number=2)
    values = {"upload_id": "c" * 32, "part_number": 2}
    if field == "part_number":
        values["part_number"] = 3
    elif field == "upload_id":
        values["upload_id"] = "d" * 32
    else:
        values = {"upload_id": "", "part_number": None}
    with pytest.raises(TokenError):
        tokens.verify(Purpose.PART, KEY, expires, signature, **values)


def test_an_expired_token_is_refused_with_the_clients_expiry_text():
    expires, signature = tokens.issue(Purpose.PUT, KEY, ttl=60)
    with pytest.raises(TokenExpired, match="Request has expired"):
        tokens.verify(Purpose.PUT, KEY, expires, signature, now=expires)
    tokens.verify(Purpose.PUT, KEY, expires, signature, now=expires - 1)


def test_tampering_is_reported_before_expiry():
    """An expired token with a wrong signature says 'invalid', so nobody learns which tokens were once valid."""
    expires, _ = tokens.issue(Purpose.PUT, KEY, ttl=-10)
    with pytest.raises(TokenError) as caught:
        tokens.verify(Purpose.PUT, KEY, expires, "f" * 64)
    assert not isinstance(caught.value, TokenExpired)


@pytest.mark.parametrize(("expires", "signature"), [(None, "ab"), ("soon", "ab"), ("123", None), ("123", ""),
                                                    ("123", "é" * 64)])
def test_malformed_values_are_refused(expires, signature):
    with pytest.raises(TokenError):
        tokens.verify(Purpose.PUT, KEY, expires, signature)


def test_tokens_depend_on_the_secret_key(monkeypatch):
    expires, signature = tokens.issue(Purpose.PUT, KEY, ttl=60)
    monkeypatch.setattr(settings, "secret_key", "another-secret-key-of-enough-length-0123456789")
    with pytest.raises(TokenError):
        tokens.verify(Purpose.PUT, KEY, expires, signature)


def test_local_put_and_part_urls_carry_a_verifiable_token(tmp_path):
    storage = LocalStorage(tmp_path)
    url = urlsplit(storage.presigned_put_url(KEY, expires_in=60))
    assert url.path == f"/api/uploads/local/{KEY}"
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    tokens.verify(Purpose.PUT, KEY, query["expires"], query["signature"])

    upload_id = storage.create_multipart(KEY, content_type="text/plain")
    part = urlsplit(storage.presigned_part_url(KEY, upload_id, 7, expires_in=60))
    query = {k: v[0] for k, v in parse_qs(part.query).items()}
    assert (query["uploadId"], query["partNumber"]) == (upload_id, "7")
    tokens.verify(Purpose.PART, KEY, query["expires"], query["signature"], upload_id=upload_id, part_number=7)

    post = storage.presigned_post(KEY, content_type="text/plain", max_bytes=10, expires_in=60)
    assert post.url == f"{settings.public_url}/api/uploads/local"
    tokens.verify(Purpose.POST, post.fields["key"], post.fields["expires"], post.fields["signature"])


@pytest.mark.parametrize("key", ["", "/etc/passwd", "../x", "uploads/../../x", "uploads//x", "./x", ".multipart/x",
                                 "uploads/.tmp", "a\\b", "a\x00b"])
def test_unsafe_keys_are_refused(key):
    with pytest.raises(ValueError, match="unsafe storage key"):
        safe_key(key)
