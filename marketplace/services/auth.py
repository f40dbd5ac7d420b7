"""Accounts and sign-in: registration, password and TOTP checks, throttling, server-side sessions."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

import pyotp
import qrcode
import qrcode.image.svg
from argon2 import Parameters, PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, or_
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import autocommit_scope, session_scope
from marketplace.models import TwoFactorSetup, User, UserSession
from marketplace.models.base import utcnow
from marketplace.services import account_tokens, ratelimit, session_cache, sign_in_throttle
from marketplace.services.errors import Conflict, Invalid, Unauthorized
from marketplace.services.text import NOT_ALLOWED, check_text, form_error, has_forbidden

SESSION_COOKIE = "mp_session"  # the browser cookie that carries a session token (set by the API, read by the pages)
PRODUCTION_HASHING = profiles.RFC_9106_LOW_MEMORY  # argon2id, the library's default: t=3, m=64 MiB, p=4


class _Hashing:
    """The one argon2 hasher (and the dummy hash a failed look-up is checked against to spend the same time)."""

    def __init__(self, parameters: Parameters) -> None:
        self.use(parameters)

    def use(self, parameters: Parameters) -> None:
        self.parameters = parameters
        self.hasher = PasswordHasher.from_parameters(parameters)
        self.dummy = self.hasher.hash("timing-equaliser")


_hashing = _Hashing(PRODUCTION_HASHING)


def use_hashing(parameters: Parameters) -> Parameters:
    """Swap the hashing cost; returns the previous parameters. For the test suite only (tests/conftest.py sets
    argon2's cheapest profile once for the run): a stored hash carries its own parameters, so hashes made at
    either cost still verify."""
    previous = _hashing.parameters
    _hashing.use(parameters)
    return previous
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
USERNAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
ISSUER = "AgentMarket"


@dataclass(frozen=True)
class Registration:
    user: User
    two_factor: TwoFactorSetup | None


def _off_the_event_loop() -> None:
    """argon2 takes tens of milliseconds of CPU: on an event loop (a Reflex state's handler) it stalls every page
    of that worker. Callers there use `await asyncio.to_thread(...)`; this makes a forgotten one fail loudly."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    msg = "password hashing on the event loop: call it through asyncio.to_thread"
    raise RuntimeError(msg)


def hash_password(password: str) -> str:
    _off_the_event_loop()
    return _hashing.hasher.hash(password)


def password_error(password: str) -> str | None:
    """The password rule (sign-up, change and reset alike)."""
    if has_forbidden(password):
        return "Password contains characters that are not allowed"
    if len(password) < 6:
        return "Password must be at least 6 characters"
    if len(password) > 256:
        return "Password must be at most 256 characters"
    return None


def password_ok(stored: str | None, password: str) -> bool:
    """Check a password against a stored hash; with no hash, still spend the time of a check."""
    return _password_ok(stored, password)


def _password_ok(stored: str | None, password: str) -> bool:
    _off_the_event_loop()
    try:
        return _hashing.hasher.verify(stored or _hashing.dummy, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def validate_email(email: str, *, message: str = "Please enter a valid email address") -> str:
    email = check_text(email, field="email", label="Email").strip().lower()
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


def new_totp_secret() -> str:
    return pyotp.random_base32()


def two_factor_setup(user: User) -> TwoFactorSetup:
    if not user.totp_secret:
        raise Invalid("Two-factor authentication is not set up")
    uri = pyotp.TOTP(user.totp_secret).provisioning_uri(name=user.email, issuer_name=ISSUER)
    svg = qrcode.make(uri, image_factory=qrcode.image.svg.SvgPathImage, box_size=10).to_string()
    data_uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    return TwoFactorSetup(secret=user.totp_secret, otpauth_url=uri, qr_code_svg=data_uri)


def accept_totp(user: User, code: str | None) -> bool:
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
    if has_forbidden(username):
        errors["username"] = NOT_ALLOWED.format(label="Username")
    elif len(username) < 3:
        errors["username"] = "Username must be at least 3 characters"
    elif len(username) > 64 or not USERNAME_RE.match(username):
        errors["username"] = "Username may only contain letters, digits, '.', '_' and '-' (at most 64)"
    try:
        validate_email(email)
    except Invalid as error:
        errors["email"] = error.message
    if problem := password_error(password):
        errors["password"] = problem
    if confirm_password is not None and confirm_password != password:
        errors["confirmPassword"] = "Passwords don't match"
    return errors


def register(*, username: str, email: str, password: str, enable_2fa: bool = False,
             address: str | None = None) -> Registration:
    """Create a customer account and send it an e-mail confirmation link; with 2FA the secret is issued now
    and enforced once confirmed. Rate-limited per client `address` (each costs a password hash)."""
    errors = registration_errors(username=username, email=email, password=password)
    if errors:
        raise form_error(*next(iter(errors.items())))
    ratelimit.hit_per_address(action="register", address=address, limit=settings.rate_limit_register)
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
            totp_secret=new_totp_secret() if enable_2fa else None,
        )
        session.add(user)
        session.flush()
        account_tokens.send_verification(session, user=user, email=email)
    return Registration(user=user, two_factor=two_factor_setup(user) if enable_2fa else None)


def confirm_two_factor(*, actor: User, code: str, keep_token: str | None = None) -> User:
    """Turn 2FA on once the user proves their authenticator produces valid codes; the user's other sessions
    end (a session opened without the second factor must not outlive its introduction)."""
    with session_scope() as session:
        user = session.get(User, actor.id)
        if user is None or not user.totp_secret:
            raise Invalid("Two-factor authentication was not requested for this account")
        if not accept_totp(user, code):
            raise Invalid("Invalid two-factor code", field="twoFactorCode")
        user.totp_enabled = True
        user.updated_at = utcnow()
        session.add(user)
        end_other_sessions(session, user_id=user.id, keep_token=keep_token)
    return user


def counted_password_ok(*, account: str, stored: str | None, password: str, address: str | None) -> bool:
    """A password check that counts in the sign-in throttle of `account` (a user's id): used where a signed-in
    user must give the current password, so it cannot be guessed there at leisure. `TooManyRequests` past the
    limit."""
    attempt = sign_in_throttle.begin(account=account, address=address)
    ok = _password_ok(stored, password)
    if ok:
        with session_scope() as session:
            sign_in_throttle.forget(session, attempt)
    return ok


def authenticate(*, identifier: str, password: str, two_factor_code: str | None, address: str) -> User:
    """Check credentials (and the TOTP code of a 2FA account). Each check is counted before it is made, per
    resolved account and per client address (services/sign_in_throttle.py); a failure stays counted."""
    check_text(identifier, field="username", label="Username or email")
    check_text(password, field="password", label="Password")
    if not identifier.strip():
        raise Invalid("Username or email is required", field="username")
    if not password:
        raise Invalid("Password is required", field="password")
    with session_scope() as session:
        found = _find_by_identifier(session, identifier)
    # Keyed on the account the identifier resolves to: its username and its e-mail share one count.
    attempt = sign_in_throttle.begin(account=found.id if found else identifier.strip().lower(), address=address)
    failure: Unauthorized | None = None
    with session_scope() as session:
        user = session.get(User, found.id) if found else None
        # `field` says which input was wrong: on a code failure the password was right, so the form keeps it.
        if not _password_ok(user.password_hash if user else None, password) or user is None \
                or user.deleted_at is not None:
            failure = Unauthorized("Invalid username or password")
        elif user.totp_enabled and not (two_factor_code or "").strip():
            # Not a guess at the password (it was right): not counted, the user just has to add the code.
            sign_in_throttle.forget(session, attempt)
            failure = Unauthorized("Two-factor authentication code required", field="twoFactorCode")
        elif user.totp_enabled and not accept_totp(user, two_factor_code):
            failure = Unauthorized("Invalid two-factor authentication code", field="twoFactorCode")
        else:
            sign_in_throttle.forget(session, attempt)
    if failure is not None:
        raise failure
    assert user is not None
    return user


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
    """The signed-in user of a live session (every signed-in request and websocket handler asks): reused while
    no user or session write has committed in any worker (`session_cache`: one Redis GET), else one statement."""
    if not token:
        return None
    token_hash, now = _hash_token(token), utcnow()
    known = session_cache.cache()
    cached, read_at = known.lookup(token_hash, now=now)
    if cached is not session_cache.MISS:
        return cached
    with autocommit_scope() as session:
        found = session.exec(select(UserSession.expires_at, User).join(User, User.id == UserSession.user_id)
                             .where(UserSession.token_hash == token_hash)).first()
    if found is None or found[0] <= now or found[1].deleted_at is not None:
        user, expires = None, None
    else:
        expires, user = found
    known.put(token_hash, user, session_expires=expires, read_at=read_at)
    return user


def end_session(*, token: str | None) -> None:
    if not token:
        return
    with session_scope() as session:
        session.exec(delete(UserSession).where(UserSession.token_hash == _hash_token(token)))


def end_all_sessions(session: Session, *, user_id: str) -> None:
    session.exec(delete(UserSession).where(UserSession.user_id == user_id))


def end_other_sessions(session: Session, *, user_id: str, keep_token: str | None) -> None:
    """End every session of the user except the one holding `keep_token` (the device making the change)."""
    query = delete(UserSession).where(UserSession.user_id == user_id)
    if keep_token:
        query = query.where(UserSession.token_hash != _hash_token(keep_token))
    session.exec(query)


def purge_expired() -> None:
    """Housekeeping on start: drop expired sessions and stale sign-in attempts."""
    with session_scope() as session:
        session.exec(delete(UserSession).where(UserSession.expires_at <= utcnow()))
    sign_in_throttle.purge()

