"""Signing a delivery as Stripe signs its webhooks: `X-AgentMarket-Signature: t=<unix time>,v1=<hex HMAC-SHA256
of f"{t}.{body}" with the endpoint's secret>`. The time is signed too, so a receiver can refuse old replays."""

from __future__ import annotations

import hashlib
import hmac
import secrets

HEADER = "X-AgentMarket-Signature"
SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_hex(24)


def signature(*, secret: str, timestamp: int, body: bytes) -> str:
    """The header's value for `body` sent at `timestamp`."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(*, secret: str, header: str, body: bytes, now: int, tolerance: int = 300) -> bool:
    """What a receiver does (the README's receiver, and the tests): the v1 MAC matches and `t` is recent."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(parts.get("t", ""))
    except ValueError:
        return False
    expected = signature(secret=secret, timestamp=timestamp, body=body).split("v1=", 1)[1]
    return abs(now - timestamp) <= tolerance and hmac.compare_digest(expected, parts.get("v1", ""))
