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
    return existing if existing is not None else issue_key(session, purchase=purchase)


def issue_key(session: Session, *, purchase: Purchase) -> LicenseKey:
    """A new key for a purchase row inserted in this same transaction, which cannot have one yet: no lookup
    (one database round trip less on every purchase). Any other purchase goes through `ensure_key`."""
    key = keys.new_key()
    row = LicenseKey(purchase_id=purchase.id, agent_id=purchase.agent_id, user_id=purchase.user_id, key=key,
                     key_hash=keys.key_hash(key))
    session.add(row)
    session.flush()
    return row
