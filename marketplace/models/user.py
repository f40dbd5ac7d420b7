"""Accounts, sign-in sessions, linked OAuth identities and sign-in attempts; the requests and answers of the
sign-up, sign-in and account routes."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import pydantic
from sqlalchemy import Column, Index, String, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow


class Role(StrEnum):
    USER = "user"
    VENDOR = "vendor"
    ADMIN = "admin"


class User(SQLModel, table=True):
    __tablename__ = "users"
    # Admin customer and vendor tables: one role, not deleted, newest first; counts from the index (0011).
    __table_args__ = (Index("ix_users_admin_role_created", "role", "created_at", "id",
                            postgresql_where=text("deleted_at IS NULL"), sqlite_where=text("deleted_at IS NULL")),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    username: str = Field(sa_column=Column(String(64), unique=True, nullable=False))
    email: str = Field(sa_column=Column(String(255), unique=True, nullable=False))
    password_hash: str | None = Field(default=None, max_length=255)
    first_name: str | None = Field(default=None, max_length=100)
    last_name: str | None = Field(default=None, max_length=100)
    role: str = Field(default=Role.USER, max_length=16, index=True)
    profile_image_url: str | None = Field(default=None, max_length=1000)
    is_vendor_approved: bool = Field(default=False, index=True)
    totp_secret: str | None = Field(default=None, max_length=64)
    totp_enabled: bool = False
    totp_last_step: int | None = None  # last accepted TOTP time step: a code works once (RFC 6238 §5.2)
    email_verified_at: datetime | None = None  # set when a link sent to `email` was opened
    pending_email: str | None = Field(default=None, max_length=255)  # a new address awaiting its link
    stripe_account_id: str | None = Field(default=None, max_length=255)
    stripe_charges_enabled: bool = False
    stripe_payouts_enabled: bool = False
    stripe_details_submitted: bool = False
    # What Stripe still needs before the account can take charges or be paid (JSON list of field names).
    stripe_requirements_due: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    stripe_disabled_reason: str | None = Field(default=None, max_length=255)
    stripe_country: str | None = Field(default=None, max_length=2)
    stripe_default_currency: str | None = Field(default=None, max_length=3)
    # Optional details a business buyer files receipts under (revision 0031); copied onto each later receipt.
    business_name: str | None = Field(default=None, max_length=200)
    billing_address: str | None = Field(default=None, max_length=500)
    tax_id: str | None = Field(default=None, max_length=32)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    updated_at: datetime = Field(default_factory=utcnow)
    deleted_at: datetime | None = Field(default=None, index=True)


class OAuthAccount(SQLModel, table=True):
    __tablename__ = "oauth_accounts"
    __table_args__ = (UniqueConstraint("provider", "subject"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    provider: str = Field(max_length=32)
    subject: str = Field(max_length=255)
    email: str | None = Field(default=None, max_length=255)
    created_at: datetime = Field(default_factory=utcnow)


class UserSession(SQLModel, table=True):
    """Server-side session; only the SHA-256 of the cookie token is stored."""

    __tablename__ = "user_sessions"

    token_hash: str = Field(primary_key=True, max_length=64)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime = Field(index=True)


class TokenPurpose(StrEnum):
    VERIFY_EMAIL = "verify_email"
    RESET_PASSWORD = "reset_password"
    GUEST_SIGN_IN = "guest_sign_in"  # a guest buyer's receipt link: set a password, confirm the address


class AccountToken(SQLModel, table=True):
    """A single-use link sent by e-mail (verify an address, reset a password); only the token's hash is kept."""

    __tablename__ = "account_tokens"
    __table_args__ = (Index("ix_account_tokens_user_purpose", "user_id", "purpose"),)

    token_hash: str = Field(primary_key=True, max_length=64)
    user_id: str = Field(foreign_key="users.id", max_length=32, ondelete="CASCADE")
    purpose: str = Field(max_length=16)
    email: str = Field(max_length=255)  # the address the link was sent to (for verification: the one it confirms)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    used_at: datetime | None = None


class LoginAttempt(SQLModel, table=True):
    """A password check, counted per account and per address for throttling: written before the check, kept
    when it failed (services/sign_in_throttle.py)."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_account_created", "account", "created_at"),
        Index("ix_login_attempts_address_created", "address", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    account: str = Field(max_length=255)
    address: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class UserPublic(ApiModel):
    id: str
    username: str
    email: str
    first_name: str | None = None
    last_name: str | None = None
    role: str
    profile_image_url: str | None = None
    is_vendor_approved: bool = False
    two_factor_enabled: bool = False
    email_verified: bool = False
    pending_email: str | None = None
    business_name: str | None = None
    billing_address: str | None = None
    tax_id: str | None = None
    is_authenticated: bool = True
    created_at: datetime

    @classmethod
    def of(cls, user: User) -> UserPublic:
        return cls.model_validate(user).model_copy(
            update={"two_factor_enabled": user.totp_enabled, "email_verified": user.email_verified_at is not None})


class TwoFactorSetup(ApiModel):
    """Shown once after choosing 2FA at sign-up, so the user can add the account to an authenticator."""

    secret: str
    otpauth_url: str
    qr_code_svg: str


class RegisterOut(UserPublic):
    two_factor_setup: TwoFactorSetup | None = None


# ---- requests (`pydantic.Field`: input limits, not columns) -----------------------------------------------------


class RegisterIn(ApiInput):
    username: str = pydantic.Field(max_length=200)
    email: str = pydantic.Field(max_length=300)
    password: str = pydantic.Field(max_length=1000)
    enable_2fa: bool = pydantic.Field(default=False, alias="enable2FA")


class LoginIn(ApiInput):
    username: str = pydantic.Field(max_length=300)
    password: str = pydantic.Field(max_length=1000)
    enable_2fa: bool = pydantic.Field(default=False, alias="enable2FA")
    two_factor_code: str | None = pydantic.Field(default=None, max_length=6)


class TwoFactorConfirmIn(ApiInput):
    code: str = pydantic.Field(max_length=6)


class ProfileIn(ApiInput):
    first_name: str = pydantic.Field(max_length=200)
    last_name: str = pydantic.Field(max_length=200)
    email: str = pydantic.Field(max_length=300)
    current_password: str | None = pydantic.Field(default=None, max_length=1000)  # needed to change the e-mail
    # Optional receipt details; left out (null): unchanged, "": cleared. Checked by services/users.
    business_name: str | None = pydantic.Field(default=None, max_length=1000)
    billing_address: str | None = pydantic.Field(default=None, max_length=2000)
    tax_id: str | None = pydantic.Field(default=None, max_length=1000)


class ForgotPasswordIn(ApiInput):
    email: str = pydantic.Field(max_length=300)


class ResetPasswordIn(ApiInput):
    token: str = pydantic.Field(max_length=300)
    password: str = pydantic.Field(max_length=1000)


class VerifyEmailIn(ApiInput):
    token: str = pydantic.Field(max_length=300)


class ChangePasswordIn(ApiInput):
    current_password: str = pydantic.Field(max_length=1000)
    new_password: str = pydantic.Field(max_length=1000)


class CodeIn(ApiInput):
    code: str = pydantic.Field(max_length=6)
