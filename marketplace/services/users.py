"""Profile changes, single sign-on account linking and the demo role switch."""

from __future__ import annotations

import re

from sqlalchemy import func
from sqlmodel import select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import OAuthAccount, Role, User
from marketplace.models.base import utcnow
from marketplace.services import accounts, audit, sign_in_errors
from marketplace.services.auth import validate_email
from marketplace.services.errors import DomainError, Forbidden, Invalid, NotFound, Unauthorized
from marketplace.services.permissions import require_user
from marketplace.services.receipts import buyer_details
from marketplace.services.text import NOT_ALLOWED, form_error, has_forbidden

MAX_NAME = 100


def profile_errors(*, first_name: str, last_name: str, email: str) -> dict[str, str]:
    """Every problem of a profile form by field (the dashboard shows them all; `update_profile` the first)."""
    errors: dict[str, str] = {}
    for field, value, label in (("firstName", first_name, "First name"), ("lastName", last_name, "Last name")):
        if has_forbidden(value):
            errors[field] = NOT_ALLOWED.format(label=label)
        elif not value.strip():
            errors[field] = f"{label} is required"
        elif len(value.strip()) > MAX_NAME:
            errors[field] = f"{label} must be at most {MAX_NAME} characters"
    try:
        validate_email(email, message="Invalid email address")
    except Invalid as error:
        errors["email"] = error.message
    return errors


def update_profile(*, actor: User | None, first_name: str, last_name: str, email: str,
                   current_password: str | None = None, keep_token: str | None = None,
                   address: str | None = None, business_name: str | None = None,
                   billing_address: str | None = None, tax_id: str | None = None) -> User:
    """Names change at once. A new e-mail needs the current password (counted per account and per client
    `address`, as sign-in is) and is used only once confirmed by the link sent to it (it waits in
    `pending_email`); asking for it ends the user's other sessions. The receipt details (business name,
    billing address, tax ID) change when given ("" clears one) and show on receipts numbered afterwards."""
    user = require_user(actor)
    errors = profile_errors(first_name=first_name, last_name=last_name, email=email)
    errors.update(buyer_details.errors(business_name=business_name, billing_address=billing_address,
                                       tax_id=tax_id))
    if errors:
        field, message = next(iter(errors.items()))
        raise form_error(field, message)
    first_name, last_name = first_name.strip(), last_name.strip()
    email = validate_email(email)
    with session_scope() as session:
        stored = session.get(User, user.id)
        if stored is None or stored.deleted_at is not None:
            raise Unauthorized("Unauthorized")
    if email not in (stored.email, stored.pending_email):
        accounts.check_current_password(actor=user, password=current_password, address=address)
    with session_scope() as session:
        row = session.get(User, user.id)
        if row is None or row.deleted_at is not None:
            raise Unauthorized("Unauthorized")
        row.first_name, row.last_name = first_name, last_name
        if business_name is not None:
            row.business_name = buyer_details.clean(business_name)
        if billing_address is not None:
            row.billing_address = buyer_details.clean(billing_address)
        if tax_id is not None:
            row.tax_id = buyer_details.clean(tax_id)
        if email == row.email:
            row.pending_email = None  # typing the current address again withdraws a pending change
        elif email != row.pending_email:
            accounts.request_email_change(session, row, email=email, keep_token=keep_token)
        row.updated_at = utcnow()
        session.add(row)
    return row


def update_receipt_details(*, actor: User | None, business_name: str, billing_address: str,
                           tax_id: str) -> User:
    """The profile's receipt details alone (the dashboard's own form): "" clears one. Receipts numbered
    afterwards show them; those numbered before keep what they said."""
    user = require_user(actor)
    errors = buyer_details.errors(business_name=business_name, billing_address=billing_address, tax_id=tax_id)
    if errors:
        field, message = next(iter(errors.items()))
        raise form_error(field, message)
    with session_scope() as session:
        row = session.get(User, user.id)
        if row is None or row.deleted_at is not None:
            raise Unauthorized("Unauthorized")
        row.business_name = buyer_details.clean(business_name)
        row.billing_address = buyer_details.clean(billing_address)
        row.tax_id = buyer_details.clean(tax_id)
        row.updated_at = utcnow()
        session.add(row)
    return row


