"""Demo mode's one Stripe test clock: new customers live on it, and an admin can advance it to watch renewals,
failed payments and lapses happen (`POST /api/dev/advance-clock`). Its id is kept in `platform_settings` under
a key the settings page does not list."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import PlatformSetting, User
from marketplace.models.base import utcnow
from marketplace.services import audit
from marketplace.services.errors import Conflict, Invalid, NotFound
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_admin

CLOCK_SETTING = "demoTestClockId"
MAX_DAYS = 60  # Stripe advances a clock at most two intervals of its shortest subscription (monthly) at a time
ADVANCE_TIMEOUT_S = 120.0
POLL_S = 0.2
BAD_DAYS = f"days must be a whole number from 1 to {MAX_DAYS}"
BUSY = "The demo clock is already advancing: try again in a moment"


@dataclass(frozen=True)
class ClockState:
    id: str
    frozen_time: datetime
    status: str


def clock_id_for_new_customer() -> str | None:
    """The clock a new Stripe Customer goes on: the demo clock in demo mode, none (the wall clock) otherwise."""
    return _demo_clock_id() if settings.demo_enabled else None


def _demo_clock_id() -> str:
    """The demo clock, created the first time demo mode needs it. Two first uses at once store one id (the
    primary key decides); the loser's clock stays unused."""
    with session_scope() as session:
        row = session.get(PlatformSetting, CLOCK_SETTING)
        if row is not None:
            return row.value
    with provider_errors():
        clock = billing.create_test_clock(name="AgentMarket demo", frozen_time=utcnow())
    try:
        with session_scope() as session:
            session.add(PlatformSetting(key=CLOCK_SETTING, value=clock.id,
                                        description="The demo mode's Stripe test clock"))
    except IntegrityError:
        pass
    with session_scope() as session:
        setting = session.get(PlatformSetting, CLOCK_SETTING)
        assert setting is not None, "written just above, or by the request that won the insert"
        return setting.value


def advance_clock(*, actor: User | None, days: int) -> ClockState:
    """Move the demo clock `days` ahead and answer once Stripe has replayed what fell due and the app has handled
    the resulting webhooks (the clock is `ready` only after they were answered). Demo mode only, admins only."""
    if not settings.demo_enabled:
        raise NotFound("Not Found")
    admin = require_admin(actor)
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise Invalid(BAD_DAYS, field="days")
    clock_id = _demo_clock_id()
    with provider_errors():
        current = billing.retrieve_test_clock(clock_id)
    if current.status == "advancing":
        raise Conflict(BUSY)
    try:
        with provider_errors():
            billing.advance_test_clock(clock_id, to=current.frozen_time + timedelta(days=days))
    except Exception as exc:  # another admin's advance started first: Stripe refuses a second one
        with provider_errors():
            if billing.retrieve_test_clock(clock_id).status == "advancing":
                raise Conflict(BUSY) from exc
        raise
    deadline = time.monotonic() + ADVANCE_TIMEOUT_S
    while True:
        with provider_errors():
            state = billing.retrieve_test_clock(clock_id)
        if state.status != "advancing" or time.monotonic() > deadline:
            break
        time.sleep(POLL_S)
    with session_scope() as session:
        audit.record(session, actor=admin, action="demo.advance_clock", target_type="test_clock",
                     target_id=clock_id, details={"days": days, "frozenTime": state.frozen_time.isoformat()})
    return ClockState(id=clock_id, frozen_time=state.frozen_time, status=state.status)
