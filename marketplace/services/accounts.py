"""What a user does to keep an account safe: confirm the e-mail, reset a forgotten password, change the
password or e-mail, turn two-factor authentication off, sign out everywhere.

Every change of a credential (password, second factor, e-mail) ends the user's other sessions; a reset ends
all of them. `keep_token` is the session token of the device making the change (None: end them all).
Password checks cost an argon2 hash: callers on an event loop run these functions in a thread.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import AccountToken, TokenPurpose, TwoFactorSetup, User
from marketplace.models.base import utcnow
from marketplace.services import account_tokens, auth, mail, mail_outbox, mail_texts, names, ratelimit
from marketplace.services.errors import Conflict, Invalid, Unauthorized
from marketplace.services.mail import OutgoingMail
from marketplace.services.permissions import require_user

HOUR = 3600
RESET_COMPOSER = "password-reset"
RESET_REQUESTED = ("If an account uses this e-mail address, we have sent it a link to reset the password. "
                   "Check your inbox.")
TOO_MANY_RESETS = "Too many password reset requests. Please try again later."
TOO_MANY_RESENDS = "Too many confirmation e-mails sent. Please try again later."
ALREADY_VERIFIED = "Your e-mail address is already confirmed"
WRONG_PASSWORD = "Current password is incorrect"
NO_PASSWORD = "This account has no password yet: use 'Forgot password?' on the sign-in page to set one"
EMAIL_TAKEN = "An account with this email already exists"


def _row(session: Session, actor: User | None) -> User:
    user = require_user(actor)
    row = session.get(User, user.id)
    if row is None or row.deleted_at is not None:
        raise Unauthorized("Unauthorized")
    return row


def check_current_password(*, actor: User | None, password: str | None, address: str | None) -> User:
    """The current password a change needs. Each check counts with the account's sign-in failures (same
    throttle, same limit), so it is no side door for guessing; run it before the change's own unit of work
    (the throttle commits its count on its own). Returns the user as stored."""
    with session_scope() as session:
        row = _row(session, actor)
    if not row.password_hash:
        raise Invalid(NO_PASSWORD, field="currentPassword")
    if not password or not auth.counted_password_ok(account=row.id, stored=row.password_hash, password=password,
                                                    address=address):
        raise Invalid(WRONG_PASSWORD, field="currentPassword")
    return row


# --- e-mail verification ---------------------------------------------------------------------------------------


def resend_verification(*, actor: User | None) -> str:
    """Send a new confirmation link (for the pending new address if there is one); returns where it went."""
    with session_scope() as session:
        row = _row(session, actor)
        target = row.pending_email or (None if row.email_verified_at else row.email)
        if target is None:
            raise Conflict(ALREADY_VERIFIED)
        ratelimit.hit(key=f"verify-resend:{row.id}", limit=settings.rate_limit_verification_resend,
                      window_seconds=HOUR, message=TOO_MANY_RESENDS)
        account_tokens.send_verification(session, user=row, email=target)
    return target


def verify_email(*, token: str) -> User:
    """Open a confirmation link: the address it was sent to becomes the account's confirmed e-mail."""
    with session_scope() as session:
        used = account_tokens.consume(session, token=token, purpose=TokenPurpose.VERIFY_EMAIL)
        row = session.get(User, used.user_id)
        if row is None or row.deleted_at is not None:
            raise Invalid(account_tokens.LINK_INVALID, field="token")
        if used.email != row.email:
            if used.email != row.pending_email:
                raise Invalid(account_tokens.LINK_INVALID, field="token")  # superseded by a later change
            if session.exec(select(User.id).where(User.email == used.email, User.id != row.id)).first():
                raise Conflict(EMAIL_TAKEN, field="email")
            row.email = used.email
        row.pending_email = None
        row.email_verified_at = row.updated_at = utcnow()
        session.add(row)
    return row


def confirmation_notice(*, confirmed: User, viewer_id: str | None) -> str:
    """What the confirmation page says: the link confirmed the account it was sent to, which is not
    necessarily the one signed in on this browser (that one is left as it was)."""
    if viewer_id and viewer_id == confirmed.id:
        return f"{confirmed.email} is now confirmed for your account."
    notice = f"{confirmed.email} is now confirmed for the account '{confirmed.username}'."
    if viewer_id:
        notice += " You are signed in with another account, which has not changed."
    return notice


def request_email_change(session: Session, row: User, *, email: str, keep_token: str | None) -> None:
    """Inside a profile update, once `check_current_password` passed: the new address waits in `pending_email`
    until its link is opened; the old address is told; the user's other sessions end."""
    if session.exec(select(User.id).where(User.email == email, User.id != row.id)).first():
        raise Conflict(EMAIL_TAKEN, field="email")
    row.pending_email = email
    account_tokens.send_verification(session, user=row, email=email)
    mail.send_after_commit(session, mail_texts.email_change_notice(to=row.email, name=names.greeting_name(row),
                                                                   new_email=email))
    auth.end_other_sessions(session, user_id=row.id, keep_token=keep_token)


# --- password reset ------------------------------------------------------------------------------------------


