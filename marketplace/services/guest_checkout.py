"""Guest checkout: a signed-out visitor buys with an e-mail address and a name, when the admin allows it.

The server decides who the buyer is. A new address gets an account with no password and an unconfirmed address,
made by one INSERT that does nothing on a clash: two checkouts with the same new address at once make one
account, which both use. An address that belongs to an account is refused (409), so a purchase is never
attached to an account without its owner signing in; the one exception is a guest account nothing was ever
bought with (an abandoned checkout), which is nobody's yet. After payment the receipt carries a single-use
sign-in link that sets a password, confirms the address and signs the buyer in.

An account stays a guest's (unclaimed) while it has no password and no confirmed address: registration always
sets a password, provider sign-in always confirms the address.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import is_postgres, session_scope
from marketplace.models import Order, Role, TokenPurpose, User
from marketplace.models.base import utcnow
from marketplace.services import account_tokens, auth, platform, ratelimit
from marketplace.services.errors import Conflict, Forbidden, Invalid
from marketplace.services.text import check_text

GUEST_OFF = "Guest checkout is not available: please sign in to buy"
SIGN_IN_TO_BUY = "Please sign in to buy with this e-mail"
NAME_REQUIRED = "Please enter your name"
NAME_TOO_LONG = "Name must be at most 100 characters"
EMAIL_INVALID = "Please enter a valid email address"
TOO_MANY = "Too many guest checkouts from your address. Please try again later."
NOT_A_GUEST_PAYMENT = "This payment was not made by a guest checkout: please sign in"
MAX_NAME = 100
USERNAME_ATTEMPTS = 3


@dataclass(frozen=True)
class GuestDetails:
    """What the checkout form sends for a signed-out buyer, and where the request came from (rate limit)."""

    email: str
    name: str
    address: str | None = None


def require_open() -> None:
    """403 unless the admin turned guest checkout on."""
    if not platform.guest_checkout_allowed():
        raise Forbidden(GUEST_OFF)


def details_errors(*, email: str, name: str) -> dict[str, str]:
    """Every problem of the guest form by field (`email`, `name`): the form shows them all at once."""
    errors: dict[str, str] = {}
    try:
        auth.validate_email(email or "", message=EMAIL_INVALID)
    except Invalid as error:
        errors["email"] = error.message
    cleaned = (name or "").strip()
    if not cleaned:
        errors["name"] = NAME_REQUIRED
    elif len(cleaned) > MAX_NAME:
        errors["name"] = NAME_TOO_LONG
    else:
        try:
            check_text(cleaned, field="name", label="Name")
        except Invalid as error:
            errors["name"] = error.message
    return errors


def _username(email: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]", "", email.split("@", 1)[0])[:40] or "guest"
    return f"{base}-{secrets.token_hex(4)}"


def open_account(*, details: GuestDetails) -> User:
    """The buyer account for a guest checkout: the switch (403), the per-address limit (429, counted before the
    rest so refusals count too), the form (400), the address (409)."""
    require_open()
    if details.address:
        ratelimit.hit(key=f"guest-checkout:{details.address}", limit=settings.rate_limit_guest_checkout,
                      window_seconds=settings.rate_limit_window_minutes * 60, message=TOO_MANY)
    if errors := details_errors(email=details.email, name=details.name):
        field, message = next(iter(errors.items()))
        raise Invalid(message, field=field)
    email = auth.validate_email(details.email)
    first, _, last = details.name.strip().partition(" ")
    with session_scope() as session:
        for _attempt in range(USERNAME_ATTEMPTS):
            user = User(username=_username(email), email=email, first_name=first[:MAX_NAME],
                        last_name=last.strip()[:MAX_NAME] or None)
            if _insert_new(session, user):
                return session.exec(select(User).where(User.id == user.id)).one()
            existing = session.exec(select(User).where(User.email == email)).first()
            if existing is not None:
                if _abandoned(session, existing):
                    return existing
                raise Conflict(SIGN_IN_TO_BUY, field="email")
    raise Conflict("The account could not be created, please retry")  # three random usernames taken: not seen


def _insert_new(session: Session, user: User) -> bool:
    """One INSERT that does nothing when the address (or the username) is taken: the database decides."""
    dialect = postgresql if is_postgres() else sqlite
    inserted = session.execute(dialect.insert(User).values(**user.model_dump()).on_conflict_do_nothing()
                               .returning(User.id))
    return inserted.scalar_one_or_none() is not None


def _abandoned(session: Session, user: User) -> bool:
    """A guest account from a checkout that was never paid (a reload, a declined card, a provider failure, or
    the other of two checkouts at once): the same address may check out on it again, as nothing is attached to
    it. Any order makes it the buyer's own account, to sign in to."""
    return (is_unclaimed(user) and user.deleted_at is None and user.role == Role.USER
            and session.exec(select(Order.id).where(Order.user_id == user.id)).first() is None)


def is_unclaimed(user: User) -> bool:
    return user.password_hash is None and user.email_verified_at is None


def require_guest_buyer(*, user_id: str | None) -> None:
    """A signed-out caller may see a payment's order only if it was made for an unclaimed guest account."""
    with session_scope() as session:
        user = session.get(User, user_id) if user_id is not None else None
        if user is None or not is_unclaimed(user):
            raise Forbidden(NOT_A_GUEST_PAYMENT)


def sign_in_token(session: Session, *, buyer: User) -> str | None:
    """A receipt's sign-in link token for an unclaimed guest buyer (single use, `guest_link_hours`); None for
    everyone else (they sign in as usual)."""
    if not is_unclaimed(buyer):
        return None
    return account_tokens.issue(session, user=buyer, purpose=TokenPurpose.GUEST_SIGN_IN, email=buyer.email,
                                lifetime=timedelta(hours=settings.guest_link_hours))


def _link_account(session: Session, token: str, *, use: bool) -> User:
    find = account_tokens.consume if use else account_tokens.peek
    row = find(session, token=token, purpose=TokenPurpose.GUEST_SIGN_IN)
    user = session.get(User, row.user_id)
    if user is None or user.deleted_at is not None or user.email != row.email:
        raise Invalid(account_tokens.LINK_INVALID, field="token")
    return user


def check_link(*, token: str) -> str:
    """The address a sign-in link is for, if it would work now (nothing is used up): the page says at once
    when a link is dead."""
    with session_scope() as session:
        return _link_account(session, token, use=False).email


def set_password(*, token: str, password: str) -> User:
    """Use the link: the buyer's password is set and the address it came to is confirmed; the caller signs
    them in. Two uses of one link at once: one wins (the token is consumed by a conditional UPDATE)."""
    if problem := auth.password_error(password):
        raise Invalid(problem, field="password")
    new_hash = auth.hash_password(password)
    with session_scope() as session:
        user = _link_account(session, token, use=True)
        user.password_hash = new_hash
        user.email_verified_at = user.email_verified_at or utcnow()
        user.updated_at = utcnow()
        session.add(user)
    return user
