"""The one naming rule: the home greeting, the dashboard header, the avatar menu and the admin lists agree."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from marketplace.services.names import display_name, greeting_name, with_article


@pytest.mark.parametrize(("first", "last", "full", "short"), [
    ("Carla", "Customer", "Carla Customer", "Carla"),
    ("Carla", None, "Carla", "Carla"),
    (None, "Customer", "Customer", "Customer"),
    ("  ", "", "newbie", "newbie"),  # blank names are no names: the username, never a generic 'User'
    (None, None, "newbie", "newbie"),
])
def test_display_name_is_the_given_name_else_the_username(first, last, full, short):
    assert display_name(first_name=first, last_name=last, username="newbie") == full
    assert display_name(first_name=first, last_name=last, username="newbie", short=True) == short
    assert greeting_name(SimpleNamespace(first_name=first, last_name=last, username="newbie")) == short


@pytest.mark.parametrize(("word", "phrase"), [
    ("admin", "an admin"), ("vendor", "a vendor"), ("user", "a user"), ("Editor", "an Editor"),
    ("unique", "a unique"), ("order", "an order"),
])
def test_with_article(word, phrase):
    assert with_article(word) == phrase