def switch_role(*, actor: User | None, role: str) -> User:
    """Demo only: any signed-in user may test the product as another role (the spec's demo page). Each switch is
    written to the audit log with it: an account that became an admin this way says so."""
    if not settings.demo_enabled:
        raise NotFound("Not Found")
    user = require_user(actor)
    if role not in {r.value for r in Role}:
        raise Invalid("Role must be one of user, vendor, admin", field="role")
    with session_scope() as session:
        row = session.get(User, user.id)
        if row is None or row.deleted_at is not None:
            raise Unauthorized("Unauthorized")
        audit.record(session, actor=row, action="demo.switch_role", target_type="user", target_id=row.id,
                     details={"from": row.role, "to": role})
        row.role = role
        row.is_vendor_approved = role in (Role.VENDOR, Role.ADMIN) or row.is_vendor_approved
        row.updated_at = utcnow()
        session.add(row)
    return row


def _refused(error: type[DomainError], code: str, provider: str) -> DomainError:
    """A provider sign-in refused: the text for the services' callers, the code for the /login address."""
    return error(sign_in_errors.text(code, provider), code=code)


def _free_username(session, base: str) -> str:  # noqa: ANN001
    base = re.sub(r"[^A-Za-z0-9_.-]", "", base)[:50] or "user"
    if len(base) < 3:
        base = f"{base}user"
    candidate, n = base, 1
    while session.exec(select(User.id).where(func.lower(User.username) == candidate.lower())).first():
        n += 1
        candidate = f"{base}{n}"
    return candidate


def sign_in_with_provider(
    *,
    provider: str,
    subject: str,
    email: str | None,
    email_verified: bool,
    first_name: str | None = None,
    last_name: str | None = None,
    username_hint: str | None = None,
    avatar_url: str | None = None,
) -> User:
    """Find the user linked to this provider identity, else link by e-mail, else create one.

    Linking by e-mail needs the provider to vouch for the address AND the account to have confirmed it
    (else whoever registered someone else's address first would get their provider sign-in). An account
    with two-factor authentication is never linked by e-mail: its own code would be skipped.

    Profile values come from the provider, so they are trimmed to the columns' sizes rather than trusted.
    """
    subject = (subject or "").strip()
    if not subject or len(subject) > 255:
        raise _refused(Invalid, sign_in_errors.UNIDENTIFIED, provider)
    first_name = (first_name or "").strip()[:100] or None
    last_name = (last_name or "").strip()[:100] or None
    if avatar_url and (len(avatar_url) > 1000 or not avatar_url.startswith(("https://", "http://"))):
        avatar_url = None
    with session_scope() as session:
        link = session.exec(
            select(OAuthAccount).where(OAuthAccount.provider == provider, OAuthAccount.subject == subject)
        ).first()
        if link is not None:
            user = session.get(User, link.user_id)
            if user is None or user.deleted_at is not None:
                raise _refused(Unauthorized, sign_in_errors.ACCOUNT_DELETED, provider)
            return user
        if not email or not email_verified:
            raise _refused(Invalid, sign_in_errors.NO_VERIFIED_EMAIL, provider)
        email = validate_email(email)
        user = session.exec(select(User).where(User.email == email)).first()
        if user is not None and user.deleted_at is not None:
            raise _refused(Unauthorized, sign_in_errors.ACCOUNT_DELETED, provider)
        if user is not None and user.email_verified_at is None:
            # Anyone can register an address they do not own; only its confirmed owner may be linked to.
            raise _refused(Forbidden, sign_in_errors.UNVERIFIED_ACCOUNT, provider)
        if user is not None and user.totp_enabled:
            # Linking by e-mail would let the provider stand in for the account's own second factor.
            raise _refused(Forbidden, sign_in_errors.TWO_FACTOR_ACCOUNT, provider)
        if user is None:
            user = User(
                username=_free_username(session, username_hint or email.split("@")[0]),
                email=email,
                first_name=first_name,
                last_name=last_name,
                profile_image_url=avatar_url,
                email_verified_at=utcnow(),  # the provider vouches for it (checked above)
            )
            session.add(user)
            session.flush()
        session.add(OAuthAccount(user_id=user.id, provider=provider, subject=subject, email=email))
    return user
