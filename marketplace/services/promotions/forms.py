"""The promotion code form of the vendor dashboard and the admin panel: what a person typed (text), read into
`create_code`'s values with a message naming the field, and the agents a vendor may pick. The rules themselves
stay in `codes.create_code`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal

from sqlmodel import col, select

from marketplace.db import autocommit_scope
from marketplace.models import Agent, AgentStatus, PromotionDuration, User
from marketplace.services import money
from marketplace.services.errors import Invalid
from marketplace.services.permissions import require_vendor
from marketplace.services.promotions.codes import (
    BAD_AMOUNT,
    BAD_MAX,
    BAD_MONTHS,
    BAD_PERCENT,
    MAX_AMOUNT_OFF_CENTS,
    MAX_MONTHS,
    MAX_REDEMPTIONS,
    CodeView,
    create_code,
)
from marketplace.services.text import bounded_number

PERCENT, AMOUNT = "percent", "amount"
BAD_DATE = "Enter the expiry as a date (YYYY-MM-DD)."
MAX_PICKABLE = 200


@dataclass(frozen=True)
class CodeForm:
    code: str
    kind: str  # percent | amount (USD)
    value: str  # "25" (percent) or "5.00" (USD)
    agent_ids: list[str]
    all_agents: bool = False
    expires_on: str = ""  # YYYY-MM-DD, the code works through that day (UTC)
    max_redemptions: str = ""
    first_purchase_only: bool = False
    duration: str = PromotionDuration.ONCE
    duration_months: str = ""


def _whole(value: str, *, high: int, message: str, field: str) -> int | None:
    if not value.strip():
        return None
    number = bounded_number(value, low=Decimal(1), high=Decimal(high), places=0)
    if number is None:
        raise Invalid(message, field=field)
    return int(number)


def create_from_form(*, actor: User | None, form: CodeForm, admin: bool = False) -> CodeView:
    """`create_code` with what the form's fields hold."""
    percent = amount = None
    if form.kind == PERCENT:
        percent = _whole(form.value, high=100, message=BAD_PERCENT, field="value")
        if percent is None:
            raise Invalid(BAD_PERCENT, field="value")
    else:
        dollars = bounded_number(form.value, low=Decimal("0.01"), high=Decimal(MAX_AMOUNT_OFF_CENTS) / 100, places=2)
        if dollars is None:
            raise Invalid(BAD_AMOUNT, field="value")
        amount = int(dollars * 100)
    expires_at = None
    if form.expires_on.strip():
        try:
            day = date.fromisoformat(form.expires_on.strip())
        except ValueError:
            raise Invalid(BAD_DATE, field="expiresOn") from None
        expires_at = datetime.combine(day, time.max, tzinfo=UTC)
    months = None
    if form.duration == PromotionDuration.REPEATING:
        months = _whole(form.duration_months, high=MAX_MONTHS, message=BAD_MONTHS, field="durationMonths")
    return create_code(
        actor=actor,
        admin=admin,
        code=form.code,
        percent_off=percent,
        amount_off_cents=amount,
        agent_ids=form.agent_ids,
        all_agents=form.all_agents,
        expires_at=expires_at,
        max_redemptions=_whole(form.max_redemptions, high=MAX_REDEMPTIONS, message=BAD_MAX, field="maxRedemptions"),
        first_purchase_only=form.first_purchase_only,
        duration=form.duration,
        duration_months=months,
    )


def pickable_agents(*, actor: User | None) -> list[tuple[str, str]]:
    """(id, name) of the vendor's own live agents, by name: what its codes may apply to."""
    user = require_vendor(actor)
    with autocommit_scope() as session:
        rows = session.exec(
            select(Agent.id, Agent.name)
            .where(Agent.vendor_id == user.id, Agent.status == AgentStatus.APPROVED, col(Agent.deleted_at).is_(None))
            .order_by(col(Agent.name))
            .limit(MAX_PICKABLE)
        ).all()
    return [(agent_id, name) for agent_id, name in rows]


def describe(view: CodeView) -> str:
    """What a code takes off, as the lists show it: '25% off' or '$5.00 off', and for monthly agents which
    months ('first payment', 'first 3 months', 'every month')."""
    c = view.code
    off = (
        f"{c.percent_off}% off"
        if c.percent_off is not None
        else f"{money.format_amount(c.amount_off_cents or 0, 'usd')} off"
    )
    return f"{off}, {months_label(c.duration, c.duration_months)}"


def months_label(duration: str, months: int | None) -> str:
    if duration == PromotionDuration.FOREVER:
        return "every month"
    if duration == PromotionDuration.REPEATING:
        return f"first {months} months" if months != 1 else "first month"
    return "first payment"


def checkout_months(duration: str, months: int | None) -> str:
    """Which payments of a subscription a code discounts, as checkout says it, in the words of the code forms
    and lists (`months_label`): 'First payment', 'First 3 months' or 'Every month' (Stripe's coupon durations
    `once`, `repeating` and `forever`; after a free trial the first payment is the first paid month)."""
    label = months_label(duration, months)
    return label[:1].upper() + label[1:]
