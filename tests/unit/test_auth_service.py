import time

import pyotp
import pytest

from marketplace.services import auth
from marketplace.services.errors import Conflict, Invalid, TooManyRequests, Unauthorized


def test_register_hashes_with_argon2id_and_signs_in():
    result = auth.register(username="alice", email="Alice@Example.com", password="secret1")
    assert result.user.password_hash.startswith("$argon2id$")
    assert result.user.email == "alice@example.com"
    assert result.two_factor is None
    user = auth.authenticate(identifier="ALICE@example.com", password="secret1", two_factor_code=None, address="a")
    assert user.id == result.user.id


@pytest.mark.parametrize(
    ("username", "email", "password", "message"),
    [
        ("ab", "a@b.co", "secret1", "Username must be at least 3 characters"),
        ("abc", "not-an-email", "secret1", "Please enter a valid email address"),
        ("abc", "a@b.co", "12345", "Password must be at least 6 characters"),
    ],
)
def test_register_validation(username, email, password, message):
    with pytest.raises(Invalid, match=message):
        auth.register(username=username, email=email, password=password)


def test_register_duplicate_username_and_email():
    auth.register(username="bob", email="bob@example.com", password="secret1")
    with pytest.raises(Conflict):
        auth.register(username="BOB", email="other@example.com", password="secret1")
    with pytest.raises(Conflict):
        auth.register(username="bobby", email="bob@example.com", password="secret1")


def test_wrong_password_is_refused():
    auth.register(username="carol", email="carol@example.com", password="secret1")
    with pytest.raises(Unauthorized, match="Invalid username or password"):
        auth.authenticate(identifier="carol", password="wrong!!", two_factor_code=None, address="a")
    with pytest.raises(Unauthorized, match="Invalid username or password"):
        auth.authenticate(identifier="nobody", password="wrong!!", two_factor_code=None, address="a")


def test_two_factor_required_after_confirmation():
    reg = auth.register(username="dave", email="dave@example.com", password="secret1", enable_2fa=True)
    assert reg.two_factor is not None and reg.two_factor.qr_code_svg.startswith("data:image/svg+xml;base64,")
    totp = pyotp.TOTP(reg.two_factor.secret)
    # Not enforced until confirmed with a valid code.
    auth.authenticate(identifier="dave", password="secret1", two_factor_code=None, address="a")
    with pytest.raises(Invalid):
        auth.confirm_two_factor(actor=reg.user, code="000000" if totp.now() != "000000" else "111111")
    auth.confirm_two_factor(actor=reg.user, code=totp.now())
    with pytest.raises(Unauthorized, match="code required") as missing:
        auth.authenticate(identifier="dave", password="secret1", two_factor_code=None, address="a")
    wrong = "123456" if totp.now() != "123456" else "654321"
    with pytest.raises(Unauthorized, match="Invalid two-factor") as bad_code:
        auth.authenticate(identifier="dave", password="secret1", two_factor_code=wrong, address="a")
    # The password was right both times: the error names the code, so the sign-in form keeps the password.
    assert missing.value.field == bad_code.value.field == "twoFactorCode"
    with pytest.raises(Unauthorized, match="Invalid username or password") as bad_password:
        auth.authenticate(identifier="dave", password="wrong-pass", two_factor_code=wrong, address="a")
    assert bad_password.value.field is None
    next_code = totp.at(time.time() + totp.interval)  # the confirmation spent the current step
    assert auth.authenticate(identifier="dave", password="secret1", two_factor_code=next_code, address="a")


def test_throttling_per_account_then_per_address():
    auth.register(username="erin", email="erin@example.com", password="secret1")
    for _ in range(5):
        with pytest.raises(Unauthorized):
            auth.authenticate(identifier="erin", password="bad-pass", two_factor_code=None, address="1.1.1.1")
    # Even the right password is refused while the account is throttled.
    with pytest.raises(TooManyRequests, match="Too many failed sign-in attempts"):
        auth.authenticate(identifier="erin", password="secret1", two_factor_code=None, address="2.2.2.2")
    for n in range(20):
        with pytest.raises(Unauthorized):
            auth.authenticate(identifier=f"ghost{n}", password="bad-pass", two_factor_code=None, address="9.9.9.9")
    with pytest.raises(TooManyRequests):
        auth.authenticate(identifier="someone", password="x", two_factor_code=None, address="9.9.9.9")


