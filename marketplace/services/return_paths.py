"""Where sign-in and sign-up send the user back to (`/login?next=/checkout/{id}`): only this site's own pages.

`next` arrives in an address anyone can write, so anything that could leave the site or reach an API route is
replaced by the home page: absolute URLs, scheme-relative `//host`, backslashes (browsers read `/\\host` as
`//host`), control characters, `/api/...`, and over-long values.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

HOME = "/"
MAX_LENGTH = 500
_PATH_RE = re.compile(r"^/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?#]*$")  # an absolute path of printable URL characters
_NEVER = ("/api/", "/login", "/signup", "/_event", "/_upload")


def safe_next(value: object) -> str:
    """`value` when it is a path of this site's pages (with its query), else `/`."""
    if not isinstance(value, str) or not value or len(value) > MAX_LENGTH:
        return HOME
    if not _PATH_RE.match(value) or value.startswith("//") or "\\" in value:
        return HOME
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return HOME
    if parts.path == "/api" or any(parts.path.startswith(prefix) for prefix in _NEVER):
        return HOME
    return value


def with_next(page: str, next_path: str) -> str:
    """`page` ('/login', '/signup', an OAuth start) carrying `next_path` when it is somewhere else than home."""
    safe = safe_next(next_path)
    return page if safe == HOME else f"{page}?next={quote(safe, safe='/')}"
