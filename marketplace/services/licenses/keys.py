"""The key itself: its format, how it is stored and looked up, how it is shown masked.

A key is `XXXXX-XXXXX-XXXXX-XXXXX`: 100 random bits written in Crockford's base32 (no I, L, O or U). A public
API call looks the key up by its SHA-256 (`license_keys.key_hash`, unique), never by the key: the database's
index comparison then leaks at most the timing of a hash prefix, which says nothing about any key, and the row
found is confirmed with `hmac.compare_digest` (constant time) against the key given."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
GROUPS, GROUP_LENGTH = 4, 5
BITS = GROUPS * GROUP_LENGTH * 5  # 100
KEY_RE = re.compile(rf"^[{CROCKFORD}]{{{GROUP_LENGTH}}}(-[{CROCKFORD}]{{{GROUP_LENGTH}}}){{{GROUPS - 1}}}$")
VISIBLE = 5  # a masked key shows its last five characters


def new_key() -> str:
    bits = secrets.randbits(BITS)
    chars = "".join(CROCKFORD[(bits >> (5 * i)) & 31] for i in range(GROUPS * GROUP_LENGTH))
    return "-".join(chars[i:i + GROUP_LENGTH] for i in range(0, len(chars), GROUP_LENGTH))


def normalize(text: str) -> str | None:
    """The key a caller typed (spaces around, lower case allowed), or None when it cannot be a key."""
    key = text.strip().upper()
    return key if KEY_RE.match(key) else None


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def same(stored: str, given: str) -> bool:
    return hmac.compare_digest(stored.encode(), given.encode())


def mask(key: str) -> str:
    """All but the last five characters hidden, dashes kept: `XXXXX-XXXXX-XXXXX-7KQ2M`."""
    return "".join("-" if c == "-" else "X" for c in key[:-VISIBLE]) + key[-VISIBLE:]
