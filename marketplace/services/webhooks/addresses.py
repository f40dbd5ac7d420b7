"""Where a delivery may go: an https address (plain http to a loopback address in demo mode only), and never,
outside demo mode, to a loopback, link-local, private or otherwise non-public address, checked on every address
the name resolves to at sending time; the connection then goes to an address that was checked (no second DNS
answer can slip in between)."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import SplitResult, urlsplit

from marketplace.config import settings
from marketplace.models.webhooks import URL_MAX
from marketplace.services.errors import Invalid

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

URL_REQUIRED = "Enter the endpoint's URL"
URL_BAD = "Enter a valid URL, like https://example.com/webhooks"
URL_TOO_LONG = f"The URL must be at most {URL_MAX} characters"
HTTPS_ONLY = "The URL must start with https:// (plain http is allowed only to this machine in demo mode)"
NO_CREDENTIALS = "The URL must not contain a user name or password"
PRIVATE = "Webhooks cannot be sent to private, loopback or link-local addresses"


class AddressRefused(Exception):
    """The endpoint's name resolved to an address deliveries may not reach (or to none)."""


def _literal(host: str) -> IPAddress | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _loopback_host(host: str) -> bool:
    address = _literal(host)
    return host == "localhost" or (address is not None and address.is_loopback)


def allowed(address: IPAddress) -> bool:
    """Deliveries reach only public addresses, except in demo mode (a local receiver is the demo's point)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return settings.demo_enabled or address.is_global


def check_url(url: object) -> str:
    """The endpoint's URL, trimmed, or `Invalid` saying what is wrong with it (field `url`)."""
    if not isinstance(url, str) or not url.strip():
        raise Invalid(URL_REQUIRED, field="url")
    url = url.strip()
    if len(url) > URL_MAX:
        raise Invalid(URL_TOO_LONG, field="url")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- a port out of range raises here
    except ValueError:
        raise Invalid(URL_BAD, field="url") from None
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host or any(c.isspace() for c in url):
        raise Invalid(URL_BAD, field="url")
    if parts.username is not None or parts.password is not None:
        raise Invalid(NO_CREDENTIALS, field="url")
    if parts.scheme == "http" and not (settings.demo_enabled and _loopback_host(host)):
        raise Invalid(HTTPS_ONLY, field="url")
    address = _literal(host)
    if (address is not None and not allowed(address)) or (host == "localhost" and not settings.demo_enabled):
        raise Invalid(PRIVATE, field="url")
    return url


def target(url: str) -> tuple[SplitResult, int]:
    parts = urlsplit(url)
    return parts, parts.port or (443 if parts.scheme == "https" else 80)


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to (tests replace this to pretend a name resolves elsewhere)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def checked_addresses(host: str, port: int) -> list[IPAddress]:
    """The addresses to connect to: every one `host` resolves to must be allowed, else `AddressRefused`."""
    try:
        found = resolve(host, port)
    except OSError as error:
        raise AddressRefused(f"Could not resolve {host}: {error}") from None
    if not found:
        raise AddressRefused(f"{host} has no address")
    refused = [str(a) for a in found if not allowed(a)]
    if refused:
        raise AddressRefused(f"{host} resolves to an address webhooks may not reach ({', '.join(refused)})")
    return found
