"""Registration, sign-in and the current user."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import RedirectResponse

from marketplace.api.deps import (
    SESSION_COOKIE,
    OptionalUser,
    SignedInUser,
    clear_session_cookie,
    client_address,
    set_session_cookie,
)
from marketplace.models import UserPublic
from marketplace.models.user import LoginIn, ProfileIn, RegisterIn, RegisterOut, TwoFactorConfirmIn
from marketplace.services import auth, users
from marketplace.services.permissions import require_user

router = APIRouter(prefix="/api", tags=["accounts"])


@router.post("/register", response_model=RegisterOut, status_code=201)
def register(body: RegisterIn, request: Request, response: Response) -> RegisterOut:
    result = auth.register(
        username=body.username, email=body.email, password=body.password, enable_2fa=body.enable_2fa,
        address=client_address(request),
    )
    set_session_cookie(response, auth.create_session(user=result.user))
    return RegisterOut(**UserPublic.of(result.user).model_dump(), two_factor_setup=result.two_factor)


@router.post("/login", response_model=UserPublic)
def login(body: LoginIn, request: Request, response: Response) -> UserPublic:
    user = auth.authenticate(
        identifier=body.username,
        password=body.password,
        two_factor_code=body.two_factor_code,
        address=client_address(request),
    )
    auth.end_session(token=request.cookies.get(SESSION_COOKIE))  # a new token at every sign-in
    set_session_cookie(response, auth.create_session(user=user))
    return UserPublic.of(user)


@router.get("/login", status_code=302, response_class=RedirectResponse,
            responses={302: {"description": "To the sign-in page (/login)"}})
def login_page() -> RedirectResponse:
    """A link or a typed address that lands on the API's sign-in path goes to the sign-in page."""
    return RedirectResponse("/login", status_code=302)


@router.post("/logout", status_code=204)
def logout(request: Request, response: Response) -> None:
    auth.end_session(token=request.cookies.get(SESSION_COOKIE))
    clear_session_cookie(response)


@router.get("/user", response_model=UserPublic)
@router.get("/auth/user", response_model=UserPublic)
def current_user(user: OptionalUser) -> UserPublic:
    return UserPublic.of(require_user(user))


@router.post("/user/2fa/confirm", response_model=UserPublic)
def confirm_two_factor(body: TwoFactorConfirmIn, request: Request, user: SignedInUser) -> UserPublic:
    """Turns 2FA on; the user's other sessions end."""
    return UserPublic.of(auth.confirm_two_factor(actor=user, code=body.code,
                                                 keep_token=request.cookies.get(SESSION_COOKIE)))


@router.put("/user/profile", response_model=UserPublic)
def update_profile(body: ProfileIn, request: Request, user: SignedInUser) -> UserPublic:
    """A new e-mail needs `currentPassword`; it waits in `pendingEmail` until confirmed by the link sent to it.
    `businessName`, `billingAddress`, `taxId` (optional; "" clears one) go on receipts numbered afterwards."""
    return UserPublic.of(users.update_profile(
        actor=user, first_name=body.first_name, last_name=body.last_name, email=body.email,
        current_password=body.current_password, keep_token=request.cookies.get(SESSION_COOKIE),
        address=client_address(request), business_name=body.business_name, billing_address=body.billing_address,
        tax_id=body.tax_id))

