"""Accounts and sign-in: registration, password and TOTP checks, throttling, server-side sessions."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

import pyotp
import qrcode
import qrcode.image.svg
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, or_
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import LoginAttempt, TwoFactorSetup, User, UserSession
from marketplace.models.base import utcnow
from marketplace.services.errors import Conflict, Invalid, TooManyRequests, Unauthorized

_hasher = PasswordHasher()  # argon2id with the library's recommended parameters
_DUMMY_HASH = _hasher.hash("timing-equaliser")
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
USERNAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
ISSUER = "AgentMarket"


@dataclass(frozen=True)
class Registration:
    user: User
    two_factor: TwoFactorSetup | None


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def _password_ok(stored: str | None, password: str) -> bool:
    try:
        return _hasher.verify(stored or _DUMMY_HASH, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def validate_email(email: str, *, message: str = "Please enter a valid email address") -> str:
    email = email.strip().lower()
    if len(email) > 255 or not EMAIL_RE.match(email):
        raise Invalid(message, field="email")
    return email


def _find_by_identifier(session: Session, identifier: str) -> User | None:
    ident = identifier.strip().lower()
    return session.exec(
        select(User).where(
            or_(func.lower(User.username) == ident, User.email == ident), User.deleted_at.is_(None)
        )
    ).first()


def two_factor_setup(user: User) -> TwoFactorSetup:
    if not user.totp_secret:
        raise Invalid("Two-factor authentication is not set up")
    uri = pyotp.TOTP(user.totp_secret).provisioning_uri(name=user.email, issuer_name=ISSUER)
    svg = qrcode.make(uri, image_factory=qrcode.image.svg.SvgPathImage, box_size=10).to_string()
    data_uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    return TwoFactorSetup(secret=user.totp_secret, otpauth_url=uri, qr_code_svg=data_uri)


def _accept_totp(user: User, code: str | None) -> bool:
    """Accept a code of the current step (or one step either side), never the same step twice."""
    code = (code or "").strip()
    if not user.totp_secret or len(code) != 6 or not code.isdigit():
        return False
    totp = pyotp.TOTP(user.totp_secret)
    now = utcnow()
    for drift in (0, -1, 1):
        at = now + timedelta(seconds=drift * totp.interval)
        step = totp.timecode(at)
        if secrets.compare_digest(totp.at(at), code) and (user.totp_last_step or -1) < step:
            user.totp_last_step = step
            return True
    return False


def registration_errors(*, username: str, email: str, password: str, confirm_password: str | None = None
                        ) -> dict[str, str]:
    """Every problem of a sign-up form by field (the sign-up page shows them all at once; `register` the first)."""
    errors: dict[str, str] = {}
    username = username.strip()
    if len(username) < 3:
        errors["username"] = "Username must be at least 3 characters"
    elif len(username) > 64 or not USERNAME_RE.match(username):
        errors["username"] = "Username may only contain letters, digits, '.', '_' and '-' (at most 64)"
    try:
        validate_email(email)
    except Invalid as error:
        errors["email"] = error.message
    if len(password) < 6:
        errors["password"] = "Password must be at least 6 characters"
    elif len(password) > 256:
        errors["password"] = "Password must be at most 256 characters"
    if confirm_password is not None and confirm_password != password:
        errors["confirmPassword"] = "Passwords don't match"
    return errors


def register(*, username: str, email: str, password: str, enable_2fa: bool = False) -> Registration:
    """Create a customer account; with 2FA the secret is issued now and enforced once confirmed."""
    errors = registration_errors(username=username, email=email, password=password)
    if errors:
        field, message = next(iter(errors.items()))
        raise Invalid(message, field=field)
    username, email = username.strip(), email.strip().lower()
    with session_scope() as session:
        if session.exec(select(User.id).where(func.lower(User.username) == username.lower())).first():
            raise Conflict("Username is already taken", field="username")
        if session.exec(select(User.id).where(User.email == email)).first():
            raise Conflict("An account with this email already exists", field="email")
        user = User(
            username=username,
            email=email,
            password_hash=hash_password(password),
            totp_secret=pyotp.random_base32() if enable_2fa else None,
        )
        session.add(user)
    return Registration(user=user, two_factor=two_factor_setup(user) if enable_2fa else None)


def confirm_two_factor(*, actor: User, code: str) -> User:
    """Turn 2FA on once the user proves their authenticator produces valid codes."""
    with session_scope() as session:
        user = session.get(User, actor.id)
        if user is None or not user.totp_secret:
            raise Invalid("Two-factor authentication was not requested for this account")
        if not _accept_totp(user, code):
            raise Invalid("Invalid two-factor code", field="twoFactorCode")
        user.totp_enabled = True
        user.updated_at = utcnow()
        session.add(user)
    return user


def _throttle(session: Session, *, account: str, address: str) -> None:
    since = utcnow() - timedelta(minutes=settings.login_window_minutes)
    per_account = session.exec(
        select(func.count()).select_from(LoginAttempt).where(
            LoginAttempt.account == account, LoginAttempt.created_at >= since
        )
    ).one()
    per_address = session.exec(
        select(func.count()).select_from(LoginAttempt).where(
            LoginAttempt.address == address, LoginAttempt.created_at >= since
        )
    ).one()
    if per_account >= settings.login_max_failures_per_account or per_address >= settings.login_max_failures_per_address:
        raise TooManyRequests(
            f"Too many failed sign-in attempts. Please try again in {settings.login_window_minutes} minutes."
        )


def _record_failure(*, account: str, address: str) -> None:
    with session_scope() as session:
        session.add(LoginAttempt(account=account, address=address))


def authenticate(*, identifier: str, password: str, two_factor_code: str | None, address: str) -> User:
    """Check credentials (and the TOTP code of a 2FA account); failures count towards throttling."""
    if not identifier.strip():
        raise Invalid("Username or email is required", field="username")
    if not password:
        raise Invalid("Password is required", field="password")
    account = identifier.strip().lower()[:255]
    with session_scope() as session:
        _throttle(session, account=account, address=address)
        user = _find_by_identifier(session, identifier)
        if not _password_ok(user.password_hash if user else None, password) or user is None:
            failure = "Invalid username or password"
        elif user.totp_enabled and not (two_factor_code or "").strip():
            # Not a guess at the password: do not count it, the user just has to add the code.
            raise Unauthorized("Two-factor authentication code required")
        elif user.totp_enabled and not _accept_totp(user, two_factor_code):
            failure = "Invalid two-factor authentication code"
        else:
            session.add(user)
            session.exec(delete(LoginAttempt).where(LoginAttempt.account == account))
            return user
    _record_failure(account=account, address=address)
    raise Unauthorized(failure)


def create_session(*, user: User) -> str:
    """Issue an opaque token; only its hash is stored."""
    token = secrets.token_urlsafe(32)
    with session_scope() as session:
        session.add(
            UserSession(
                token_hash=_hash_token(token),
                user_id=user.id,
                expires_at=utcnow() + timedelta(days=settings.session_days),
            )
        )
    return token


def user_for_token(token: str | None) -> User | None:
    if not token:
        return None
    with session_scope() as session:
        row = session.get(UserSession, _hash_token(token))
        if row is None or row.expires_at <= utcnow():
            return None
        user = session.get(User, row.user_id)
        if user is None or user.deleted_at is not None:
            return None
        return user


def end_session(*, token: str | None) -> None:
    if not token:
        return
    with session_scope() as session:
        session.exec(delete(UserSession).where(UserSession.token_hash == _hash_token(token)))


def end_all_sessions(session: Session, *, user_id: str) -> None:
    session.exec(delete(UserSession).where(UserSession.user_id == user_id))


def purge_expired() -> None:
    """Housekeeping on start: drop expired sessions and stale failure records."""
    now = utcnow()
    with session_scope() as session:
        session.exec(delete(UserSession).where(UserSession.expires_at <= now))
        session.exec(
            delete(LoginAttempt).where(
                LoginAttempt.created_at < now - timedelta(minutes=settings.login_window_minutes)
            )
        )

