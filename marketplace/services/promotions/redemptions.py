"""A code at checkout: is it valid for this buyer and agent (`apply_code`, the issue's five refusals), then one
redemption held per buyer for the checkout (`holding`), redeemed when the payment or free claim is recorded
(`redeem`) and released when the checkout is abandoned (`release_for_intent`: its PaymentIntent was cancelled;
`release_expired_holds`).

A hold is one statement, committed on its own (`db.single_statements`), so a checkout with a code queues on no
lock held across round trips (benchmarks/README.md "Promotion codes"). Once per customer is the partial unique
index over redemptions not released. A code without a limit needs nothing more: the hold is an `INSERT ...
SELECT` of the code while it is active, and its `redemptions` counter is never written (lists count the rows).
A limited code is counted first, then checked, in one write that cannot race: `UPDATE promotion_codes SET
redemptions = redemptions + 1 WHERE id = ? AND active AND redemptions < max_redemptions`, the row count
deciding; on PostgreSQL that UPDATE and the INSERT are one statement (`WITH taken AS (UPDATE ... RETURNING id)
INSERT ... SELECT ... FROM taken`), on SQLite one short transaction (SQLite has no UPDATE in a WITH). Either
way a loser of the count or of the index causes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import ColumnElement, Exists, bindparam, exists, insert, or_, update
from sqlalchemy import select as sql_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from marketplace import db
from marketplace.db import session_scope
from marketplace.models import (
    Agent,
    Order,
    PromotionCode,
    PromotionCodeAgent,
    PromotionRedemption,
    RedemptionStatus,
    User,
)
from marketplace.models.base import new_id, utcnow
from marketplace.services import decisions, money
from marketplace.services.errors import Invalid
from marketplace.services.promotions.codes import ACTIVE, CODE_RE, aware, normalise

EXPIRED = "This code has expired."
NOT_VALID = "This code is not valid for this agent."
USED_UP = "This code has been used up."
USED_BY_YOU = "You have already used this code."
FIRST_PURCHASE_ONLY = "This code is for first purchases only."

HOLD_LIFETIME = timedelta(hours=24)  # an abandoned checkout's hold is given back after this at the latest



@dataclass(frozen=True)
class Applied:
    """A code that applies to this buyer and agent, and what it takes off the USD price."""

    code_id: str
    code: str
    discount_usd_cents: int
    duration: str
    duration_months: int | None
    limited: bool = False  # the code has a maximum of redemptions: its hold is counted


def discount_usd_cents(*, price_usd_cents: int, percent_off: int | None, amount_off_cents: int | None) -> int:
    """What a code takes off a USD price: a percent half-up to the cent, or a fixed amount, never more than the
    price."""
    if percent_off is not None:
        off = money.platform_fee(price_usd_cents, money.Decimal(percent_off))
    else:
        off = amount_off_cents or 0
    return max(0, min(off, price_usd_cents))


def _refuse(message: str) -> Invalid:
    return Invalid(message, field="promotionCode")


def apply_code(session: Session, *, code: str, buyer: User, agent: Agent) -> Applied:
    """The code `code` for `buyer` buying `agent` now, or `Invalid` with the one sentence the buyer sees. Reads
    only, in one statement (the code and what the rules ask about this buyer and agent): the limit is decided by
    `hold`."""
    text = normalise(code) if isinstance(code, str) else ""
    found = (
        session.connection().execute(_APPLY, {"code": text, "agent": agent.id, "buyer": buyer.id}).first()
        if CODE_RE.match(text)
        else None
    )
    if found is None:
        raise _refuse(NOT_VALID)
    row = found
    listed, used, bought, held = found.listed, found.used, found.bought, found.held
    if row.expires_at is not None and aware(row.expires_at) <= utcnow():
        raise _refuse(EXPIRED)
    if not row.all_agents and (not listed or (row.vendor_id is not None and row.vendor_id != agent.vendor_id)):
        raise _refuse(NOT_VALID)
    if used:
        raise _refuse(USED_BY_YOU)
    if row.first_purchase_only and bought:
        raise _refuse(FIRST_PURCHASE_ONLY)
    full = row.max_redemptions is not None and row.redemptions >= row.max_redemptions
    if full and not held and not _stale_holds(session, row.id):
        raise _refuse(USED_UP)
    off = discount_usd_cents(
        price_usd_cents=agent.price_cents, percent_off=row.percent_off, amount_off_cents=row.amount_off_cents
    )
    return Applied(
        code_id=row.id,
        code=row.code,
        discount_usd_cents=off,
        duration=row.duration,
        duration_months=row.duration_months,
        limited=row.max_redemptions is not None,
    )


def _mine(status: str) -> Exists:
    return exists().where(
        PromotionRedemption.code_id == PromotionCode.id,
        PromotionRedemption.user_id == bindparam("buyer"),
        PromotionRedemption.status == status,
    )


# Built once (the statement is then found in SQLAlchemy's compiled cache): the active code with this text, and
# whether it lists the agent, the buyer redeemed it, the buyer paid for anything before, the buyer holds it.
_APPLY = sql_select(
    *(PromotionCode.__table__.c[name] for name in (
        "id", "code", "percent_off", "amount_off_cents", "all_agents", "vendor_id", "expires_at", "max_redemptions",
        "redemptions", "first_purchase_only", "duration", "duration_months")),
    exists().where(PromotionCodeAgent.code_id == PromotionCode.id,
                   PromotionCodeAgent.agent_id == bindparam("agent")).label("listed"),
    _mine(RedemptionStatus.REDEEMED).label("used"),
    exists().where(Order.user_id == bindparam("buyer"), col(Order.total_amount_cents) > 0).label("bought"),
    _mine(RedemptionStatus.HELD).label("held"),
).where(PromotionCode.code == bindparam("code"), ACTIVE)


def _stale_holds(session: Session, code_id: str) -> bool:
    """Holds of abandoned checkouts past their lifetime, which `hold` gives back before counting."""
    stale = select(PromotionRedemption.id).where(
        PromotionRedemption.code_id == code_id,
        PromotionRedemption.status == RedemptionStatus.HELD,
        col(PromotionRedemption.held_until) <= utcnow(),
    )
    return session.exec(stale).first() is not None


def _take(session: Session, code_id: str) -> bool:
    """Count first, then check, in one write: True if this request got one of the code's redemptions."""
    taken = session.exec(
        update(PromotionCode)
        .where(
            col(PromotionCode.id) == code_id,
            ACTIVE,
            col(PromotionCode.redemptions) < col(PromotionCode.max_redemptions),
        )
        .values(redemptions=PromotionCode.redemptions + 1)
    ).rowcount
    return taken == 1


