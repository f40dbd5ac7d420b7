"""Making, listing and deactivating promotion codes. A vendor makes codes for its own agents only; an admin for
any agents or for all. Deciding a code's text among active codes is the partial unique index's job (two
requests making one code at once: one wins, the other answers 409)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from marketplace.db import session_scope
from marketplace.models import (
    Agent,
    PromotionCode,
    PromotionCodeAgent,
    PromotionDuration,
    PromotionRedemption,
    RedemptionStatus,
    Role,
    User,
)
from marketplace.models.base import utcnow
from marketplace.services import decisions
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound
from marketplace.services.permissions import require_admin, require_vendor

CODE_RE = re.compile(r"^[A-Za-z0-9_-]{4,32}$")
MAX_AMOUNT_OFF_CENTS = 1_000_000
MAX_REDEMPTIONS = 1_000_000
MAX_MONTHS = 36
MAX_AGENTS = 500

BAD_CODE = "A code is 4 to 32 letters, digits, '-' or '_'."
ONE_DISCOUNT = "Give either a percent off or an amount off."
BAD_PERCENT = "The percent off must be a whole number from 1 to 100."
BAD_AMOUNT = "The amount off must be from $0.01 to $10,000.00."
NO_AGENTS = "Choose the agents this code applies to."
ALL_AGENTS_ADMIN = "Only an admin can make a code for all agents."
NOT_YOUR_AGENT = "You can only make codes for your own agents."
PAST_EXPIRY = "The expiry must be in the future."
BAD_MAX = "The maximum redemptions must be from 1 to 1,000,000."
BAD_DURATION = "The months must be 'once', 'repeating' or 'forever'."
BAD_MONTHS = "A repeating code applies for 1 to 36 months."
MONTHS_ONLY_REPEATING = "Only a repeating code has a number of months."
TAKEN = "An active code with this text already exists."
ALREADY_INACTIVE = "This code is already deactivated."
CODE_NOT_FOUND = "Promotion code not found"
ACTIVE = col(PromotionCode.active).is_(True)  # a condition: the code is active


def normalise(code: str) -> str:
    """The stored form: trimmed, upper-case (codes are case-insensitive)."""
    return code.strip().upper()


def aware(moment: datetime) -> datetime:
    """A stored time as UTC (SQLite gives naive datetimes back)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class CodeView:
    code: PromotionCode
    agent_ids: list[str]
    redemptions: int = 0  # held and redeemed (counted from the rows: only a limited code keeps a counter)


def _redemption_counts(session: Session, code_ids: list[str]) -> dict[str, int]:
    """Holds and redemptions not released, per code. A code without a limit writes no counter at checkout
    (one write fewer on its row: benchmarks/README.md "Promotion codes"), so lists count its rows."""
    if not code_ids:
        return {}
    rows = session.exec(
        select(PromotionRedemption.code_id, func.count())
        .where(col(PromotionRedemption.code_id).in_(code_ids), PromotionRedemption.status != RedemptionStatus.RELEASED)
        .group_by(col(PromotionRedemption.code_id))
    ).all()
    return {code_id: count for code_id, count in rows}