def request_password_reset(*, email: str, address: str) -> str:
    """Send a reset link if an account uses `email`. The answer is the same whether or not one does, and so is
    the work done to give it: the limits, then one outbox row whose composer looks the address up when the
    sender writes the mail. Neither the answer nor its timing tells. The limits count per client address and
    per e-mail address alike."""
    normalized = (email or "").strip().lower()[:255]
    if not normalized:
        raise Invalid("Email is required", field="email")
    ratelimit.hit(key=f"password-reset:{address}", limit=settings.rate_limit_password_reset,
                  window_seconds=settings.rate_limit_window_minutes * 60, message=TOO_MANY_RESETS)
    ratelimit.hit(key=f"password-reset-email:{normalized}", limit=settings.rate_limit_password_reset_per_email,
                  window_seconds=settings.rate_limit_window_minutes * 60, message=TOO_MANY_RESETS)
    with session_scope() as session:
        mail.compose_after_commit(session, composer=RESET_COMPOSER, to=normalized)
    return RESET_REQUESTED


@mail_outbox.composer(RESET_COMPOSER)
def compose_reset_link(session: Session, email: str) -> OutgoingMail | None:
    """Written by the outbox sender, off the request: a link for the account using `email`, if there is one."""
    row = session.exec(select(User).where(User.email == email, User.deleted_at.is_(None))).first()
    if row is None:
        return None
    minutes = settings.password_reset_minutes
    token = account_tokens.issue(session, user=row, purpose=TokenPurpose.RESET_PASSWORD, email=row.email,
                                 lifetime=timedelta(minutes=minutes))
    return mail_texts.password_reset(to=row.email, name=names.greeting_name(row), token=token,
                                     minutes=minutes)


def _reset_account(session: Session, used: AccountToken) -> User:
    """The account a reset link belongs to, while the link still fits it (the address it went to is the
    account's address now)."""
    row = session.get(User, used.user_id)
    if row is None or row.deleted_at is not None or used.email != row.email:
        raise Invalid(account_tokens.LINK_INVALID, field="token")
    return row


def check_reset_link(*, token: str) -> None:
    """Raise Invalid unless the reset link would work now: the page says so when it opens, not after the
    user chose a password. Nothing is used up."""
    with session_scope() as session:
        _reset_account(session, account_tokens.peek(session, token=token, purpose=TokenPurpose.RESET_PASSWORD))


def reset_password(*, token: str, password: str) -> User:
    """Set a new password from a reset link (single use, 1 hour); every session of the account ends. The
    link came to the account's address, so that address counts as confirmed."""
    if problem := auth.password_error(password):
        raise Invalid(problem, field="password")
    new_hash = auth.hash_password(password)
    with session_scope() as session:
        row = _reset_account(session, account_tokens.consume(session, token=token,
                                                             purpose=TokenPurpose.RESET_PASSWORD))
        row.password_hash = new_hash
        row.email_verified_at = row.email_verified_at or utcnow()
        row.updated_at = utcnow()
        session.add(row)
        auth.end_all_sessions(session, user_id=row.id)
    return row


# --- signed-in changes -------------------------------------------------------------------------------------


def change_password(*, actor: User | None, current_password: str, new_password: str,
                    keep_token: str | None, address: str | None = None) -> User:
    """Needs the current password (counted per account and per client `address`, as sign-in is); ends the
    user's other sessions and tells the account's address."""
    require_user(actor)
    if problem := auth.password_error(new_password):
        raise Invalid(problem, field="newPassword")
    check_current_password(actor=actor, password=current_password, address=address)
    new_hash = auth.hash_password(new_password)
    with session_scope() as session:
        row = _row(session, actor)
        row.password_hash = new_hash
        row.updated_at = utcnow()
        session.add(row)
        auth.end_other_sessions(session, user_id=row.id, keep_token=keep_token)
        mail.send_after_commit(session, mail_texts.password_changed(to=row.email, name=names.greeting_name(row)))
    return row


def sign_out_everywhere(*, actor: User | None) -> None:
    """End every session of the user, this device's included."""
    with session_scope() as session:
        row = _row(session, actor)
        auth.end_all_sessions(session, user_id=row.id)


def disable_two_factor(*, actor: User | None, code: str, keep_token: str | None) -> User:
    """Turning the second factor off needs a current code from it; the user's other sessions end."""
    with session_scope() as session:
        row = _row(session, actor)
        if not row.totp_enabled:
            raise Conflict("Two-factor authentication is not enabled")
        if not auth.accept_totp(row, code):
            raise Invalid("Invalid two-factor code", field="code")
        row.totp_enabled = False
        row.totp_secret = None
        row.totp_last_step = None
        row.updated_at = utcnow()
        session.add(row)
        auth.end_other_sessions(session, user_id=row.id, keep_token=keep_token)
    return row


def start_two_factor(*, actor: User | None) -> TwoFactorSetup:
    """Issue a new secret to add to an authenticator; 2FA is on once `auth.confirm_two_factor` accepts a code."""
    with session_scope() as session:
        row = _row(session, actor)
        if row.totp_enabled:
            raise Conflict("Two-factor authentication is already enabled")
        row.totp_secret = auth.new_totp_secret()
        row.totp_last_step = None
        session.add(row)
    return auth.two_factor_setup(row)
