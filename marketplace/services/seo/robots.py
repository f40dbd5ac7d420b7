"""`/robots.txt`: crawl the public pages and the catalogue's public reads, not the signed-in areas or the API.

The most specific (longest) rule wins, as crawlers read it (RFC 9309, section 2.2.2): `Allow: /api/agents` opens
the catalogue's reads inside `Disallow: /api/`, and the longer per-viewer and download paths under it close again.
"""

from __future__ import annotations

from marketplace.services.seo.addresses import absolute

# Pages behind a sign-in, one-time links (password, e-mail) and the demo tools: nothing a search result should hold.
PRIVATE_PAGES = ("/dashboard", "/vendor", "/admin", "/checkout", "/purchase-success", "/dev/", "/demo-setup",
                 "/forgot-password", "/reset-password", "/set-password", "/verify-email")
PUBLIC_READS = ("/api/agents", "/api/categories", "/api/stats", "/api/demo-images/")
# Under the public reads, but about the viewer or behind a purchase.
PRIVATE_READS = ("/api/agents/*/download", "/api/agents/*/favorited", "/api/agents/*/reported")


def robots_txt() -> str:
    lines = ["User-agent: *", "Allow: /", "Allow: /og/"]
    lines += [f"Disallow: {path}" for path in PRIVATE_PAGES]
    lines += ["Disallow: /api/"]
    lines += [f"Allow: {path}" for path in PUBLIC_READS]
    lines += [f"Disallow: {path}" for path in PRIVATE_READS]
    lines += ["", f"Sitemap: {absolute('/sitemap.xml')}"]
    return "\n".join(lines) + "\n"
