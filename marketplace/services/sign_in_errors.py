"""Why a sign-in through /login failed: the code its address carries, and the only texts the page shows.

Provider sign-in (Google, GitHub) is a browser navigation, so a failure sends the browser back to
`/login?error=<code>&provider=<provider>`. Anyone can craft and send such an address, so the page never shows
words taken from it: a known code shows its text below (with the provider's name, if the provider is known),
anything else the generic text.
"""

from __future__ import annotations

from marketplace.integrations.oauth import CANCELLED, FAILED, NOT_CONFIGURED, PROVIDER_NAMES

UNIDENTIFIED = "unidentified"
NO_VERIFIED_EMAIL = "no_verified_email"
ACCOUNT_DELETED = "account_deleted"
UNVERIFIED_ACCOUNT = "unverified_account"
TWO_FACTOR_ACCOUNT = "two_factor_account"

GENERIC = "Sign-in failed. Please try again."
UNVERIFIED_LINK_REFUSED = ("An account with this e-mail exists but has not confirmed it: sign in with your password "
                           "and confirm your e-mail first")
TWO_FACTOR_LINK_REFUSED = ("An account with this e-mail uses two-factor authentication: sign in with your password "
                           "and code")

TEXTS: dict[str, str] = {
    NOT_CONFIGURED: "{provider} sign-in is not configured",
    FAILED: "{provider} sign-in failed. Please try again.",
    CANCELLED: "{provider} sign-in was cancelled",
    NO_VERIFIED_EMAIL: "Your {provider} account has no verified e-mail address",
    UNIDENTIFIED: "The provider did not identify the account",
    ACCOUNT_DELETED: "This account has been deleted",
    UNVERIFIED_ACCOUNT: UNVERIFIED_LINK_REFUSED,
    TWO_FACTOR_ACCOUNT: TWO_FACTOR_LINK_REFUSED,
}


def text(code: str | None, provider: str | None = None) -> str:
    """What /login shows for `?error=code&provider=provider`: a known code's text, else the generic one (also
    when the text names a provider and the address names none we know)."""
    template = TEXTS.get(code or "")
    if template is None:
        return GENERIC
    if "{provider}" not in template:
        return template
    name = PROVIDER_NAMES.get(provider or "")
    return template.format(provider=name) if name else GENERIC
