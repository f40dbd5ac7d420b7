"""`?next=` after sign-in and sign-up (issue 34): only this site's own pages, never another site or an API."""

from __future__ import annotations

import pytest

from marketplace.services.return_paths import safe_next, with_next


@pytest.mark.parametrize("path", ["/checkout/abc123", "/agents/x?tab=reviews", "/dashboard?tab=orders#keys", "/"])
def test_a_page_of_this_site_is_kept(path: str):
    assert safe_next(path) == path


@pytest.mark.parametrize("path", [
    None, "", "checkout/abc", "https://evil.example/", "http:/evil.example", "//evil.example/x", "/\\evil.example",
    "/\\/evil.example", "javascript:alert(1)", "/api/logout", "/api", "/login?next=/x", "/signup", "/_event",
    "/check out", "/a\nb", "/a\tb", "/" + "a" * 600, 42,
])
def test_anything_else_goes_home(path: object):
    assert safe_next(path) == "/"


def test_the_links_carry_the_page_only_when_it_is_not_home():
    assert with_next("/login", "/checkout/abc") == "/login?next=/checkout/abc"
    assert with_next("/login", "/agents/x?tab=reviews") == "/login?next=/agents/x%3Ftab%3Dreviews"
    assert with_next("/login", "//evil.example") == "/login"
    assert with_next("", "/") == ""
