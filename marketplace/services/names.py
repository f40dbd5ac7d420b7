"""How the app names people in what it shows and mails: one rule, so the home page, the dashboard, the avatar
menu, the admin lists and the e-mails never disagree (one said the username while another said 'User', the
receipt 'Hi customer,' while the sale mail used the first name), and role names read as English ('an admin',
not 'a admin')."""

from __future__ import annotations

from typing import Protocol


def display_name(*, first_name: str | None, last_name: str | None, username: str, short: bool = False) -> str:
    """The name the user gave, else the username (every account has one, so never a generic 'User').

    The full name labels a person (avatar menu, account tab, admin lists); `short=True` gives the first name
    (else the last name) for greetings ('Welcome back, {first name}!', as the spec words the dashboard header).
    """
    first, last = (first_name or "").strip(), (last_name or "").strip()
    given = first if short and first else f"{first} {last}".strip()
    return given or username.strip()


class Named(Protocol):
    first_name: str | None
    last_name: str | None
    username: str


def greeting_name(person: Named) -> str:
    """The name every greeting uses, on pages and in every e-mail ('Hi Carla,'): the short display name."""
    return greeting(first_name=person.first_name, last_name=person.last_name, username=person.username)


def greeting(*, first_name: str | None, last_name: str | None, username: str) -> str:
    """`greeting_name` of a person read as columns."""
    return display_name(first_name=first_name, last_name=last_name, username=username, short=True)


# Words that start with a vowel letter but a consonant sound ('a user', 'a unique', 'a one-off').
_CONSONANT_SOUND = ("us", "uni", "eu", "one")


def with_article(word: str) -> str:
    """'a vendor', 'an admin', 'a user': the indefinite article by the word's first sound (by spelling, which
    is enough for role names and the other plain words the app puts after an article)."""
    lower = word.lower()
    vowel_sound = lower[:1] in ("a", "e", "i", "o", "u") and not lower.startswith(_CONSONANT_SOUND)
    return f"{'an' if vowel_sound else 'a'} {word}"
