"""robots.txt: read as crawlers read it (the longest matching rule wins, `*` matches anything, RFC 9309)."""

from __future__ import annotations

import re

import pytest

from marketplace.config import settings
from marketplace.services.seo import robots


def _rules(text: str) -> list[tuple[str, str]]:
    return [(field.strip().lower(), value.strip()) for field, _, value in
            (line.partition(":") for line in text.splitlines()) if field.strip().lower() in ("allow", "disallow")]


def allowed(text: str, path: str) -> bool:
    """The longest matching pattern decides; on a tie, Allow wins; no match: allowed."""
    best: tuple[int, bool] = (-1, True)
    for kind, pattern in _rules(text):
        regex = "".join(".*" if ch == "*" else re.escape(ch) for ch in pattern.rstrip("$"))
        if re.match(regex + ("$" if pattern.endswith("$") else ""), path):
            best = max(best, (len(pattern), kind == "allow"))
    return best[1]


@pytest.mark.parametrize("path", ["/", "/agents", "/agents?category=marketing", "/agents/abc123", "/categories",
                                  "/login", "/api/agents", "/api/agents?search=invoice", "/api/agents/abc123",
                                  "/api/agents/abc123/reviews", "/api/categories", "/api/categories/marketing",
                                  "/api/stats", "/api/demo-images/adcraft.svg", "/og/agents/abc123.png",
                                  "/og/site.png", "/sitemap.xml"])
def test_public_pages_and_catalogue_reads_are_allowed(path):
    assert allowed(robots.robots_txt(), path)


@pytest.mark.parametrize("path", ["/dashboard", "/dashboard/billing/sub_1", "/vendor", "/vendor/add-agent",
                                  "/admin", "/admin/settings", "/checkout/abc", "/purchase-success", "/dev/mail",
                                  "/demo-setup", "/forgot-password", "/reset-password?token=x", "/set-password",
                                  "/verify-email?token=x", "/api/user", "/api/docs", "/api/openapi.json",
                                  "/api/user/purchases", "/api/agents/abc123/download",
                                  "/api/agents/abc123/favorited", "/api/agents/abc123/reported",
                                  "/api/notifications"])
def test_signed_in_areas_and_the_rest_of_the_api_are_disallowed(path):
    assert not allowed(robots.robots_txt(), path)


def test_names_the_sitemap_with_an_absolute_address(monkeypatch):
    monkeypatch.setattr(settings, "public_url", "https://market.example/")
    text = robots.robots_txt()
    assert text.startswith("User-agent: *\n") and text.endswith("\n")
    assert "Sitemap: https://market.example/sitemap.xml" in text.splitlines()