def hold(
    *,
    applied: Applied,
    buyer_id: str,
    agent_id: str,
    discount_cents: int,
    currency: str,
    payment_intent_id: str | None = None,
) -> str:
    """Hold one redemption of the code for this buyer (their open hold is reused: a second click or a new
    PaymentIntent for the same checkout takes nothing more). Returns the redemption's id; raises the buyer's
    refusal when the code is used up or already used by them.

    The usual case is one statement that commits by itself (see the module's docstring); the once-per-customer
    index turns away a second hold, which is then told apart from a redemption."""
    now = utcnow()
    values = {
        "code_id": applied.code_id,
        "user_id": buyer_id,
        "agent_id": agent_id,
        "payment_intent_id": payment_intent_id,
        "discount_cents": discount_cents,
        "currency": currency,
        "held_until": now + HOLD_LIFETIME,
    }
    redemption_id = new_id()
    row = {"id": redemption_id, "status": RedemptionStatus.HELD, "created_at": now, **values}
    refusal = USED_BY_YOU
    try:
        if not applied.limited:
            taken = _insert_hold(_HOLD_UNLIMITED, row)
            refusal = NOT_VALID  # deactivated since it was read
        elif db.is_postgres():
            taken = _insert_hold(_HOLD_COUNTED, row) or _take_back_stale(applied.code_id, row, now)
            refusal = USED_UP
        else:
            taken = _hold_in_transaction(applied.code_id, row, now)
            refusal = USED_UP
        if taken:
            return redemption_id
    except IntegrityError:
        refusal = USED_BY_YOU  # the buyer holds or redeemed the code already (the statement changed nothing)
    return _reuse(values) or _raise(refusal)


@contextmanager
def holding(*, applied: Applied | None, **hold_args: Any) -> Iterator[str | None]:
    """The code's redemption held (`hold`) for the checkout opened inside, and given back if that opening
    fails. Held first: a refused code opens nothing at Stripe. (Holding on another thread while the intent
    opened was tried: the hand-off cost more CPU than the overlap saved once the host is saturated,
    benchmarks/README.md "Promotion codes".) `applied` None: no code, nothing held."""
    if applied is None:
        yield None
        return
    redemption_id = hold(applied=applied, **hold_args)
    try:
        yield redemption_id
    except BaseException:
        release(redemption_id=redemption_id)
        raise


