"""The plans on offer: read by the landing page, `/vendor/plans` and the checkout's fee, edited by admins.

Plans are rows, seeded with the spec's three. The Free plan's fee is no column of its own: it is the platform
commission rate setting (`services/platform`), so editing the Free plan's fee edits that setting and editing the
setting changes the Free plan's fee. An edit is validated first (the fee as the commission rate is), then
claimed on the plan's row and audited in the same transaction; later charges and subscriptions use it.

The public list (`list_plans`: every visit of the landing page) is kept per process under the catalog version,
as the catalogue's other public reads are (`services/catalog/reads.py`): any write to `plans` or
`platform_settings` moves the version in its own commit (revision 0041), so the next read sees it. Reads inside a
caller's transaction (`plans_in`, `plan_in`: fees charged, plan changes) still read the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlmodel import Session, select

from marketplace.db import is_postgres, session_scope
from marketplace.models import FREE_PLAN_ID, Plan, User, VendorPlan
from marketplace.models.base import utcnow
from marketplace.services import audit, money, platform
from marketplace.services.catalog import reads
from marketplace.services.decisions import claim
from marketplace.services.errors import Conflict, Invalid, NotFound
from marketplace.services.permissions import require_admin
from marketplace.services.text import bounded_number, check_text, is_digits

# The spec's offer (the migration seeds the same rows).
SEED: tuple[dict[str, object], ...] = (
    {"id": FREE_PLAN_ID, "name": "Free", "monthly_price_cents": 0, "agent_limit": 3, "fee_percent": None,
     "sort_order": 0},
    {"id": "pro", "name": "Pro", "monthly_price_cents": 2900, "agent_limit": None, "fee_percent": Decimal(10),
     "sort_order": 1},
    {"id": "enterprise", "name": "Enterprise", "monthly_price_cents": 9900, "agent_limit": None,
     "fee_percent": Decimal(5), "sort_order": 2},
)

PLAN_NOT_FOUND = "Plan not found"
NAME_REQUIRED = "Plan name is required"
NAME_MAX = 60
NAME_TOO_LONG = f"Plan name must be at most {NAME_MAX} characters"
MIN_PRICE, MAX_PRICE = Decimal("0.50"), Decimal("9999.99")
INVALID_PRICE = f"Monthly price must be a number from {MIN_PRICE} to {MAX_PRICE} with at most 2 decimals"
FREE_PRICE = "The Free plan has no monthly price"
MAX_LIMIT = 100_000
INVALID_LIMIT = f"Agent limit must be a whole number from 1 to {MAX_LIMIT}, or empty for unlimited"
ID_MAX = 32
# The fee's own message: the commission rate's ('...for commission rate') named another field on the plan's form.
INVALID_FEE = "Fee must be a number from 0 to 100 with at most 2 decimals"


@dataclass(frozen=True)
class PlanView:
    id: str
    name: str
    monthly_price_cents: int
    agent_limit: int | None  # None: unlimited
    fee_percent: Decimal  # the Free plan's is the commission rate
    sort_order: int
    updated_at: datetime

    @property
    def is_free(self) -> bool:
        return self.id == FREE_PLAN_ID

    @property
    def split_label(self) -> str:
        """'90/10' (vendor/platform), as every split label is written."""
        return money.split_label(self.fee_percent)


def ensure_plans() -> None:
    """The spec's plans, where missing (the migration seeds them; the app's start and the tests' emptied
    database call this too). Existing rows, edited or not, are left as they are."""
    dialect = postgresql if is_postgres() else sqlite
    now = utcnow()
    with session_scope() as session:
        for row in SEED:
            session.execute(dialect.insert(Plan).values(**row, updated_at=now).on_conflict_do_nothing())


def _view(session: Session, row: Plan) -> PlanView:
    fee = row.fee_percent if row.fee_percent is not None else platform.commission_rate(session=session)
    return PlanView(id=row.id, name=row.name, monthly_price_cents=row.monthly_price_cents,
                    agent_limit=row.agent_limit, fee_percent=Decimal(fee).quantize(money.PERCENT_QUANTUM),
                    sort_order=row.sort_order, updated_at=row.updated_at)


def plans_in(session: Session) -> list[PlanView]:
    """Every plan, in display order, in the caller's transaction."""
    return [_view(session, row) for row in session.exec(select(Plan).order_by(Plan.sort_order, Plan.id))]


def _plans(conn: Connection) -> tuple[PlanView, ...]:
    with Session(bind=conn) as session:
        return tuple(plans_in(session))


def list_plans() -> list[PlanView]:
    """The plans on offer, cheapest first (public: the landing page and `GET /api/plans`); cached per catalog
    version, so a visit costs no database work once read (the views are frozen: the kept tuple is shared)."""
    return list(reads.cached(("plans",), _plans) or ())


def plan_in(session: Session, plan_id: str) -> PlanView:
    if not isinstance(plan_id, str) or not plan_id or len(plan_id) > ID_MAX:
        raise NotFound(PLAN_NOT_FOUND)
    for plan in plans_in(session):
        if plan.id == plan_id:
            return plan
    raise NotFound(PLAN_NOT_FOUND)


