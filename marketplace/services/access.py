"""The one access rule: who may use an agent they paid for.

A licence (one-time price, free claim) gives access for good (`access_until` NULL); a subscription gives it
until `access_until`, which the billing webhooks keep at the paid period's end (plus the 7-day grace after a
failed renewal; the period's end after a cancellation; now on a refund or when Stripe ends it). A dispute
suspends it. Downloads, 'Already Bought', update notices and reviews all read this rule; `set_until` is the
one place that writes `access_until`."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import and_, or_, update
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, select

from marketplace.models import Purchase
from marketplace.models.base import utcnow

GRACE = timedelta(days=7)  # access after a failed renewal, while the customer updates the card
# Stripe charges a renewal about an hour after the period ends (its invoice.paid comes after that): a paid
# period's access runs this much longer, so a renewal in flight never locks a paying customer out. A
# subscription that ends (cancelled at the period's end, unpaid) ends access when Stripe says so.
RENEWAL_SLACK = timedelta(days=1)


def active(now: datetime | ColumnElement[datetime] | None = None) -> ColumnElement[bool]:
    """The SQL condition for a `purchases` row that gives access at `now` (a moment, or a bound parameter when
    the statement is built once and run many times: the licence API's validate)."""
    moment = utcnow() if now is None else now
    return and_(Purchase.suspended_at.is_(None),
                or_(Purchase.access_until.is_(None), Purchase.access_until > moment))


def has_access(session: Session, *, user_id: str, agent_id: str, now: datetime | None = None) -> bool:
    return session.exec(select(Purchase.id).where(Purchase.user_id == user_id, Purchase.agent_id == agent_id,
                                                  active(now))).first() is not None


def purchase_and_access(session: Session, *, user_id: str, agent_id: str,
                        now: datetime | None = None) -> tuple[Purchase | None, bool]:
    """The buyer's one row for the agent (if any) and whether it gives access now, by the same rule, in one
    statement: recording a purchase needs both (one round trip instead of two)."""
    found = session.exec(select(Purchase, active(now).label("gives_access"))
                         .where(Purchase.user_id == user_id, Purchase.agent_id == agent_id)).first()
    return (None, False) if found is None else (found[0], bool(found[1]))


def set_until(session: Session, *, where: ColumnElement[bool], until: datetime | None,
              only: Literal["later", "sooner"] | None = None) -> None:
    """Access of the purchases matching `where` runs until `until` (None: for good, a licence), in the
    caller's transaction. `only="later"` never shortens it (a paid period, the grace after a failed renewal) and
    leaves a licence for good; `only="sooner"` never lengthens it (a refund, a subscription that ended)."""
    statement = update(Purchase).where(where)
    if only == "later" and until is not None:
        statement = statement.where(Purchase.access_until < until)
    elif only == "sooner" and until is not None:
        statement = statement.where(or_(Purchase.access_until.is_(None), Purchase.access_until > until))
    session.execute(statement.values(access_until=until))
