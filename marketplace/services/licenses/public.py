"""What the public license API does: activate a key on a machine, validate it, deactivate a machine.

Called by a vendor's agent with nothing but the key: no session, no cookie. A key that does not exist, or a
value that cannot be a key, gets the same answer (`found=False`, 'License key not found'), so an answer never
tells one wrong key from another. Every call counts against two rate limits, per client address and per key.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache, partial
from typing import Any, cast

from sqlalchemy import DateTime, Row, Select, String, and_, bindparam, delete, func, or_, select, true
from sqlalchemy.engine import Connection, CursorResult
from sqlmodel import Session

from marketplace import db
from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import Agent, LicenseActivation, LicenseKey, LicenseStatus, Purchase
from marketplace.models.base import utcnow
from marketplace.models.licenses import INSTANCE_NAME_MAX
from marketplace.services import decisions, ratelimit, webhooks
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


def _limits(address: str | None, key: str) -> list[tuple[str, int]]:
    """Per address and per key (by a hash: the key itself is never stored again), in one short window: an agent
    checks its key at start-up, not in a loop."""
    limits = [(f"license-key:{keys.key_hash(key)[:32]}", settings.rate_limit_license_per_key)]
    if address:
        limits.append((f"license:{address}", settings.rate_limit_license_per_address))
    return limits


def _limit(*, address: str | None, key: str) -> None:
    """Count this request (its own transaction, before a call that writes); 429 when a limit is reached."""
    with session_scope() as session:
        ratelimit.hit_counters(session, limits=_limits(address, key),
                               window_seconds=settings.rate_limit_license_window_seconds, message=TOO_MANY)


# The one read of a key, by every call: its row by hash, its status by the one rule (at the bound `now`) and, when
# the bound `instance_id` names one of its activations, that activation. Built once: the statement is compiled
# once (SQLAlchemy caches it by identity), for the most frequent call.
KEY_READ: Select[*tuple[Any, ...]] = (
    select(LicenseKey.id, LicenseKey.key, status_of(bindparam("now", type_=DateTime)).label("status"),
           Agent.activation_limit, LicenseKey.activation_usage, Purchase.access_until, LicenseKey.agent_id,
           LicenseActivation.id.label("instance_id"), LicenseActivation.name.label("instance_name"),
           LicenseActivation.created_at.label("instance_created_at"))
    .join(Purchase, Purchase.id == LicenseKey.purchase_id).join(Agent, Agent.id == LicenseKey.agent_id)
    .outerjoin(LicenseActivation, and_(LicenseActivation.id == bindparam("instance_id", type_=String),
                                       LicenseActivation.license_key_id == LicenseKey.id))
    .where(LicenseKey.key_hash == bindparam("key_hash", type_=String))
)
NO_KEY_HASH = ""  # what a value that cannot be a key is looked up by: no row has it


def _key_params(key: str | None, instance_id: str | None) -> dict[str, object]:
    return {"now": utcnow(), "key_hash": keys.key_hash(key) if key is not None else NO_KEY_HASH,
            "instance_id": instance_id}


def _read(row: Row[*tuple[Any, ...]] | None, key: str | None) -> tuple[KeyState | None, Instance | None]:
    """The key of a `KEY_READ` row (confirmed in constant time: see `keys`) and the activation it found."""
    if row is None or row.id is None or key is None or not keys.same(row.key, key):
        return None, None
    state = KeyState(id=row.id, status=row.status, activation_limit=row.activation_limit,
                     activation_usage=row.activation_usage, expires_at=row.access_until, agent_id=row.agent_id)
    instance = (Instance(id=row.instance_id, name=row.instance_name, created_at=row.instance_created_at)
                if row.instance_id is not None else None)
    return state, instance


def read_key(session: Session, given: str) -> KeyState | None:
    """The key `given` names, with its status by the one rule, or None."""
    key = keys.normalize(given)
    if key is None:
        return None
    return _read(session.execute(KEY_READ, _key_params(key, None)).first(), key)[0]


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
        now_state = read_key(session, license_key) or state
        _announce(session, type=webhooks.events.LICENSE_ACTIVATED, key=now_state, instance_id=row.id,
                  instance_name=row.name)
        return Answer(found=True, ok=True, key=now_state,
                      instance=Instance(id=row.id, name=row.name, created_at=row.created_at))


@lru_cache(maxsize=8)
def _validate_statement(dialect: str, slots: int) -> Select[*tuple[Any, ...]]:
    """PostgreSQL: validate in one statement (one round trip, its own transaction): the rate limits counted all or
    none (`ratelimit.counted_rows`, data-modifying CTEs) and the key read (`KEY_READ`), in one row whatever was
    found."""
    tally = select(func.count().label("counted")).select_from(ratelimit.counted_rows(slots)).subquery("tally")
    key = KEY_READ.subquery("key")
    return select(tally.c.counted, *key.c).select_from(tally.outerjoin(key, true()))


def _count_and_read(connection: Connection, counters: ratelimit.Window,
                    params: dict[str, object]) -> Row[*tuple[Any, ...]] | None:
    dialect, slots = connection.dialect.name, len(counters.limits)
    if dialect == "postgresql":  # its own statement in autocommit: a deadlock undid it, and it runs again
        row = ratelimit.retry_deadlocks(lambda: connection.execute(
            _validate_statement(dialect, slots), {**counters.params(), **params}).one())
        counters.refuse_unless(row.counted, TOO_MANY)
        return row
    # SQLite has no data-modifying CTE: the counting statement (it commits by itself), then the read.
    result = connection.execute(ratelimit.counting_statement(dialect, slots), counters.params())
    counters.refuse_unless(ratelimit.counted(dialect, result), TOO_MANY)
    return connection.execute(KEY_READ, params).first()


def validate(*, license_key: str, instance_id: str | None, address: str | None) -> Answer:
    """Valid: the key is active (and, when `instance_id` is given, that instance is one of its activations). The
    most frequent call, so its hot path is short: statements built once, no ORM session, and on PostgreSQL one
    statement that counts the rate limits (only when every limit passes) and reads the key."""
    key = keys.normalize(license_key)
    counters = ratelimit.window(limits=_limits(address, license_key),
                                window_seconds=settings.rate_limit_license_window_seconds)
    row = db.single_statements(partial(_count_and_read, counters=counters, params=_key_params(key, instance_id)))
    state, instance = _read(row, key)
    if state is None:
        return NOT_FOUND
    if instance_id is not None and instance is None:
        return Answer(found=False, ok=False, error=INSTANCE_NOT_FOUND, key=state)
    if state.status != LicenseStatus.ACTIVE:
        return Answer(found=True, ok=False, error=NOT_ACTIVE[LicenseStatus(state.status)], key=state,
                      instance=instance)
    return Answer(found=True, ok=True, key=state, instance=instance)


def _announce(session: Session, *, type: str, key: KeyState, instance_id: str, instance_name: str) -> None:
    """The agent's vendor's webhooks, in the activation's (or deactivation's) transaction."""
    vendor_id = session.execute(select(Agent.vendor_id).where(Agent.id == key.agent_id)).scalar()
    webhooks.enqueue(session, vendor_id=vendor_id, type=type, obj=webhooks.activation_object(
        instance_id=instance_id, instance_name=instance_name, license_key_id=key.id, agent_id=key.agent_id,
        activation_usage=key.activation_usage))


def release(session: Session, *, key_id: str, instance_id: str) -> bool:
    """Delete one activation of this key and give its place back: False when it was not (or no longer) there,
    so two deactivations of one instance free one place."""
    instance_name = session.execute(select(LicenseActivation.name).where(
        LicenseActivation.id == instance_id, LicenseActivation.license_key_id == key_id)).scalar()
    gone = cast(CursorResult[Any], session.execute(delete(LicenseActivation).where(LicenseActivation.id == instance_id,
                                                           LicenseActivation.license_key_id == key_id))).rowcount
    if gone != 1:
        return False
    decisions.claim_any(session, LicenseKey, LicenseKey.id == key_id, LicenseKey.activation_usage > 0,
                        values={"activation_usage": LicenseKey.activation_usage - 1})
    key = session.execute(select(LicenseKey.id, LicenseKey.agent_id, LicenseKey.activation_usage)
                          .where(LicenseKey.id == key_id)).one()
    _announce(session, type=webhooks.events.LICENSE_DEACTIVATED,
              key=KeyState(id=key.id, status="", activation_limit=None, activation_usage=key.activation_usage,
                           expires_at=None, agent_id=key.agent_id),
              instance_id=instance_id, instance_name=instance_name or "")
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
