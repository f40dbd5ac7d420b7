"""Accounts users expect, through /api: e-mail confirmation, password reset and change, sign out everywhere,
2FA off with a code, sessions ended by credential changes, e-mail change with password and confirmation.

Mail goes through the real path (task queue -> SMTP -> the test catcher); `mailbox` reads what arrived.
"""

from __future__ import annotations

from datetime import timedelta

import pyotp
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import AccountToken, User
from marketplace.models.base import utcnow
from marketplace.services import accounts
from marketplace.services.errors import Invalid
from tests.conftest import browser_client
from tests.factories import PASSWORD

NEW_PASSWORD = "brand-new-pass"


@pytest.fixture
def second_device():
    """Another browser: its own cookie jar."""
    with browser_client() as other:
        yield other


def _sign_in(client: TestClient, username: str, password: str = PASSWORD, **extra: str) -> None:
    response = client.post("/api/login", json={"username": username, "password": password, **extra})
    assert response.status_code == 200, response.text


def _signed_in(client: TestClient) -> bool:
    return client.get("/api/user").status_code == 200


# --- e-mail verification -------------------------------------------------------------------------------------


def test_sign_up_sends_a_confirmation_link_and_opening_it_confirms(client, mailbox):
    response = client.post("/api/register", json={"username": "vera", "email": "Vera@Example.com",
                                                  "password": PASSWORD})
    assert response.status_code == 201 and response.json()["emailVerified"] is False
    message = mailbox.last("vera@example.com", "Confirm your e-mail address")
    assert any(link.startswith(f"{settings.public_url}/verify-email?token=") for link in message.links)
    token = mailbox.token("vera@example.com", "/verify-email")
    confirmed = client.post("/api/auth/verify-email", json={"token": token})
    assert confirmed.status_code == 200 and confirmed.json()["emailVerified"] is True
    assert client.get("/api/user").json()["emailVerified"] is True
    again = client.post("/api/auth/verify-email", json={"token": token})
    assert again.status_code == 400 and again.json()["message"] == accounts.account_tokens.LINK_INVALID


@pytest.mark.parametrize("token", ["", "nope", "x" * 500])
def test_unknown_confirmation_tokens_are_refused(client, token):
    assert client.post("/api/auth/verify-email", json={"token": token}).status_code in (400, 422)


