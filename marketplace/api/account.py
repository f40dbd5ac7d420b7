"""Keeping an account safe: e-mail confirmation, password reset and change, 2FA on/off, sign out everywhere."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from marketplace.api.deps import (
    SESSION_COOKIE,
    SignedInUser,
    clear_session_cookie,
    client_address,
    set_session_cookie,
)
from marketplace.models import MessageOut, TwoFactorSetup, UserPublic
from marketplace.models.user import ChangePasswordIn, CodeIn, ForgotPasswordIn, ResetPasswordIn, VerifyEmailIn
from marketplace.services import accounts, auth, guest_checkout

router = APIRouter(prefix="/api", tags=["accounts"])


def _token(request: Request) -> str | None:
    return request.cookies.get(SESSION_COOKIE)


@router.post("/auth/forgot-password", response_model=MessageOut)
def forgot_password(body: ForgotPasswordIn, request: Request) -> MessageOut:
    """The same answer whether or not an account uses the address (429 past the request limits)."""
    return MessageOut(message=accounts.request_password_reset(email=body.email, address=client_address(request)))


@router.post("/auth/reset-password", response_model=MessageOut)
def reset_password(body: ResetPasswordIn, response: Response) -> MessageOut:
    """Single-use link token, valid for an hour; every session of the account ends (this browser's too)."""
    accounts.reset_password(token=body.token, password=body.password)
    clear_session_cookie(response)
    return MessageOut(message="Your password has been reset. Please sign in with your new password.")


@router.post("/auth/guest-password", response_model=UserPublic)
def guest_password(body: ResetPasswordIn, request: Request, response: Response) -> UserPublic:
    """A guest buyer's receipt link (single use, 24 hours): sets the password, confirms the address and signs
    the buyer in on this browser."""
    user = guest_checkout.set_password(token=body.token, password=body.password)
    auth.end_session(token=_token(request))  # whoever was signed in here, the buyer is now
    set_session_cookie(response, auth.create_session(user=user))
    return UserPublic.of(user)


@router.post("/auth/verify-email", response_model=UserPublic)
def verify_email(body: VerifyEmailIn) -> UserPublic:
    return UserPublic.of(accounts.verify_email(token=body.token))


@router.post("/auth/resend-verification", response_model=MessageOut)
def resend_verification(user: SignedInUser) -> MessageOut:
    sent_to = accounts.resend_verification(actor=user)
    return MessageOut(message=f"We sent a new confirmation link to {sent_to}.")


@router.put("/user/password", response_model=MessageOut)
def change_password(body: ChangePasswordIn, request: Request, user: SignedInUser) -> MessageOut:
    """Needs the current password (guesses count with the account's sign-in failures: 429 past the limit); the
    user's other sessions end, this one stays."""
    accounts.change_password(actor=user, current_password=body.current_password, new_password=body.new_password,
                             keep_token=_token(request), address=client_address(request))
    return MessageOut(message="Your password has been changed. Your other sessions were signed out.")


@router.post("/logout/all", status_code=204)
def logout_everywhere(user: SignedInUser, response: Response) -> None:
    accounts.sign_out_everywhere(actor=user)
    clear_session_cookie(response)


@router.post("/user/2fa/setup", response_model=TwoFactorSetup)
def start_two_factor(user: SignedInUser) -> TwoFactorSetup:
    """A new secret for an authenticator app; `POST /api/user/2fa/confirm` with a code turns 2FA on."""
    return accounts.start_two_factor(actor=user)


@router.post("/user/2fa/disable", response_model=UserPublic)
def disable_two_factor(body: CodeIn, request: Request, user: SignedInUser) -> UserPublic:
    """Needs a current code; the user's other sessions end."""
    return UserPublic.of(accounts.disable_two_factor(actor=user, code=body.code, keep_token=_token(request)))