def _attempts() -> int:
    from sqlalchemy import func
    from sqlmodel import select

    from marketplace.db import session_scope
    from marketplace.models import LoginAttempt

    with session_scope() as session:
        return session.exec(select(func.count()).select_from(LoginAttempt)).one()


def test_good_sign_ins_do_not_lock_anyone_out(monkeypatch):
    from marketplace.config import settings

    monkeypatch.setattr(settings, "login_max_failures_per_address", 3)
    for n in range(4):
        auth.register(username=f"office{n}", email=f"office{n}@example.com", password="secret1")
    for _ in range(3):  # more sign-ins than either limit, from one address
        for n in range(4):
            assert auth.authenticate(identifier=f"office{n}", password="secret1", two_factor_code=None,
                                     address="10.9.9.9")
    assert _attempts() == 0


def test_a_success_does_not_wipe_earlier_failures_and_refusals_are_not_kept():
    auth.register(username="hal", email="hal@example.com", password="secret1")
    for _ in range(4):
        with pytest.raises(Unauthorized):
            auth.authenticate(identifier="hal", password="bad-pass", two_factor_code=None, address="3.3.3.3")
    # The owner signs in meanwhile: a guesser's count is not reset by it.
    assert auth.authenticate(identifier="hal", password="secret1", two_factor_code=None, address="4.4.4.4")
    with pytest.raises(Unauthorized):
        auth.authenticate(identifier="hal", password="bad-pass", two_factor_code=None, address="3.3.3.3")
    for _ in range(3):
        with pytest.raises(TooManyRequests):
            auth.authenticate(identifier="hal", password="secret1", two_factor_code=None, address="4.4.4.4")
    # Refused attempts checked nothing: only the five failures are kept (the lock ends with their window).
    assert _attempts() == 5


def test_a_missing_two_factor_code_is_not_counted():
    reg = auth.register(username="ivy", email="ivy@example.com", password="secret1", enable_2fa=True)
    auth.confirm_two_factor(actor=reg.user, code=pyotp.TOTP(reg.two_factor.secret).now())
    for _ in range(8):
        with pytest.raises(Unauthorized, match="code required"):
            auth.authenticate(identifier="ivy", password="secret1", two_factor_code=None, address="5.5.5.5")
    assert _attempts() == 0


def test_sessions_resolve_and_end():
    reg = auth.register(username="frank", email="frank@example.com", password="secret1")
    token = auth.create_session(user=reg.user)
    assert auth.user_for_token(token).id == reg.user.id
    assert auth.user_for_token("forged") is None
    auth.end_session(token=token)
    assert auth.user_for_token(token) is None


def test_a_two_factor_code_works_only_once():
    reg = auth.register(username="gina", email="gina@example.com", password="secret1", enable_2fa=True)
    totp = pyotp.TOTP(reg.two_factor.secret)
    auth.confirm_two_factor(actor=reg.user, code=totp.now())
    # The confirmation used the current step; a later step is needed to sign in.
    later = totp.at(time.time() + totp.interval)
    assert auth.authenticate(identifier="gina", password="secret1", two_factor_code=later, address="a")
    with pytest.raises(Unauthorized, match="Invalid two-factor"):
        auth.authenticate(identifier="gina", password="secret1", two_factor_code=later, address="a")


def test_registration_errors_name_every_bad_field_at_once():
    errors = auth.registration_errors(username="ab", email="nope", password="123", confirm_password="1234")
    assert errors == {
        "username": "Username must be at least 3 characters",
        "email": "Please enter a valid email address",
        "password": "Password must be at least 6 characters",
        "confirmPassword": "Passwords don't match",
    }
    assert auth.registration_errors(username="good_name", email="a@b.co", password="secret1",
                                    confirm_password="secret1") == {}


def test_profile_errors_are_the_rules_update_profile_enforces():
    from marketplace.services import users

    assert users.profile_errors(first_name=" ", last_name="x" * 101, email="bad") == {
        "firstName": "First name is required",
        "lastName": "Last name must be at most 100 characters",
        "email": "Invalid email address",
    }
    assert users.profile_errors(first_name="Ada", last_name="Lovelace", email="ada@example.com") == {}