_HOLD_COLUMNS = ("id", "status", "created_at", "code_id", "user_id", "agent_id", "payment_intent_id",
                 "discount_cents", "currency", "held_until")
# Named apart from every column: an execution parameter named like a column of an UPDATE joins its SET clause.
_HOLD_ROW = {
    name: bindparam(f"hold_{name}", type_=PromotionRedemption.__table__.c[name].type)
    for name in _HOLD_COLUMNS
}


def _hold_statements() -> tuple[Any, Any]:
    """The two single-statement holds, built once (then found in SQLAlchemy's compiled cache; the values are
    bound at execution): a code without a limit, inserted while it is active, its row not written; and
    (PostgreSQL) a limited code, counted first, then checked, and inserted."""
    row = sql_select(*_HOLD_ROW.values())
    columns = list(_HOLD_COLUMNS)
    code_id = _HOLD_ROW["code_id"]
    active = exists().where(col(PromotionCode.id) == code_id, ACTIVE)
    unlimited = insert(PromotionRedemption).from_select(columns, row.where(active))
    taken = (
        update(PromotionCode)
        .where(col(PromotionCode.id) == code_id, ACTIVE,
               col(PromotionCode.redemptions) < col(PromotionCode.max_redemptions))
        .values(redemptions=PromotionCode.redemptions + 1)
        .returning(PromotionCode.id)
        .cte("taken")
    )
    counted = insert(PromotionRedemption).from_select(columns, row.select_from(taken)).add_cte(taken)
    # RETURNING: an INSERT ... SELECT's row count is not reported by every driver (psycopg gives -1).
    return unlimited.returning(PromotionRedemption.id), counted.returning(PromotionRedemption.id)


_HOLD_UNLIMITED, _HOLD_COUNTED = _hold_statements()


def _insert_hold(statement: Any, row: dict[str, Any]) -> bool:
    """Run one single-statement hold on its own (it commits by itself); whether it wrote its row."""
    params = {f"hold_{name}": value for name, value in row.items()}
    return db.single_statements(lambda connection: connection.execute(statement, params).first() is not None)


def _hold_in_transaction(code_id: str, row: dict[str, Any], now: Any) -> bool:
    """SQLite, a limited code: count, then insert, in one short transaction; at the limit, holds of checkouts
    abandoned long ago give theirs back and the count is tried once more."""
    with session_scope() as session:
        taken = _take(session, code_id) or (_release_stale(session, code_id, now) and _take(session, code_id))
        if taken:
            session.exec(insert(PromotionRedemption).values(**row))
        return taken


def _release_stale(session: Session, code_id: str, now: Any) -> bool:
    stale = _release(session, col(PromotionRedemption.code_id) == code_id, col(PromotionRedemption.held_until) <= now)
    return bool(stale)


def _take_back_stale(code_id: str, row: dict[str, Any], now: Any) -> bool:
    """PostgreSQL, a limited code at its limit: give back holds of long-abandoned checkouts, then count again."""
    with session_scope() as session:
        if not _release_stale(session, code_id, now):
            return False
    return _insert_hold(_HOLD_COUNTED, row)


def _reuse(values: dict[str, Any]) -> str | None:
    """The buyer's open hold of the code, now for this checkout (no count taken), or None."""
    with session_scope() as session:
        mine = session.exec(
            select(PromotionRedemption.id).where(
                PromotionRedemption.code_id == values["code_id"],
                PromotionRedemption.user_id == values["user_id"],
                PromotionRedemption.status == RedemptionStatus.HELD,
            )
        ).first()
        if mine is None:
            return None
        session.exec(update(PromotionRedemption).where(col(PromotionRedemption.id) == mine).values(**values))
        return mine


def _raise(message: str) -> str:
    raise _refuse(message)


