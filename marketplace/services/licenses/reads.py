"""Keys as people see them: the buyer's own (whole), a vendor's agent's and the admin's (masked but for the last
five characters), each with its status by the one rule and its activations."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, LicenseActivation, LicenseKey, Purchase, Role, User
from marketplace.services import table_search as text_search
from marketplace.services.errors import Forbidden, NotFound
from marketplace.services.licenses import keys
from marketplace.services.licenses.status import status_of
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin, require_user, require_vendor

MAX_OFFSET = 100_000
AGENT_NOT_FOUND = "Agent not found"
NOT_YOUR_AGENT = "You can only manage the license keys of your own agents"


@dataclass(frozen=True)
class ActivationView:
    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True)
class KeyView:
    id: str
    key: str  # whole for its buyer; masked (`keys.mask`) for a vendor or an admin
    status: str  # LicenseStatus
    agent_id: str
    agent_name: str
    purchase_id: str
    buyer_username: str
    buyer_email: str  # empty for a vendor (the buyer's address is not the vendor's to see)
    activation_limit: int | None  # None: unlimited
    activation_usage: int
    expires_at: datetime | None
    disabled: bool  # by the vendor or an admin (Enable undoes it)
    disabled_reason: str  # what they said (the buyer reads it); empty while not disabled
    created_at: datetime
    activations: tuple[ActivationView, ...]


def _columns() -> tuple[Any, ...]:
    return (LicenseKey, status_of(), Agent.name, Agent.activation_limit, Purchase.access_until, User.username,
            User.email)


def _query(*conditions: Any) -> Any:
    return (select(*_columns()).join(Purchase, Purchase.id == LicenseKey.purchase_id)
            .join(Agent, Agent.id == LicenseKey.agent_id).join(User, User.id == LicenseKey.user_id)
            .where(*conditions))


def _views(session: Session, rows: Sequence[Any], *, masked: bool, with_email: bool) -> list[KeyView]:
    ids = [row[0].id for row in rows]
    activations: dict[str, list[ActivationView]] = defaultdict(list)
    if ids:
        for a in session.exec(select(LicenseActivation).where(LicenseActivation.license_key_id.in_(ids))
                              .order_by(LicenseActivation.created_at, LicenseActivation.id)).all():
            activations[a.license_key_id].append(ActivationView(id=a.id, name=a.name, created_at=a.created_at))
    return [KeyView(id=k.id, key=keys.mask(k.key) if masked else k.key, status=status, agent_id=k.agent_id,
                    agent_name=agent_name, purchase_id=k.purchase_id, buyer_username=username,
                    buyer_email=email if with_email else "", activation_limit=limit,
                    activation_usage=k.activation_usage, expires_at=until, disabled=k.disabled_at is not None,
                    disabled_reason=k.disabled_reason or "", created_at=k.created_at,
                    activations=tuple(activations[k.id]))
            for k, status, agent_name, limit, until, username, email in rows]


def buyer_keys(*, actor: User | None) -> list[KeyView]:
    """The signed-in buyer's keys (whole), newest purchase first."""
    buyer = require_user(actor)
    with session_scope() as session:
        rows = session.exec(_query(LicenseKey.user_id == buyer.id)
                            .order_by(Purchase.purchased_at.desc(), LicenseKey.id)).all()
        return _views(session, rows, masked=False, with_email=True)


def keys_by_purchase(session: Session, *, purchase_ids: Sequence[str]) -> dict[str, str]:
    """Each purchase's key (whole): for lists of a buyer's own purchases."""
    if not purchase_ids:
        return {}
    return dict(session.exec(select(LicenseKey.purchase_id, LicenseKey.key)
                             .where(LicenseKey.purchase_id.in_(purchase_ids))).all())


def disabled_reasons_by_purchase(session: Session, *, purchase_ids: Sequence[str]) -> dict[str, str]:
    """Why each disabled key of these purchases was disabled: what the buyer reads in My Agents."""
    if not purchase_ids:
        return {}
    return {purchase_id: reason or "" for purchase_id, reason in session.exec(
        select(LicenseKey.purchase_id, LicenseKey.disabled_reason)
        .where(LicenseKey.purchase_id.in_(purchase_ids), LicenseKey.disabled_at.is_not(None))).all()}


def _search(search: str | None, *columns: Any) -> Any | None:
    """What a key list's `search` matches: a whole key (as a customer quotes it) by its hash, never by its
    text; anything else in `columns` and the key's visible last five characters."""
    like = text_search.pattern(search)  # refuses what no search may hold, whole key or not
    if like is None:
        return None
    whole = keys.normalize(search or "")
    if whole is not None:
        return LicenseKey.key_hash == keys.key_hash(whole)
    return text_search.matches(like, *columns, func.substr(LicenseKey.key, 19, 5))


def key_of(session: Session, *, user_id: str, agent_id: str) -> str | None:
    """The buyer's key for an agent (whole), if they bought it: for their download."""
    return session.exec(select(LicenseKey.key).where(LicenseKey.user_id == user_id,
                                                     LicenseKey.agent_id == agent_id)).first()


def _page(session: Session, conditions: list[Any], *, limit: int, offset: int, masked: bool, with_email: bool
          ) -> tuple[list[KeyView], int]:
    total = session.exec(select(func.count()).select_from(LicenseKey)
                         .join(Agent, Agent.id == LicenseKey.agent_id).join(User, User.id == LicenseKey.user_id)
                         .where(*conditions)).one()
    rows = session.exec(_query(*conditions).order_by(LicenseKey.created_at.desc(), LicenseKey.id.desc())
                        .limit(limit).offset(offset)).all()
    return _views(session, rows, masked=masked, with_email=with_email), int(total)


def vendor_keys(*, actor: User | None, agent_id: str, limit: int = 20, offset: int = 0,
                search: str | None = None) -> tuple[list[KeyView], int]:
    """One of the vendor's own agents' keys, masked, newest first, with the number on all pages; `search`
    matches the buyer's username, the key's visible end or the whole key. An admin may read any agent's."""
    user = require_vendor(actor)
    check_page(limit=limit, offset=offset, max_offset=MAX_OFFSET)
    found = _search(search, User.username)
    with session_scope() as session:
        agent = session.get(Agent, agent_id) if agent_id else None
        if agent is None or agent.deleted_at is not None:
            raise NotFound(AGENT_NOT_FOUND)
        if agent.vendor_id != user.id and user.role != Role.ADMIN:
            raise Forbidden(NOT_YOUR_AGENT)
        conditions: list[Any] = [LicenseKey.agent_id == agent.id]
        if found is not None:
            conditions.append(found)
        return _page(session, conditions, limit=limit, offset=offset, masked=True, with_email=False)


def admin_keys(*, actor: User | None, limit: int = 20, offset: int = 0, search: str | None = None
               ) -> tuple[list[KeyView], int]:
    """Every key, masked, newest first, with the number on all pages; `search` matches the buyer's username or
    e-mail, the agent's name, the key's visible end, or the whole key a customer quotes (found by its hash; the
    answer still shows it masked) (admin only)."""
    require_admin(actor)
    check_page(limit=limit, offset=offset, max_offset=MAX_OFFSET)
    found = _search(search, User.username, User.email, Agent.name)
    conditions: list[Any] = [] if found is None else [found]
    with session_scope() as session:
        return _page(session, conditions, limit=limit, offset=offset, masked=True, with_email=True)


def key_view(session: Session, *, key_id: str, masked: bool) -> KeyView | None:
    rows = session.exec(_query(LicenseKey.id == key_id)).all()
    views = _views(session, rows, masked=masked, with_email=not masked)
    return views[0] if views else None