def create_code(
    *,
    actor: User | None,
    code: str,
    admin: bool = False,
    percent_off: int | None = None,
    amount_off_cents: int | None = None,
    agent_ids: list[str] | None = None,
    all_agents: bool = False,
    expires_at: datetime | None = None,
    max_redemptions: int | None = None,
    first_purchase_only: bool = False,
    duration: str = PromotionDuration.ONCE,
    duration_months: int | None = None,
) -> CodeView:
    """A vendor's code for its own agents, or an admin's for any or all agents (`all_agents`); `admin`: the
    admin area's route, for admins only."""
    user = require_admin(actor) if admin else require_vendor(actor)
    is_admin = user.role == Role.ADMIN
    text = normalise(code) if isinstance(code, str) else ""
    if not CODE_RE.match(text):
        raise Invalid(BAD_CODE, field="code")
    if (percent_off is None) == (amount_off_cents is None):
        raise Invalid(ONE_DISCOUNT, field="percentOff")
    if percent_off is not None and not 1 <= percent_off <= 100:
        raise Invalid(BAD_PERCENT, field="percentOff")
    if amount_off_cents is not None and not 1 <= amount_off_cents <= MAX_AMOUNT_OFF_CENTS:
        raise Invalid(BAD_AMOUNT, field="amountOffCents")
    if expires_at is not None and aware(expires_at) <= utcnow():
        raise Invalid(PAST_EXPIRY, field="expiresAt")
    if max_redemptions is not None and not 1 <= max_redemptions <= MAX_REDEMPTIONS:
        raise Invalid(BAD_MAX, field="maxRedemptions")
    if duration not in tuple(PromotionDuration):
        raise Invalid(BAD_DURATION, field="duration")
    if duration == PromotionDuration.REPEATING:
        if duration_months is None or not 1 <= duration_months <= MAX_MONTHS:
            raise Invalid(BAD_MONTHS, field="durationMonths")
    elif duration_months is not None:
        raise Invalid(MONTHS_ONLY_REPEATING, field="durationMonths")
    wanted = list(dict.fromkeys(agent_ids or []))
    if all_agents:
        if not is_admin:
            raise Forbidden(ALL_AGENTS_ADMIN)
        wanted = []
    elif not wanted:
        raise Invalid(NO_AGENTS, field="agentIds")
    if len(wanted) > MAX_AGENTS:
        raise Invalid(NO_AGENTS, field="agentIds")
    try:
        with session_scope() as session:
            if wanted:
                found = session.exec(
                    select(Agent.id, Agent.vendor_id).where(col(Agent.id).in_(wanted), col(Agent.deleted_at).is_(None))
                ).all()
                owners = dict(found)
                if len(owners) != len(wanted):
                    raise NotFound("Agent not found")
                if not is_admin and any(owner != user.id for owner in owners.values()):
                    raise Forbidden(NOT_YOUR_AGENT)
            row = PromotionCode(
                code=text,
                percent_off=percent_off,
                amount_off_cents=amount_off_cents,
                all_agents=all_agents,
                vendor_id=None if is_admin else user.id,
                created_by_id=user.id,
                expires_at=expires_at,
                max_redemptions=max_redemptions,
                first_purchase_only=first_purchase_only,
                duration=duration,
                duration_months=duration_months,
            )
            session.add(row)
            session.flush()
            session.add_all(PromotionCodeAgent(code_id=row.id, agent_id=agent_id) for agent_id in wanted)
            session.flush()
    except IntegrityError:
        raise Conflict(TAKEN, field="code") from None
    return CodeView(code=row, agent_ids=wanted)


def list_codes(*, actor: User | None, admin: bool = False, limit: int = 100, offset: int = 0) -> list[CodeView]:
    """A vendor's own codes (`admin=False`), or every code for an admin; newest first."""
    user = require_admin(actor) if admin else require_vendor(actor)
    limit, offset = max(1, min(limit, 500)), max(0, offset)
    with session_scope() as session:
        query = select(PromotionCode)
        if not admin:
            query = query.where(PromotionCode.vendor_id == user.id)
        rows = list(
            session.exec(
                query.order_by(col(PromotionCode.created_at).desc(), col(PromotionCode.id)).offset(offset).limit(limit)
            ).all()
        )
        links = (
            session.exec(
                select(PromotionCodeAgent).where(col(PromotionCodeAgent.code_id).in_([r.id for r in rows]))
            ).all()
            if rows
            else []
        )
        counts = _redemption_counts(session, [r.id for r in rows])
    agents: dict[str, list[str]] = {}
    for link in links:
        agents.setdefault(link.code_id, []).append(link.agent_id)
    return [CodeView(code=r, agent_ids=sorted(agents.get(r.id, [])), redemptions=counts.get(r.id, 0)) for r in rows]


def deactivate_code(*, actor: User | None, code_id: str, admin: bool = False) -> CodeView:
    """Stop a code (its redemptions stay). A vendor deactivates its own codes; an admin any code. One
    conditional write: a second deactivation answers 409."""
    user = require_admin(actor) if admin else require_vendor(actor)
    with session_scope() as session:
        row = session.get(PromotionCode, code_id) if isinstance(code_id, str) and code_id else None
        if row is None or (not admin and row.vendor_id != user.id):
            raise NotFound(CODE_NOT_FOUND)
        decisions.claim(
            session,
            PromotionCode,
            col(PromotionCode.id) == row.id,
            ACTIVE,
            values={"active": False, "deactivated_at": utcnow()},
            conflict=ALREADY_INACTIVE,
        )
        session.refresh(row)
        links = session.exec(select(PromotionCodeAgent.agent_id).where(PromotionCodeAgent.code_id == row.id)).all()
        counted = _redemption_counts(session, [row.id]).get(row.id, 0)
    return CodeView(code=row, agent_ids=sorted(links), redemptions=counted)
