"""A code at checkout: is it valid for this buyer and agent (`apply_code`, the issue's five refusals), then one
redemption held per buyer (`hold`), redeemed when the payment or free claim is recorded (`redeem`) and released
when the checkout is abandoned (`release_for_intent`: its PaymentIntent was cancelled; `release_expired_holds`).

The limit is counted first, then checked, in one write that cannot race: `UPDATE promotion_codes SET
redemptions = redemptions + 1 WHERE id = ? AND active AND (max_redemptions IS NULL OR redemptions <
max_redemptions)`; the row count decides. Once per customer is the partial unique index over redemptions not
released; both writes are one transaction, so a loser of either causes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import ColumnElement, Exists, bindparam, exists, insert, or_, update
from sqlalchemy import select as sql_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

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
        session.execute(_APPLY, {"code": text, "agent": agent.id, "buyer": buyer.id}).first()
        if CODE_RE.match(text)
        else None
    )
    if found is None:
        raise _refuse(NOT_VALID)
    row, listed, used, bought, held = found
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
    PromotionCode,
    exists().where(PromotionCodeAgent.code_id == PromotionCode.id, PromotionCodeAgent.agent_id == bindparam("agent")),
    _mine(RedemptionStatus.REDEEMED),
    exists().where(Order.user_id == bindparam("buyer"), col(Order.total_amount_cents) > 0),
    _mine(RedemptionStatus.HELD),
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
            or_(
                col(PromotionCode.max_redemptions).is_(None),
                col(PromotionCode.redemptions) < col(PromotionCode.max_redemptions),
            ),
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

    The usual case is one short write transaction (count, then insert); the once-per-customer index turns
    away a second hold, which is then told apart from a redemption."""
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
    refusal = USED_BY_YOU
    try:
        with session_scope() as session:
            taken = _take(session, applied.code_id)
            if not taken:
                # At the limit: holds of checkouts abandoned long ago give theirs back, then count once more.
                expired = _release(
                    session,
                    col(PromotionRedemption.code_id) == applied.code_id,
                    col(PromotionRedemption.held_until) <= now,
                )
                taken = bool(expired) and _take(session, applied.code_id)
            if taken:
                session.exec(
                    insert(PromotionRedemption).values(
                        id=redemption_id, status=RedemptionStatus.HELD, created_at=now, **values
                    )
                )
        if taken:
            return redemption_id
        refusal = USED_UP
    except IntegrityError:
        pass  # the buyer holds or redeemed the code already (the transaction, and its count, rolled back)
    # Outside the transaction above (on SQLite it holds the one write lock until it ends).
    return _reuse(values) or _raise(refusal)


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
        update(PromotionCode).where(col(PromotionCode.id) == code_id).values(redemptions=PromotionCode.redemptions + 1)
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
                .where(col(PromotionCode.id) == code_id)
                .values(redemptions=PromotionCode.redemptions - 1)
            )
            released += 1
    return released


def release(*, redemption_id: str) -> int:
    """A hold whose checkout could not open (the provider failed) goes back to the code."""
    with session_scope() as session:
        return _release(session, col(PromotionRedemption.id) == redemption_id)


def release_for_intent(*, payment_intent_id: str, metadata: dict[str, str]) -> int:
    """The checkout of this PaymentIntent was abandoned (cancelled): the hold of the code and buyer its metadata
    names goes back to the code. The hold does not name its PaymentIntent (checkout takes it before the intent
    exists, and one write fewer keeps a checkout with a code as fast as one without: benchmarks/README.md);
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
