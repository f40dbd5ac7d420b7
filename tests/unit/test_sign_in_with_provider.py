"""Provider sign-in linking rules, and the hardening of provider-supplied profile values."""

import pytest

from marketplace.services import sign_in_errors, users
from marketplace.services.errors import Invalid


def _sign_in(**overrides):
    values = {"provider": "github", "subject": "42", "email": "ada@example.com", "email_verified": True}
    return users.sign_in_with_provider(**(values | overrides))


def test_unverified_email_message_names_the_provider_properly():
    with pytest.raises(Invalid, match=r"^Your GitHub account has no verified e-mail address$") as refused:
        _sign_in(email_verified=False)
    assert refused.value.code == sign_in_errors.NO_VERIFIED_EMAIL  # what the /login address carries
    with pytest.raises(Invalid, match=r"^Your Google account has no verified e-mail address$"):
        _sign_in(provider="google", email_verified=False)


@pytest.mark.parametrize(("code", "provider", "shown"), [
    ("failed", "google", "Google sign-in failed. Please try again."),
    ("cancelled", "github", "GitHub sign-in was cancelled"),
    ("not_configured", "github", "GitHub sign-in is not configured"),
    ("two_factor_account", None, sign_in_errors.TWO_FACTOR_LINK_REFUSED),
    # Words of the address's own are never shown: unknown codes and providers get the generic text.
    ("Your account is locked, call +1-555", None, sign_in_errors.GENERIC),
    ("failed", "Your account is locked, call +1-555", sign_in_errors.GENERIC),
    ("{provider}", "google", sign_in_errors.GENERIC),
    ("", None, sign_in_errors.GENERIC),
])
def test_the_login_page_shows_only_its_own_texts_for_error_codes(code, provider, shown):
    assert sign_in_errors.text(code, provider) == shown


@pytest.mark.parametrize("subject", ["", "   ", "x" * 256])
def test_missing_or_oversized_subject_is_refused(subject):
    with pytest.raises(Invalid, match="The provider did not identify the account"):
        _sign_in(subject=subject)


def test_profile_values_are_trimmed_to_column_sizes():
    user = _sign_in(
        first_name="  " + "A" * 150, last_name="B" * 150 + " ", avatar_url="https://img.example/" + "x" * 990
    )
    assert user.first_name == "A" * 100
    assert user.last_name == "B" * 100
    assert user.profile_image_url is None  # longer than the column: dropped rather than cut into a broken URL


def test_non_http_avatar_url_is_dropped():
    assert _sign_in(avatar_url="javascript:alert(1)").profile_image_url is None
    assert _sign_in(subject="43", email="b@example.com", avatar_url="https://img.example/a.png").profile_image_url == (
        "https://img.example/a.png"
    )


def test_blank_names_become_none_and_subject_is_stripped():
    user = _sign_in(subject=" 42 ", first_name="  ", last_name="")
    assert (user.first_name, user.last_name) == (None, None)
    assert _sign_in(subject="42").id == user.id
