"""The one client-address rule (`TRUSTED_PROXIES`): the API's requests and the pages' websocket both use it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from reflex.app import EventNamespace
from reflex.istate.data import RouterData

from marketplace.config import Settings, settings
from marketplace.services.client_address import client_address
from marketplace.state.session import SessionState


@pytest.fixture
def proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "trusted_proxies", "10.0.0.0/8, 192.0.2.7, ::1")


def test_without_trusted_proxies_the_header_is_never_read():
    assert settings.trusted_proxies == ""
    assert client_address(peer="203.0.113.5", forwarded_for="198.51.100.1") == "203.0.113.5"
    assert client_address(peer="127.0.0.1", forwarded_for="198.51.100.1") == "127.0.0.1"
    assert client_address(peer=None, forwarded_for="198.51.100.1") == "unknown"


@pytest.mark.usefixtures("proxies")
def test_an_untrusted_sender_cannot_spoof_its_address():
    assert client_address(peer="203.0.113.5", forwarded_for="10.0.0.1, 198.51.100.1") == "203.0.113.5"
    assert client_address(peer="testclient", forwarded_for="198.51.100.1") == "testclient"


@pytest.mark.usefixtures("proxies")
def test_behind_trusted_proxies_the_right_most_untrusted_hop_counts():
    # One proxy: it appended the address it received the request from.
    assert client_address(peer="10.1.2.3", forwarded_for="198.51.100.1") == "198.51.100.1"
    # A client's own (forged) hops stay left of what the proxy appended.
    assert client_address(peer="10.1.2.3", forwarded_for="1.1.1.1, 2.2.2.2, 198.51.100.1") == "198.51.100.1"
    # Two proxies in a row (CDN -> balancer): trusted hops are skipped from the right.
    assert client_address(peer="192.0.2.7", forwarded_for="1.1.1.1, 198.51.100.1, 10.9.9.9") == "198.51.100.1"
    # IPv6 and the forms proxies write with a port.
    assert client_address(peer="::1", forwarded_for="[2001:db8::5]:4711") == "2001:db8::5"
    assert client_address(peer="::ffff:10.0.0.2", forwarded_for="198.51.100.1:80") == "198.51.100.1"
    # A proxy that sent no header, or only trusted hops: the closest address known.
    assert client_address(peer="10.1.2.3", forwarded_for=None) == "10.1.2.3"
    assert client_address(peer="10.1.2.3", forwarded_for="10.4.4.4, 192.0.2.7") == "10.4.4.4"
    # Something that is not an address in the proxy's own hop is kept as written, bounded.
    assert client_address(peer="10.1.2.3", forwarded_for="1.1.1.1, " + "x" * 500) == "x" * 64


def test_a_typo_in_trusted_proxies_stops_the_start():
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        Settings(secret_key="k" * 40, trusted_proxies="10.0.0.0/8, proxy.internal")
    assert Settings(secret_key="k" * 40, trusted_proxies="10.0.0.0/8,::1").trusted_proxies == "10.0.0.0/8,::1"


def _websocket_state(peer: str, forwarded_for: str | None) -> SimpleNamespace:
    """What a page's state sees, built by Reflex's own websocket code from a connection's ASGI scope."""
    headers = [(b"x-forwarded-for", forwarded_for.encode())] if forwarded_for else []
    environ = {"asgi.scope": {"client": (peer, 50000), "headers": headers}}
    router_data = EventNamespace._build_static_router_data(None, "sid-1", environ)  # type: ignore[arg-type]
    return SimpleNamespace(router=RouterData.from_router_data(router_data))


@pytest.mark.usefixtures("proxies")
def test_the_pages_websocket_follows_the_same_rule():
    behind_proxy = _websocket_state("10.1.2.3", "1.1.1.1, 198.51.100.1")
    assert SessionState._client_address(behind_proxy) == "198.51.100.1"  # type: ignore[arg-type]
    direct = _websocket_state("203.0.113.5", "198.51.100.1")
    assert SessionState._client_address(direct) == "203.0.113.5"  # type: ignore[arg-type]
