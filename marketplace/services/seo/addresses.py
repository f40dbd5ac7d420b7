"""The site's public addresses, one rule for the heads, the sitemap, robots and the previews."""

from __future__ import annotations

from urllib.parse import quote

from marketplace.config import settings


def absolute(path: str) -> str:
    """`path` on this deployment's public address (`PUBLIC_URL`), never on whatever Host a request named."""
    return settings.public_url.rstrip("/") + path


def agent_path(agent_id: str) -> str:
    return f"/agents/{quote(agent_id, safe='')}"


def category_path(slug: str) -> str:
    """A category's address: the agents page filtered to it, as the categories page links it."""
    return f"/agents?category={quote(slug, safe='')}"