def redeem(
    session: Session, *, code_id: str, buyer_id: str, order_id: str | None, payment_intent_id: str | None
) -> None:
    """In the transaction recording the order: the buyer's hold becomes a redemption. A hold already released
    (the payment came after its expiry) is counted again without the limit: the buyer paid at that price."""
    now = utcnow()
    won = decisions.claim_any(
        session, PromotionRedemption,
        col(PromotionRedemption.code_id) == code_id,
        col(PromotionRedemption.user_id) == buyer_id,
        col(PromotionRedemption.status) == RedemptionStatus.HELD,
        values={"status": RedemptionStatus.REDEEMED, "order_id": order_id, "redeemed_at": now,
                "payment_intent_id": payment_intent_id},
    )
    if won:
        return
    session.exec(
        update(PromotionCode)
        .where(col(PromotionCode.id) == code_id, col(PromotionCode.max_redemptions).is_not(None))
        .values(redemptions=PromotionCode.redemptions + 1)
    )
    session.add(
        PromotionRedemption(
            code_id=code_id,
            user_id=buyer_id,
            order_id=order_id,
            redeemed_at=now,
            payment_intent_id=payment_intent_id,
            status=RedemptionStatus.REDEEMED,
        )
    )
    session.flush()


def redeem_for_subscription(
    session: Session, *, code_id: str, buyer_id: str, order_id: str | None, payment_intent_id: str | None
) -> None:
    """A subscription's code is redeemed once: when its free trial starts (`order_id` None: no payment yet) or
    with its first paid invoice, which then names its order on a trial's redemption instead of redeeming again."""
    if order_id is not None:
        named = session.exec(
            update(PromotionRedemption)
            .where(
                col(PromotionRedemption.code_id) == code_id,
                col(PromotionRedemption.user_id) == buyer_id,
                col(PromotionRedemption.status) == RedemptionStatus.REDEEMED,
                col(PromotionRedemption.order_id).is_(None),
            )
            .values(order_id=order_id, payment_intent_id=payment_intent_id)
        ).rowcount
        if named:
            return
    redeem(session, code_id=code_id, buyer_id=buyer_id, order_id=order_id, payment_intent_id=payment_intent_id)


def _release(session: Session, *where: ColumnElement[bool]) -> int:
    """Release the held redemptions matching `where`, each one conditional write, and give their counts back."""
    held = session.exec(
        select(PromotionRedemption.id, PromotionRedemption.code_id).where(
            PromotionRedemption.status == RedemptionStatus.HELD, *where
        )
    ).all()
    released = 0
    for redemption_id, code_id in held:
        won = decisions.claim_any(
            session, PromotionRedemption,
            col(PromotionRedemption.id) == redemption_id,
            col(PromotionRedemption.status) == RedemptionStatus.HELD,
            values={"status": RedemptionStatus.RELEASED, "released_at": utcnow()},
        )
        if won:
            session.exec(
                update(PromotionCode)
                .where(col(PromotionCode.id) == code_id, col(PromotionCode.max_redemptions).is_not(None))
                .values(redemptions=PromotionCode.redemptions - 1)
            )
            released += 1
    return released


def release(*, redemption_id: str) -> int:
    """A hold whose checkout could not open (the provider failed) goes back to the code (`holding`)."""
    with session_scope() as session:
        return _release(session, col(PromotionRedemption.id) == redemption_id)


def release_for_intent(*, payment_intent_id: str, metadata: dict[str, str]) -> int:
    """The checkout of this PaymentIntent was abandoned (cancelled): the hold of the code and buyer its metadata
    names goes back to the code. The hold does not name its PaymentIntent (checkout takes it before the intent
    opens, and one write fewer keeps a checkout with a code as fast as one without: benchmarks/README.md);
    a free claim's hold, which names its own, is never cancelled by Stripe."""
    code_id, user_id = metadata.get("promotionCodeId"), metadata.get("userId")
    if not code_id or not user_id:
        return 0
    with session_scope() as session:
        return _release(
            session,
            col(PromotionRedemption.code_id) == code_id,
            col(PromotionRedemption.user_id) == user_id,
            or_(
                col(PromotionRedemption.payment_intent_id).is_(None),
                col(PromotionRedemption.payment_intent_id) == payment_intent_id,
            ),
        )


def release_expired_holds() -> int:
    """Holds of checkouts left open longer than `HOLD_LIFETIME` go back to their codes (safe to run anywhere,
    any number of times at once: each release is one conditional write). A code at its limit also does this
    for itself before refusing a checkout (`hold`)."""
    with session_scope() as session:
        return _release(session, col(PromotionRedemption.held_until) <= utcnow())
