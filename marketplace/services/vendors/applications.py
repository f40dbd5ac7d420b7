"""Vendor applications: a customer asks to sell agents; an admin decides (services/admin/applications.py).

The messages below are the one place the application rules are worded: the API returns them and the
states show them, so the form and the server never disagree.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import ApplicationStatus, Role, User, VendorApplication
from marketplace.models.base import utcnow
from marketplace.services import decisions, names
from marketplace.services.errors import Conflict, Invalid, Unauthorized
from marketplace.services.permissions import require_user
from marketplace.services.text import check_text

MAX_BUSINESS_NAME = 200
MAX_DESCRIPTION = 5000
MAX_WEBSITE = 500

BUSINESS_NAME_REQUIRED = "Business name is required"
BUSINESS_NAME_TOO_LONG = f"Business name must be at most {MAX_BUSINESS_NAME} characters"
DESCRIPTION_TOO_LONG = f"Business description must be at most {MAX_DESCRIPTION} characters"
WEBSITE_INVALID = "Website must be a valid http(s) URL"
ALREADY_PENDING = "You already have a pending vendor application"
NOT_A_CUSTOMER = "Vendors and administrators cannot apply to become a vendor"


def clean_business_name(value: str | None) -> str:
    name = check_text(value or "", field="businessName", label="Business name").strip()
    if not name:
        raise Invalid(BUSINESS_NAME_REQUIRED, field="businessName")
    if len(name) > MAX_BUSINESS_NAME:
        raise Invalid(BUSINESS_NAME_TOO_LONG, field="businessName")
    return name


def clean_description(value: str | None) -> str | None:
    description = check_text(value or "", field="businessDescription", label="Business description",
                             multiline=True).strip() or None
    if description and len(description) > MAX_DESCRIPTION:
        raise Invalid(DESCRIPTION_TOO_LONG, field="businessDescription")
    return description


def clean_website(value: str | None) -> str | None:
    """Empty -> None; otherwise an absolute http(s) URL with a host and no spaces."""
    value = check_text(value or "", field="website", label="Website").strip()
    if not value:
        return None
    parts = urlsplit(value)
    if len(value) > MAX_WEBSITE or parts.scheme not in ("http", "https") or not parts.hostname or " " in value:
        raise Invalid(WEBSITE_INVALID, field="website")
    return value


def apply(
    *, actor: User | None, business_name: str, business_description: str | None = None, website: str | None = None
) -> VendorApplication:
    """File a pending application; a user has at most one pending application at a time."""
    user = require_user(actor)
    if user.role != Role.USER:
        raise Invalid(NOT_A_CUSTOMER)
    name = clean_business_name(business_name)
    description = clean_description(business_description)
    site = clean_website(website)
    try:
        with session_scope() as session:
            # Claim the user's row first (services/decisions.py): it serialises concurrent applications of the
            # same user (row lock on PostgreSQL, the database write lock on SQLite) before the pending check.
            if not decisions.claim_any(session, User, User.id == user.id, User.deleted_at.is_(None),
                                       values={"updated_at": utcnow()}):
                raise Unauthorized("Unauthorized")
            current = session.exec(select(User.role).where(User.id == user.id)).one()
            if current != Role.USER:
                raise Invalid(NOT_A_CUSTOMER)  # approved since the actor was loaded
            pending = session.exec(select(VendorApplication.id).where(
                VendorApplication.user_id == user.id, VendorApplication.status == ApplicationStatus.PENDING)).first()
            if pending:
                raise Conflict(ALREADY_PENDING)
            application = VendorApplication(user_id=user.id, business_name=name, business_description=description,
                                            website=site)
            session.add(application)
    except IntegrityError as error:
        # The partial unique index (one pending per user) caught a race the lock did not.
        raise Conflict(ALREADY_PENDING) from error
    return application


def latest_application(*, actor: User | None) -> VendorApplication | None:
    user = require_user(actor)
    with session_scope() as session:
        return session.exec(select(VendorApplication).where(VendorApplication.user_id == user.id)
                            .order_by(VendorApplication.created_at.desc(), VendorApplication.id.desc())).first()


PROFILE_PITCH = ("Independent developer of AI agents: designing, building and maintaining agents that automate "
                 "everyday work, sold and supported through the marketplace.")


def apply_with_profile(*, actor: User | None) -> VendorApplication:
    """The customer dashboard's one-click Apply Now: the business is named after the user, with a fixed pitch."""
    user = require_user(actor)
    name = names.display_name(first_name=user.first_name, last_name=user.last_name, username=user.username)
    return apply(actor=user, business_name=f"{name} AI Agents", business_description=PROFILE_PITCH)
