"""Demo-mode helpers: role switching, demo data and the dev mailbox. They answer 404 when demo mode is off;
demo data and the mailbox are for admins."""

from __future__ import annotations

from fastapi import APIRouter, Query

from marketplace.api.deps import OptionalUser
from marketplace.models import MessageOut, UserPublic
from marketplace.models.billing import AdvanceClockIn, ClockPublic
from marketplace.models.demo import CaughtMailOut, RoleIn, RoleOut
from marketplace.services import demo, mail, users
from marketplace.services.billing import demo_clock

router = APIRouter(prefix="/api", tags=["demo"])


@router.post("/dev/switch-role", response_model=RoleOut)
def switch_role(body: RoleIn, user: OptionalUser) -> RoleOut:
    return RoleOut(user=UserPublic.of(users.switch_role(actor=user, role=body.role)))


@router.post("/admin/init-demo-data", response_model=MessageOut)
def init_demo_data(user: OptionalUser) -> MessageOut:
    demo.init_demo_data(actor=user)
    return MessageOut(message="Demo data initialized")


@router.get("/dev/mail", response_model=list[CaughtMailOut])
def dev_mail(user: OptionalUser, limit: int = Query(default=50, ge=1, le=mail.MAX_MAILBOX),
             to: str | None = Query(default=None, max_length=255)) -> list[CaughtMailOut]:
    """What the local SMTP catcher received, newest first; `to` keeps one recipient's mail (demo mode, admins)."""
    return [CaughtMailOut(to=", ".join(m.to), subject=m.subject, text=m.text, links=m.links,
                          received_at=m.received_at) for m in demo.dev_mailbox(actor=user, limit=limit, to=to)]


@router.post("/dev/advance-clock", response_model=ClockPublic)
def advance_clock(body: AdvanceClockIn, user: OptionalUser) -> ClockPublic:
    """Demo mode, admins: move the demo's Stripe test clock ahead; answers once the webhooks it caused (renewals,
    failed payments, lapses) have been handled."""
    clock = demo_clock.advance_clock(actor=user, days=body.days)
    return ClockPublic(id=clock.id, frozen_time=clock.frozen_time, status=clock.status)