def test_resend_is_rate_limited_and_only_the_newest_link_works(client, make_user, login, mailbox, monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_verification_resend", 2)
    user = make_user("resender", verified=False)
    login(user)
    for _ in range(2):
        assert client.post("/api/auth/resend-verification").status_code == 200
    first, second = (m for m in reversed(mailbox.messages(user.email)))
    assert first.links != second.links
    limited = client.post("/api/auth/resend-verification")
    assert limited.status_code == 429 and limited.json()["message"] == accounts.TOO_MANY_RESENDS
    old_token = first.links[0].split("token=")[1]
    assert client.post("/api/auth/verify-email", json={"token": old_token}).status_code == 400
    assert client.post("/api/auth/verify-email", json={"token": mailbox.token(user.email, "/verify-email")}
                       ).status_code == 200


def test_resend_for_a_confirmed_address_is_a_conflict(client, make_user, login):
    login(make_user("confirmed"))
    assert client.post("/api/auth/resend-verification").status_code == 409
    client.post("/api/logout")
    assert client.post("/api/auth/resend-verification").status_code == 401


# --- password reset ------------------------------------------------------------------------------------------


def test_forgot_password_answers_the_same_for_unknown_addresses(client, make_user, mailbox):
    make_user("known", email="known@example.com")
    known = client.post("/api/auth/forgot-password", json={"email": "KNOWN@example.com"})
    unknown = client.post("/api/auth/forgot-password", json={"email": "nobody@example.com"})
    assert (known.status_code, unknown.status_code) == (200, 200)
    assert known.json() == unknown.json() == {"message": accounts.RESET_REQUESTED}
    assert [m.subject for m in mailbox.messages()] == ["Reset your password"]
    assert mailbox.messages()[0].to == ["known@example.com"]


def test_forgot_password_does_the_same_work_for_unknown_addresses(client, make_user, mailbox):
    """No timing to tell: the request runs the same statements either way, one outbox row for the address; the
    outbox sender looks the address up later, off the request's path, and writes a link only for an account."""
    from sqlalchemy import event, select

    from marketplace import db
    from marketplace.models import OutboxMail

    make_user("known", email="known@example.com")

    def work(email: str) -> list[str]:
        statements: list[str] = []

        def seen(_conn, _cursor, statement, _params, _context, _many) -> None:
            statements.append(statement)

        event.listen(db.engine(), "before_cursor_execute", seen)
        try:
            answer = client.post("/api/auth/forgot-password", json={"email": email})
        finally:
            event.remove(db.engine(), "before_cursor_execute", seen)
        assert answer.status_code == 200 and answer.json() == {"message": accounts.RESET_REQUESTED}
        return statements

    assert work("known@example.com") == work("nobody@example.com")
    with db.session_scope() as session:
        rows = session.exec(select(OutboxMail.recipient, OutboxMail.composer)).all()
    assert sorted(rows) == [("known@example.com", accounts.RESET_COMPOSER),
                            ("nobody@example.com", accounts.RESET_COMPOSER)]
    assert [(m.to, m.subject) for m in mailbox.messages()] == [(["known@example.com"], "Reset your password")]


def test_reset_sets_the_password_once_and_ends_every_session(client, second_device, make_user, mailbox):
    user = make_user("forgetful", verified=False)
    _sign_in(second_device, "forgetful")
    client.post("/api/auth/forgot-password", json={"email": user.email})
    token = mailbox.token(user.email, "/reset-password")
    short = client.post("/api/auth/reset-password", json={"token": token, "password": "123"})
    assert short.status_code == 400 and short.json()["field"] == "password"
    done = client.post("/api/auth/reset-password", json={"token": token, "password": NEW_PASSWORD})
    assert done.status_code == 200
    assert not _signed_in(second_device)
    assert client.post("/api/login", json={"username": "forgetful", "password": PASSWORD}).status_code == 401
    _sign_in(client, "forgetful", NEW_PASSWORD)
    assert client.get("/api/user").json()["emailVerified"] is True  # the link proved the mailbox
    reused = client.post("/api/auth/reset-password", json={"token": token, "password": "another-one"})
    assert reused.status_code == 400 and reused.json()["message"] == accounts.account_tokens.LINK_INVALID


def test_a_reset_link_is_checked_without_being_used(client, make_user, mailbox):
    user = make_user("checker")
    client.post("/api/auth/forgot-password", json={"email": user.email})
    token = mailbox.token(user.email, "/reset-password")
    accounts.check_reset_link(token=token)
    accounts.check_reset_link(token=f"  {token} ")  # as the reset itself, surrounding blanks do not count
    assert client.post("/api/auth/reset-password", json={"token": token, "password": NEW_PASSWORD}).status_code == 200
    for dead in (token, "", "   ", "x" * 500, "not-a-token", None):  # used, missing, absurd, unknown
        with pytest.raises(Invalid, match="invalid or has expired") as refused:
            accounts.check_reset_link(token=dead)  # type: ignore[arg-type]
        assert refused.value.field == "token"


def test_a_reset_link_is_dead_once_expired_or_the_address_changed(client, make_user, mailbox):
    user = make_user("mover")
    client.post("/api/auth/forgot-password", json={"email": user.email})
    token = mailbox.token(user.email, "/reset-password")
    with session_scope() as session:
        session.exec(update(User).where(User.id == user.id).values(email="elsewhere@example.com"))
    with pytest.raises(Invalid):
        accounts.check_reset_link(token=token)
    with session_scope() as session:
        session.exec(update(User).where(User.id == user.id).values(email=user.email))
        session.exec(update(AccountToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    with pytest.raises(Invalid):
        accounts.check_reset_link(token=token)


def test_the_confirmation_notice_names_the_account_the_link_confirmed(make_user):
    owner = make_user("owner")
    assert accounts.confirmation_notice(confirmed=owner, viewer_id=owner.id) == (
        f"{owner.email} is now confirmed for your account.")
    assert accounts.confirmation_notice(confirmed=owner, viewer_id=None) == (
        f"{owner.email} is now confirmed for the account 'owner'.")
    assert accounts.confirmation_notice(confirmed=owner, viewer_id="someone-else") == (
        f"{owner.email} is now confirmed for the account 'owner'. "
        "You are signed in with another account, which has not changed.")


def test_an_expired_reset_link_is_refused(client, make_user, mailbox):
    user = make_user("late")
    client.post("/api/auth/forgot-password", json={"email": user.email})
    token = mailbox.token(user.email, "/reset-password")
    with session_scope() as session:
        session.exec(update(AccountToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    expired = client.post("/api/auth/reset-password", json={"token": token, "password": NEW_PASSWORD})
    assert expired.status_code == 400
    _sign_in(client, "late")  # the old password still works


def test_reset_link_is_valid_for_one_hour(client, make_user, mailbox):
    user = make_user("timely")
    client.post("/api/auth/forgot-password", json={"email": user.email})
    assert mailbox.messages(user.email)  # the outbox sender has written the link
    with session_scope() as session:
        row = session.exec(AccountToken.__table__.select()).one()
    assert timedelta(minutes=59) < row.expires_at - row.created_at <= timedelta(hours=1)


def test_forgot_password_is_rate_limited_per_address_and_per_email(client, make_user, monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_password_reset", 3)
    monkeypatch.setattr(settings, "rate_limit_password_reset_per_email", 2)
    for _ in range(2):
        assert client.post("/api/auth/forgot-password", json={"email": "a@example.com"}).status_code == 200
    per_email = client.post("/api/auth/forgot-password", json={"email": "a@example.com"})
    assert per_email.status_code == 429 and per_email.json()["message"] == accounts.TOO_MANY_RESETS
    # that refused request still counted against the address: the next one (another e-mail) is over its limit
    assert client.post("/api/auth/forgot-password", json={"email": "b@example.com"}).status_code == 429


# --- change password, sign out everywhere --------------------------------------------------------------------


def test_change_password_needs_the_current_one_and_ends_other_sessions(client, second_device, make_user, mailbox):
    user = make_user("changer")
    _sign_in(client, "changer")
    _sign_in(second_device, "changer")
    wrong = client.put("/api/user/password", json={"currentPassword": "wrong", "newPassword": NEW_PASSWORD})
    assert wrong.status_code == 400 and wrong.json()["field"] == "currentPassword"
    assert _signed_in(second_device)
    weak = client.put("/api/user/password", json={"currentPassword": PASSWORD, "newPassword": "x"})
    assert weak.status_code == 400 and weak.json()["field"] == "newPassword"
    done = client.put("/api/user/password", json={"currentPassword": PASSWORD, "newPassword": NEW_PASSWORD})
    assert done.status_code == 200
    assert _signed_in(client) and not _signed_in(second_device)
    assert mailbox.last(user.email).subject == "Your password was changed"
    _sign_in(second_device, "changer", NEW_PASSWORD)


@pytest.mark.parametrize("path", ["/api/user/password", "/api/user/profile"])
def test_current_password_guesses_count_with_the_sign_in_failures(client, second_device, make_user, path):
    make_user("guessed")
    _sign_in(client, "guessed")
    limit = settings.login_max_failures_per_account

    def guess(n: int) -> int:
        body = ({"currentPassword": f"guess-{n}", "newPassword": NEW_PASSWORD} if path.endswith("password")
                else _profile("elsewhere@example.com", f"guess-{n}"))
        return client.put(path, json=body).status_code

    answers = [guess(n) for n in range(40)]
    assert answers == [400] * limit + [429] * (40 - limit)
    refused = client.put(path, json={"currentPassword": PASSWORD, "newPassword": NEW_PASSWORD}
                         if path.endswith("password") else _profile("elsewhere@example.com", PASSWORD))
    assert refused.status_code == 429 and refused.json()["message"].startswith("Too many failed sign-in attempts")
    # One throttle: the account's sign-in waits too, whoever asks.
    assert second_device.post("/api/login", json={"username": "guessed", "password": PASSWORD}).status_code == 429


def test_sign_in_failures_and_current_password_guesses_share_one_count(client, second_device, make_user):
    make_user("shared")
    _sign_in(client, "shared")
    limit = settings.login_max_failures_per_account
    for n in range(limit - 1):
        assert second_device.post("/api/login", json={"username": "shared", "password": f"x-{n}"}).status_code == 401
    last = client.put("/api/user/password", json={"currentPassword": "x-last", "newPassword": NEW_PASSWORD})
    assert last.status_code == 400
    over = client.put("/api/user/password", json={"currentPassword": PASSWORD, "newPassword": NEW_PASSWORD})
    assert over.status_code == 429


def test_password_and_email_changes_refuse_no_user_and_bad_input(make_user):
    from marketplace.services import users
    from marketplace.services.errors import Invalid, Unauthorized

    with pytest.raises(Unauthorized):
        accounts.change_password(actor=None, current_password=PASSWORD, new_password=NEW_PASSWORD, keep_token=None)
    with pytest.raises(Unauthorized):
        users.update_profile(actor=None, first_name="A", last_name="B", email="a@example.com",
                             current_password=PASSWORD)
    user = make_user("careful")
    with pytest.raises(Invalid) as empty:  # no password typed: refused without a check, nothing counted
        accounts.change_password(actor=user, current_password="", new_password=NEW_PASSWORD, keep_token=None)
    assert empty.value.field == "currentPassword"
    with pytest.raises(Invalid) as weak:
        accounts.change_password(actor=user, current_password=PASSWORD, new_password="x", keep_token=None)
    assert weak.value.field == "newPassword"
    with pytest.raises(Invalid):
        accounts.request_password_reset(email="  ", address="10.0.0.1")


def test_sign_out_of_all_devices(client, second_device, make_user):
    make_user("everywhere")
    _sign_in(client, "everywhere")
    _sign_in(second_device, "everywhere")
    assert client.post("/api/logout/all").status_code == 204
    assert not _signed_in(client) and not _signed_in(second_device)
    assert client.post("/api/logout/all").status_code == 401


def test_signing_in_again_replaces_this_browsers_session(client):
    client.post("/api/register", json={"username": "twice", "email": "twice@example.com", "password": PASSWORD})
    old = client.cookies.get("mp_session")
    _sign_in(client, "twice")
    assert client.cookies.get("mp_session") != old
    with browser_client(cookies={"mp_session": old}) as stale:
        assert not _signed_in(stale)


# --- two-factor authentication -------------------------------------------------------------------------------


def _enable_two_factor(client: TestClient) -> pyotp.TOTP:
    setup = client.post("/api/user/2fa/setup")
    assert setup.status_code == 200, setup.text
    totp = pyotp.TOTP(setup.json()["secret"])
    assert client.post("/api/user/2fa/confirm", json={"code": totp.now()}).status_code == 200
    return totp


def test_enabling_two_factor_ends_other_sessions(client, second_device, make_user):
    make_user("twofa")
    _sign_in(client, "twofa")
    _sign_in(second_device, "twofa")
    _enable_two_factor(client)
    assert _signed_in(client) and not _signed_in(second_device)
    assert client.post("/api/user/2fa/setup").status_code == 409


def test_disabling_two_factor_needs_a_current_code_and_ends_other_sessions(client, second_device, make_user):
    make_user("untwofa")
    _sign_in(client, "untwofa")
    totp = _enable_two_factor(client)
    with session_scope() as session:  # the confirming code's step is used up: let the next one count
        session.exec(update(User).where(User.username == "untwofa").values(totp_last_step=None))
    _sign_in(second_device, "untwofa", twoFactorCode=totp.now())
    wrong = client.post("/api/user/2fa/disable", json={"code": "000000" if totp.now() != "000000" else "111111"})
    assert wrong.status_code == 400 and _signed_in(second_device)
    with session_scope() as session:
        session.exec(update(User).where(User.username == "untwofa").values(totp_last_step=None))
    done = client.post("/api/user/2fa/disable", json={"code": totp.now()})
    assert done.status_code == 200 and done.json()["twoFactorEnabled"] is False
    assert _signed_in(client) and not _signed_in(second_device)
    _sign_in(second_device, "untwofa")  # no code needed any more


# --- e-mail change -------------------------------------------------------------------------------------------


def _profile(email: str, password: str | None = None) -> dict[str, str]:
    body = {"firstName": "Ed", "lastName": "Mail", "email": email}
    return body | ({"currentPassword": password} if password is not None else {})


def test_email_change_needs_the_password_and_confirmation(client, second_device, make_user, mailbox):
    user = make_user("mover", email="old@example.com")
    _sign_in(client, "mover")
    _sign_in(second_device, "mover")
    missing = client.put("/api/user/profile", json=_profile("new@example.com"))
    assert missing.status_code == 400 and missing.json()["field"] == "currentPassword"
    wrong = client.put("/api/user/profile", json=_profile("new@example.com", "wrong"))
    assert wrong.status_code == 400 and wrong.json()["message"] == accounts.WRONG_PASSWORD
    assert _signed_in(second_device)

    asked = client.put("/api/user/profile", json=_profile("new@example.com", PASSWORD))
    assert asked.status_code == 200
    assert (asked.json()["email"], asked.json()["pendingEmail"]) == ("old@example.com", "new@example.com")
    assert not _signed_in(second_device)  # other sessions end
    assert mailbox.last("old@example.com").subject == "Your e-mail address is being changed"
    # Until confirmed, the old address is the account's: sign-in and password reset use it.
    _sign_in(second_device, "old@example.com")
    token = mailbox.token("new@example.com", "/verify-email")
    confirmed = client.post("/api/auth/verify-email", json={"token": token})
    assert confirmed.status_code == 200
    assert (confirmed.json()["email"], confirmed.json()["pendingEmail"]) == ("new@example.com", None)
    with session_scope() as session:
        assert session.get(User, user.id).email == "new@example.com"


def test_names_change_without_a_password(client, make_user):
    make_user("namer")
    _sign_in(client, "namer")
    response = client.put("/api/user/profile", json=_profile("namer@example.com"))
    assert response.status_code == 200 and response.json()["firstName"] == "Ed"


def test_a_pending_address_taken_meanwhile_is_not_applied(client, make_user, mailbox):
    make_user("slow", email="slow@example.com")
    _sign_in(client, "slow")
    client.put("/api/user/profile", json=_profile("wanted@example.com", PASSWORD))
    token = mailbox.token("wanted@example.com", "/verify-email")
    make_user("fast", email="wanted@example.com")
    assert client.post("/api/auth/verify-email", json={"token": token}).status_code == 409


def test_an_account_without_a_password_cannot_change_its_email(client, make_user):
    user = make_user("ssoonly")
    with session_scope() as session:
        session.exec(update(User).where(User.id == user.id).values(password_hash=None))
    from marketplace.services import auth

    token = auth.create_session(user=user)
    client.cookies.set("mp_session", token)
    refused = client.put("/api/user/profile", json=_profile("else@example.com", "anything"))
    assert refused.status_code == 400 and refused.json()["message"] == accounts.NO_PASSWORD
