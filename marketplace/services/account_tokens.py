"""Single-use links sent by e-mail: issued with a purpose and an expiry, stored only as a hash, used once.

Kept apart from `accounts` so that registration (in `auth`) can send its verification link without an
import cycle.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.models import AccountToken, TokenPurpose, User
from marketplace.models.base import utcnow
from marketplace.services import mail, mail_texts, names
from marketplace.services.errors import Invalid

LINK_INVALID = "This link is invalid or has expired. Please request a new one."
MAX_TOKEN_LENGTH = 200


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue(session: Session, *, user: User, purpose: TokenPurpose, email: str, lifetime: timedelta) -> str:
    """A new link token; earlier unused links of the same purpose stop working (only the newest counts)."""
    now = utcnow()
    session.exec(update(AccountToken).where(
        AccountToken.user_id == user.id, AccountToken.purpose == purpose, AccountToken.used_at.is_(None))
        .values(used_at=now))
    token = secrets.token_urlsafe(32)
    session.add(AccountToken(token_hash=hash_token(token), user_id=user.id, purpose=purpose, email=email,
                             created_at=now, expires_at=now + lifetime))
    return token


def _clean(token: str) -> str:
    token = (token or "").strip()
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise Invalid(LINK_INVALID, field="token")
    return token


def peek(session: Session, *, token: str, purpose: TokenPurpose) -> AccountToken:
    """The token's row if it would still work now (unused, unexpired, this purpose), without using it:
    a page can say at once that its link is dead. Refused alike, as `consume` refuses."""
    row = session.exec(select(AccountToken).where(
        AccountToken.token_hash == hash_token(_clean(token)), AccountToken.purpose == purpose,
        AccountToken.used_at.is_(None), AccountToken.expires_at > utcnow())).first()
    if row is None:
        raise Invalid(LINK_INVALID, field="token")
    return row


def consume(session: Session, *, token: str, purpose: TokenPurpose) -> AccountToken:
    """Mark the token used and return it; unknown, expired, used or other-purpose tokens are all refused
    alike. The conditional UPDATE makes two concurrent uses of one link end with exactly one winner."""
    digest, now = hash_token(_clean(token)), utcnow()
    used = session.exec(update(AccountToken).where(
        AccountToken.token_hash == digest, AccountToken.purpose == purpose, AccountToken.used_at.is_(None),
        AccountToken.expires_at > now).values(used_at=now)).rowcount
    row = session.exec(select(AccountToken).where(AccountToken.token_hash == digest)).first()
    if not used or row is None:
        raise Invalid(LINK_INVALID, field="token")
    return row


def send_verification(session: Session, *, user: User, email: str) -> None:
    """Queue a confirmation link for `email` (the account's address, or the new one it asked to use)."""
    hours = settings.email_verification_hours
    token = issue(session, user=user, purpose=TokenPurpose.VERIFY_EMAIL, email=email, lifetime=timedelta(hours=hours))
    mail.send_after_commit(session, mail_texts.verify_email(to=email, name=names.greeting_name(user), token=token,
                                                            hours=hours, new_address=email != user.email))
