"""Signed, expiring upload targets of the local backend: the local stand-in for S3's presigned URLs.

A token is HMAC-SHA256 over (purpose, key, expiry, upload id, part number) with a key derived from
SECRET_KEY for this use only, so it can neither be replayed for another object, part or kind of request,
nor be confused with any other signature the app makes.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from enum import StrEnum

from marketplace.config import settings

_DOMAIN = b"marketplace.local-upload.v1"


class Purpose(StrEnum):
    PUT = "put"  # one PUT of a whole object
    POST = "post"  # one form POST of a whole object
    PART = "part"  # one PUT of one multipart part


class TokenError(Exception):
    pass


class TokenExpired(TokenError):
    pass


def _mac_key() -> bytes:
    return hmac.new(settings.secret_key.encode(), _DOMAIN, hashlib.sha256).digest()


def _message(purpose: str, key: str, expires: int, upload_id: str, part_number: int | None) -> bytes:
    return "\n".join((purpose, key, str(expires), upload_id, "" if part_number is None else str(part_number))).encode()


def sign(purpose: Purpose, key: str, expires: int, *, upload_id: str = "", part_number: int | None = None) -> str:
    return hmac.new(_mac_key(), _message(purpose, key, expires, upload_id, part_number), hashlib.sha256).hexdigest()


def issue(purpose: Purpose, key: str, *, ttl: int, upload_id: str = "",
          part_number: int | None = None) -> tuple[int, str]:
    """(expires as unix seconds, signature) valid for `ttl` seconds."""
    expires = int(time.time()) + ttl
    return expires, sign(purpose, key, expires, upload_id=upload_id, part_number=part_number)


def verify(purpose: Purpose, key: str, expires: str | int | None, signature: str | None, *, upload_id: str = "",
           part_number: int | None = None, now: float | None = None) -> None:
    """Raise TokenError unless `signature` is ours for exactly these values; TokenExpired once past `expires`."""
    try:
        expiry = int(str(expires))
    except ValueError:
        raise TokenError("Invalid upload signature") from None
    expected = sign(purpose, key, expiry, upload_id=upload_id, part_number=part_number)
    if not signature or not hmac.compare_digest(expected.encode(), signature.strip().lower().encode()):
        raise TokenError("Invalid upload signature")
    if expiry <= (time.time() if now is None else now):
        raise TokenExpired("Request has expired")
