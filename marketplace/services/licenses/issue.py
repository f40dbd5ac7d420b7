"""A key for every purchase, given in the transaction that records the purchase."""

from __future__ import annotations

from sqlmodel import Session, select

from marketplace.models import LicenseKey, Purchase
from marketplace.services.licenses import keys


def ensure_key(session: Session, *, purchase: Purchase) -> LicenseKey:
    """The purchase's key, made the first time (idempotent: a purchase keeps its key when a later payment takes
    it over, and a repeated webhook or browser call finds the one key). Two requests recording the same purchase
    at once do not both get here: the purchase row's unique constraint has already decided between them. Two
    100-bit keys never clash in practice; if they did, the unique `key_hash` refuses the write and the caller's
    transaction fails as on any lost race."""
    existing = session.exec(select(LicenseKey).where(LicenseKey.purchase_id == purchase.id)).first()
    if existing is not None:
        return existing
    key = keys.new_key()
    row = LicenseKey(purchase_id=purchase.id, agent_id=purchase.agent_id, user_id=purchase.user_id, key=key,
                     key_hash=keys.key_hash(key))
    session.add(row)
    session.flush()
    return row
