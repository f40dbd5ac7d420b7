"""What the public license API does: activate a key on a machine, validate it, deactivate a machine.

Called by a vendor's agent with nothing but the key: no session, no cookie. A key that does not exist, or a
value that cannot be a key, gets the same answer (`found=False`, 'License key not found'), so an answer never
tells one wrong key from another. Every call counts against two rate limits, per client address and per key.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, or_, select
from sqlmodel import Session

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import Agent, LicenseActivation, LicenseKey, LicenseStatus, Purchase
from marketplace.models.licenses import INSTANCE_NAME_MAX
from marketplace.services import decisions, ratelimit
from marketplace.services.errors import InvalidParameter
from marketplace.services.licenses import keys
from marketplace.services.licenses.reads import ActivationView
from marketplace.services.licenses.status import status_of
from marketplace.services.text import check_text

KEY_NOT_FOUND = "License key not found"
INSTANCE_NOT_FOUND = "Instance not found"
LIMIT_REACHED = "This license key has reached its activation limit"
NAME_REQUIRED = "instanceName is required"
NOT_ACTIVE = {
    LicenseStatus.EXPIRED: "This license key has expired",
    LicenseStatus.DISABLED: "This license key has been disabled",
    LicenseStatus.REFUNDED: "This license key was refunded",
}
TOO_MANY = "Too many license requests. Please try again in a minute."


@dataclass(frozen=True)
class KeyState:
    """A key as the API shows it (`licenseKey` in every answer)."""

    id: str
    status: str
    activation_limit: int | None
    activation_usage: int
    expires_at: datetime | None
    agent_id: str


# An activation as the public API names it: the one shape the buyer's list also reads.
Instance = ActivationView


@dataclass(frozen=True)
class Answer:
    """`found`: the key (and the instance asked about) exist; `ok`: activated / valid / deactivated."""

    found: bool
    ok: bool
    error: str | None = None
    key: KeyState | None = None
    instance: Instance | None = None


NOT_FOUND = Answer(found=False, ok=False, error=KEY_NOT_FOUND)


def _limit(session: Session | None = None, *, address: str | None, key: str) -> None:
    """Per address and per key (by a hash: the key itself is never stored again), in one short window: an agent
    checks its key at start-up, not in a loop. In `session` (last, before its commit), or in its own transaction
    before a call that writes."""
    limits = [(f"license-key:{keys.key_hash(key)[:32]}", settings.rate_limit_license_per_key)]
    if address:
        limits.append((f"license:{address}", settings.rate_limit_license_per_address))
    if session is None:
        with session_scope() as own:
            _limit(own, address=address, key=key)
        return
    ratelimit.hit_counters(session, limits=limits, window_seconds=settings.rate_limit_license_window_seconds,
                           message=TOO_MANY)


def read_key(session: Session, given: str) -> KeyState | None:
    """The key `given` names, with its status by the one rule, or None (looked up by hash, then compared in
    constant time: see `keys`)."""
    key = keys.normalize(given)
    if key is None:
        return None
    row = session.execute(
        select(LicenseKey.id, LicenseKey.key, status_of(), Agent.activation_limit, LicenseKey.activation_usage,
               Purchase.access_until, LicenseKey.agent_id)
        .join(Purchase, Purchase.id == LicenseKey.purchase_id).join(Agent, Agent.id == LicenseKey.agent_id)
        .where(LicenseKey.key_hash == keys.key_hash(key))).first()
    if row is None or not keys.same(row[1], key):
        return None
    key_id, _key, status, limit, usage, until, agent_id = row
    return KeyState(id=key_id, status=status, activation_limit=limit, activation_usage=usage, expires_at=until,
                    agent_id=agent_id)


def _instance(session: Session, key_id: str, instance_id: str) -> Instance | None:
    row = session.get(LicenseActivation, instance_id) if instance_id else None
    if row is None or row.license_key_id != key_id:
        return None
    return Instance(id=row.id, name=row.name, created_at=row.created_at)


def _clean_name(name: str) -> str:
    """One line of text (spaces collapsed): what the buyer sees in My Agents."""
    cleaned = " ".join(check_text(name, field="instanceName").split())
    if not cleaned:
        raise InvalidParameter(NAME_REQUIRED, field="instanceName")
    if len(cleaned) > INSTANCE_NAME_MAX:
        raise InvalidParameter(f"instanceName must be at most {INSTANCE_NAME_MAX} characters", field="instanceName")
    return cleaned


def activate(*, license_key: str, instance_name: str, address: str | None) -> Answer:
    """A new instance, if the key is active and under its agent's limit. The place is taken by one conditional
    UPDATE of the key's counter (`activation_usage < the agent's limit`), so concurrent activations never pass
    the limit; the instance row is written in the same transaction."""
    name = _clean_name(instance_name)
    _limit(address=address, key=license_key)
    with session_scope() as session:
        state = read_key(session, license_key)
        if state is None:
            return NOT_FOUND
        if state.status != LicenseStatus.ACTIVE:
            return Answer(found=True, ok=False, error=NOT_ACTIVE[LicenseStatus(state.status)], key=state)
        agent_limit = select(Agent.activation_limit).where(Agent.id == LicenseKey.agent_id).scalar_subquery()
        won = decisions.claim_any(session, LicenseKey, LicenseKey.id == state.id, LicenseKey.disabled_at.is_(None),
                                  or_(agent_limit.is_(None), LicenseKey.activation_usage < agent_limit),
                                  values={"activation_usage": LicenseKey.activation_usage + 1})
        if not won:
            return Answer(found=True, ok=False, error=LIMIT_REACHED, key=read_key(session, license_key) or state)
        row = LicenseActivation(license_key_id=state.id, name=name)
        session.add(row)
        session.flush()
        return Answer(found=True, ok=True, key=read_key(session, license_key) or state,
                      instance=Instance(id=row.id, name=row.name, created_at=row.created_at))


def validate(*, license_key: str, instance_id: str | None, address: str | None) -> Answer:
    """Valid: the key is active (and, when `instance_id` is given, that instance is one of its activations). Read
    and counted in one transaction (the most frequent call: one connection, one commit)."""
    with session_scope() as session:
        state = read_key(session, license_key)
        instance = _instance(session, state.id, instance_id) if state is not None and instance_id else None
        _limit(session, address=address, key=license_key)
    if state is None:
        return NOT_FOUND
    if instance_id is not None and instance is None:
        return Answer(found=False, ok=False, error=INSTANCE_NOT_FOUND, key=state)
    if state.status != LicenseStatus.ACTIVE:
        return Answer(found=True, ok=False, error=NOT_ACTIVE[LicenseStatus(state.status)], key=state,
                      instance=instance)
    return Answer(found=True, ok=True, key=state, instance=instance)


def release(session: Session, *, key_id: str, instance_id: str) -> bool:
    """Delete one activation of this key and give its place back: False when it was not (or no longer) there,
    so two deactivations of one instance free one place."""
    gone = session.execute(delete(LicenseActivation).where(LicenseActivation.id == instance_id,
                                                           LicenseActivation.license_key_id == key_id)).rowcount
    if gone != 1:
        return False
    decisions.claim_any(session, LicenseKey, LicenseKey.id == key_id, LicenseKey.activation_usage > 0,
                        values={"activation_usage": LicenseKey.activation_usage - 1})
    return True


def deactivate(*, license_key: str, instance_id: str, address: str | None) -> Answer:
    """Free one instance's place, whatever the key's status (a buyer moving machines, or cleaning up)."""
    _limit(address=address, key=license_key)
    with session_scope() as session:
        state = read_key(session, license_key)
        if state is None:
            return NOT_FOUND
        if not release(session, key_id=state.id, instance_id=instance_id):
            return Answer(found=False, ok=False, error=INSTANCE_NOT_FOUND, key=state)
        return Answer(found=True, ok=True, key=read_key(session, license_key) or state)
