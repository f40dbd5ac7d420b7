"""How the app names people in what it shows: one rule, so the home page, the dashboard, the avatar menu and
the admin lists never disagree (one said the username while another said 'User'), and role names read as
English ('an admin', not 'a admin')."""

from __future__ import annotations


def display_name(*, first_name: str | None, last_name: str | None, username: str, short: bool = False) -> str:
    """The name the user gave, else the username (every account has one, so never a generic 'User').

    The full name labels a person (avatar menu, account tab, admin lists); `short=True` gives the first name
    (else the last name) for greetings ('Welcome back, {first name}!', as the spec words the dashboard header).
    """
    first, last = (first_name or "").strip(), (last_name or "").strip()
    given = first if short and first else f"{first} {last}".strip()
    return given or username.strip()


# Words that start with a vowel letter but a consonant sound ('a user', 'a unique', 'a one-off').
_CONSONANT_SOUND = ("us", "uni", "eu", "one")


def with_article(word: str) -> str:
    """'a vendor', 'an admin', 'a user': the indefinite article by the word's first sound (by spelling, which
    is enough for role names and the other plain words the app puts after an article)."""
    lower = word.lower()
    vowel_sound = lower[:1] in ("a", "e", "i", "o", "u") and not lower.startswith(_CONSONANT_SOUND)
    return f"{'an' if vowel_sound else 'a'} {word}"
