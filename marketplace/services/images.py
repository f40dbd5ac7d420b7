"""Which image addresses pages may load: the one rule behind every agent picture and profile avatar.

A vendor's image URL is checked when it is submitted (services/vendors/drafts.py uses `is_web_url`), but rows
written before that rule, by other tools, or by the OAuth providers are shown too, so pages show only what
passes here: an absolute http(s) URL, or one of the app's own shipped pictures. Anything else
(`javascript:`, `data:`, protocol-relative `//host`, relative paths) becomes "" and the placeholder shows.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from marketplace.services import demo_images
from marketplace.services.text import has_forbidden

MAX_URL = 1000  # agents.image_url / demo_url / users.profile_image_url


def is_web_url(text: str) -> bool:
    """An absolute http(s) URL with a host, without spaces or control characters."""
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:  # e.g. an invalid IPv6 host
        return False
    return (parts.scheme.lower() in ("http", "https") and bool(host) and not any(ch.isspace() for ch in text)
            and not has_forbidden(text))


def displayable_image_url(url: str | None) -> str:
    """`url` if a page may put it in an `<img src>`, else "" (the page then shows its placeholder)."""
    text = (url or "").strip()
    if not text or len(text) > MAX_URL:
        return ""
    if text.startswith(demo_images.URL_PREFIX) and "//" not in text and "\\" not in text:
        return text
    return text if is_web_url(text) else ""
