"""Admin decisions on vendor applications: list (paged, searchable), approve, reject.

Decisions go per user id (the spec's routes name the user, not the application) and act on that user's
pending application; each is one transaction that claims it first (services/decisions.py), then records who
decided and when, notifies the applicant (with the mail) and writes the audit entry, so a decision never exists
without its notification and its trace, and of simultaneous decisions one wins and the others answer 409.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_
from sqlalchemy import select as sql_select
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import ApplicationStatus, NotificationType, Role, User, VendorApplication
from marketplace.models.base import utcnow
from marketplace.services import audit, decisions, notifications
from marketplace.services.errors import Conflict, InvalidParameter, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin

MAX_OFFSET = 100_000
MAX_SEARCH = 200
NO_PENDING = "No pending application"
ALREADY_DECIDED = "This application has already been decided. Reload to see its current status."
APPROVED_TITLE = "Vendor application approved"
APPROVED_MESSAGE = ("Your vendor application for {business} has been approved. You can now list agents "
                    "from your vendor dashboard.")
REJECTED_TITLE = "Vendor application rejected"
REJECTED_MESSAGE = ("Your vendor application for {business} was not approved. You may apply again "
                    "with more details about your business.")


@dataclass(frozen=True)
class ApplicationRecord:
    application: VendorApplication
    email: str
    first_name: str | None
    last_name: str | None
    username: str


def _like(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


def list_applications(
    *, actor: User | None, status: str | None = ApplicationStatus.PENDING, limit: int = 50, offset: int = 0,
    search: str | None = None,
) -> tuple[list[ApplicationRecord], int]:
    """Applications newest first with their applicant, and the number of matches on all pages.

    `status` None (or "all") lists every status; `search` matches business name, email or username.
    """
    require_admin(actor)
    if status in ("", "all"):
        status = None
    if status is not None and status not in set(ApplicationStatus):
        raise InvalidParameter("status must be pending, approved, rejected or all", field="status")
    check_page(limit=limit, offset=offset, max_offset=MAX_OFFSET)
    term = (search or "").strip()
    if len(term) > MAX_SEARCH:
        raise InvalidParameter(f"search must be at most {MAX_SEARCH} characters", field="search")
    conditions = []
    if status is not None:
        conditions.append(VendorApplication.status == status)
    if term:
        pattern = _like(term)
        conditions.append(or_(func.lower(VendorApplication.business_name).like(pattern, escape="\\"),
                              func.lower(User.email).like(pattern, escape="\\"),
                              func.lower(User.username).like(pattern, escape="\\")))
    with session_scope() as session:
        total = session.exec(select(func.count()).select_from(VendorApplication)
                             .join(User, User.id == VendorApplication.user_id).where(*conditions)).one()
        rows = session.execute(
            sql_select(VendorApplication, User.email, User.first_name, User.last_name, User.username)
            .join(User, User.id == VendorApplication.user_id).where(*conditions)
            .order_by(VendorApplication.created_at.desc(), VendorApplication.id.desc())
            .limit(limit).offset(offset)).all()
    records = [ApplicationRecord(application=a, email=e, first_name=f, last_name=la, username=u)
               for a, e, f, la, u in rows]
    return records, total


def _decide(actor: User | None, user_id: str, *, approve: bool) -> VendorApplication:
    """Claim the user's pending application (409 when another decision came first, or it was decided
    before), then write what the decision causes."""
    admin = require_admin(actor)
    now = utcnow()
    with session_scope() as session:
        pending = session.exec(select(VendorApplication.id).where(
            VendorApplication.user_id == user_id, VendorApplication.status == ApplicationStatus.PENDING)).first() \
            if user_id and len(user_id) <= 64 else None
        if pending is None:
            decided = session.exec(select(VendorApplication.id).join(User, User.id == VendorApplication.user_id)
                                   .where(VendorApplication.user_id == user_id, User.deleted_at.is_(None))).first() \
                if user_id and len(user_id) <= 64 else None
            raise Conflict(ALREADY_DECIDED) if decided else NotFound(NO_PENDING)
        decisions.claim(session, VendorApplication, VendorApplication.id == pending,
                        VendorApplication.status == ApplicationStatus.PENDING,
                        values={"status": ApplicationStatus.APPROVED if approve else ApplicationStatus.REJECTED,
                                "decided_at": now, "decided_by": admin.id}, conflict=ALREADY_DECIDED)
        application = session.exec(select(VendorApplication).where(VendorApplication.id == pending)).one()
        if approve:
            user = session.get(User, user_id)
            if user is None or user.deleted_at is not None:
                raise NotFound(NO_PENDING)
            if user.role != Role.ADMIN:
                user.role = Role.VENDOR
            user.is_vendor_approved = True
            user.updated_at = now
            session.add(user)
            notifications.notify(session, user_id=user_id, type=NotificationType.APPROVAL, title=APPROVED_TITLE,
                                 message=APPROVED_MESSAGE.format(business=application.business_name))
        else:
            notifications.notify(session, user_id=user_id, type=NotificationType.REJECTION, title=REJECTED_TITLE,
                                 message=REJECTED_MESSAGE.format(business=application.business_name))
        audit.record(session, actor=admin, action="vendor.approve" if approve else "vendor.reject",
                     target_type="user", target_id=user_id,
                     details={"applicationId": application.id, "businessName": application.business_name})
    return application


def approve(*, actor: User | None, user_id: str) -> VendorApplication:
    """Approve the user's pending application: the user becomes an approved vendor and is notified."""
    return _decide(actor, user_id, approve=True)


def reject(*, actor: User | None, user_id: str) -> VendorApplication:
    """Reject the user's pending application: the user stays a customer, is notified and may apply again."""
    return _decide(actor, user_id, approve=False)
