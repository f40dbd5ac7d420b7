"""The client's address, as every per-address limit counts it: the connection's peer, or, when that peer is one
of `TRUSTED_PROXIES`, the right-most `X-Forwarded-For` hop that is not a trusted proxy.

Read from the right because each proxy appends the address it received the request from: hops to the right of
the first untrusted one were written by proxies we trust, everything to its left by whoever sent the request
(anyone can put any address there). A direct sender's `X-Forwarded-For` is never read.
"""

from __future__ import annotations

import ipaddress

from marketplace.config import proxy_networks, settings

UNKNOWN = "unknown"
MAX_LENGTH = 64  # longer than any IPv6 text form; a garbled hop must not become an unbounded rate-limit key

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _parse(hop: str) -> Address | None:
    """An address as proxies write it: bare, `[v6]:port` or `v4:port`; None if it is not one."""
    hop = hop.strip()
    if hop.startswith("["):
        hop = hop[1:].split("]", 1)[0]
    elif hop.count(":") == 1:
        hop = hop.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(hop)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _trusted(address: Address | None, networks: tuple[Network, ...]) -> bool:
    return address is not None and any(address in network for network in networks)


def client_address(*, peer: str | None, forwarded_for: str | None) -> str:
    """The address to count a request under. `peer` is the connection's remote address, `forwarded_for` the
    `X-Forwarded-For` value (repeated headers joined with commas, as HTTP combines them)."""
    if not peer:
        return UNKNOWN
    networks = proxy_networks(settings.trusted_proxies)
    peer_address = _parse(peer)
    if not _trusted(peer_address, networks):
        return str(peer_address) if peer_address else peer[:MAX_LENGTH]
    hops = [hop for hop in (forwarded_for or "").split(",") if hop.strip()]
    client = str(peer_address)
    for hop in reversed(hops):
        address = _parse(hop)
        if not _trusted(address, networks):
            return str(address) if address else hop.strip()[:MAX_LENGTH]
        client = str(address)
    return client  # every hop is a trusted proxy: the left-most one is the closest to the client we know