def get_plan(*, plan_id: str) -> PlanView:
    with session_scope() as session:
        return plan_in(session, plan_id)


def vendor_plan_in(session: Session, vendor_id: str | None) -> PlanView:
    """The plan a vendor is on now (Free without a row): its fee is what a sale of this vendor pays."""
    row = session.get(VendorPlan, vendor_id) if vendor_id else None
    return plan_in(session, row.plan_id if row is not None else FREE_PLAN_ID)


def fee_for_vendor(*, vendor_id: str | None) -> Decimal:
    """The platform's share in percent of a sale of this vendor's agent, at this moment (its plan's fee)."""
    with session_scope() as session:
        return vendor_plan_in(session, vendor_id).fee_percent


# ---- the admin's edit -----------------------------------------------------------------------------------------


def _clean_name(value: str) -> str:
    name = check_text(value, field="name", label="Plan name").strip()
    if not name:
        raise Invalid(NAME_REQUIRED, field="name")
    if len(name) > NAME_MAX:
        raise Invalid(NAME_TOO_LONG, field="name")
    return name


def _clean_price(value: str, *, free: bool) -> int:
    """'29' or '29.00' -> 2900; the Free plan's price stays 0."""
    text = value.strip().removeprefix("$")
    if free:
        if bounded_number(text, low=Decimal(0), high=Decimal(0), places=2) is None:
            raise Invalid(FREE_PRICE, field="monthlyPrice")
        return 0
    price = bounded_number(text, low=MIN_PRICE, high=MAX_PRICE, places=2)
    if price is None:
        raise Invalid(INVALID_PRICE, field="monthlyPrice")
    return int(price * 100)


def _clean_limit(value: str | int) -> int | None:
    """'' or 'unlimited': no limit; else a whole number from 1."""
    if isinstance(value, bool):
        raise Invalid(INVALID_LIMIT, field="agentLimit")
    if isinstance(value, int):
        number = value
    else:
        text = value.strip()
        if text.lower() in ("", "unlimited"):
            return None
        if not is_digits(text) or len(text) > 9:
            raise Invalid(INVALID_LIMIT, field="agentLimit")
        number = int(text)
    if not 1 <= number <= MAX_LIMIT:
        raise Invalid(INVALID_LIMIT, field="agentLimit")
    return number


def _clean_fee(value: str) -> Decimal:
    """'8%' or '8' -> Decimal('8.00'), by the commission rate's rule, refused with the fee's own message."""
    try:
        return platform.parse_percent(value)
    except Invalid:
        raise Invalid(INVALID_FEE, field="feePercent") from None


def update_plan(*, actor: User | None, plan_id: str, name: str | None = None, monthly_price: str | None = None,
                agent_limit: str | int | None = None, fee_percent: str | None = None) -> PlanView:
    """Change a plan (admins only); a field left None stays as it is (`agent_limit` '' means unlimited).

    Every value is validated before anything is written. The plan's row is claimed first (the write lock on
    SQLite, the row lock on PostgreSQL), so edits sent at the same moment apply one after the other and each
    audit entry's `from` is what the edit before it left. The Free plan's fee is the commission rate setting:
    it is written there, in the same transaction. A new price applies to new subscriptions; a new fee to sales
    and renewals from now on."""
    admin = require_admin(actor)
    if not isinstance(plan_id, str) or not plan_id or len(plan_id) > ID_MAX:
        raise NotFound(PLAN_NOT_FOUND)
    free = plan_id == FREE_PLAN_ID
    changes: dict[str, object] = {}
    if name is not None:
        changes["name"] = _clean_name(name)
    if monthly_price is not None:
        changes["monthly_price_cents"] = _clean_price(monthly_price, free=free)
    if agent_limit is not None:
        changes["agent_limit"] = _clean_limit(agent_limit)
    fee = _clean_fee(fee_percent) if fee_percent is not None else None
    with session_scope() as session:
        try:
            claim(session, Plan, Plan.id == plan_id, values={"updated_at": utcnow()}, conflict=PLAN_NOT_FOUND)
        except Conflict:
            raise NotFound(PLAN_NOT_FOUND) from None
        row = session.get_one(Plan, plan_id)
        before = _view(session, row)
        if fee is not None:
            if free:
                platform.store_setting(session, admin=admin, key=platform.COMMISSION_RATE,
                                       normalised=platform.normalised_commission(fee_percent or ""))
            else:
                changes["fee_percent"] = fee
        for key, value in changes.items():
            setattr(row, key, value)
        session.add(row)
        session.flush()
        after = _view(session, row)
        audit.record(session, actor=admin, action="plan.update", target_type="plan", target_id=plan_id,
                     details={"from": _audited(before), "to": _audited(after)})
        return after


def _audited(plan: PlanView) -> dict[str, object]:
    return {"name": plan.name, "monthlyPrice": money.format_cents(plan.monthly_price_cents),
            "agentLimit": plan.agent_limit, "feePercent": money.format_percent(plan.fee_percent)}
