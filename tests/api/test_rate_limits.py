"""Rate limits per client address (registration, reviews, reports), the sign-in throttle per resolved account,
and password hashing kept off the event loop."""

from __future__ import annotations

import asyncio
import threading

import pytest

from marketplace.config import settings
from marketplace.services import auth, ratelimit, reports, reviews
from marketplace.services.errors import TooManyRequests
from tests import factories
from tests.conftest import browser_client


def _register(client, n: int, headers: dict[str, str] | None = None):
    return client.post("/api/register", headers=headers, json={"username": f"person{n}", "email": f"p{n}@example.com",
                                                               "password": "secret123"})


def test_registration_is_rate_limited_per_address(client, monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_register", 3)
    assert [_register(client, n).status_code for n in range(3)] == [201, 201, 201]
    refused = _register(client, 3)
    assert refused.status_code == 429
    assert refused.json()["message"].startswith("Too many requests")
    assert 0 < int(refused.headers["retry-after"]) <= settings.rate_limit_window_minutes * 60
    # Another address is counted on its own (the states pass the websocket's client address).
    auth.register(username="elsewhere", email="e@example.com", password="secret123", address="10.0.0.9")


def test_invalid_sign_up_forms_do_not_use_up_the_limit(client, monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_register", 1)
    for _ in range(3):
        assert client.post("/api/register", json={"username": "x", "email": "bad", "password": "1"}).status_code == 400
    assert _register(client, 1).status_code == 201


def test_reviews_and_reports_are_rate_limited_per_address(client, login, monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_reviews", 2)
    monkeypatch.setattr(settings, "rate_limit_reports", 1)
    agents = [factories.make_agent() for _ in range(3)]
    busy = factories.make_user("busy")
    for agent in agents:
        factories.make_purchase(busy, agent)
    login(busy)
    posted = [client.post(f"/api/agents/{a.id}/reviews", json={"rating": 5, "comment": "ok"}).status_code
              for a in agents]
    assert posted == [201, 201, 429]
    reported = [client.post(f"/api/agents/{a.id}/report", json={"reportType": "spam", "reason": "spam"}).status_code
                for a in agents[:2]]
    assert reported == [201, 429]


def test_the_services_limit_what_the_states_send(monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_reviews", 1)
    monkeypatch.setattr(settings, "rate_limit_reports", 1)
    user = factories.make_user("stateful")
    first, second = factories.make_agent(), factories.make_agent()
    factories.make_purchase(user, first)
    factories.make_purchase(user, second)
    reviews.submit_review(actor=user, agent_id=first.id, rating=5, comment="ok", address="10.1.1.1")
    with pytest.raises(TooManyRequests):
        reviews.submit_review(actor=user, agent_id=second.id, rating=5, comment="ok", address="10.1.1.1")
    reports.report_agent(actor=user, agent_id=first.id, report_type="spam", reason="spam", address="10.1.1.1")
    with pytest.raises(TooManyRequests):
        reports.report_agent(actor=user, agent_id=second.id, report_type="spam", reason="spam", address="10.1.1.1")


def test_hit_counts_in_a_sliding_window_and_zero_turns_it_off():
    for _ in range(2):
        ratelimit.hit(key="k", limit=2, window_seconds=60)
    with pytest.raises(TooManyRequests) as refused:
        ratelimit.hit(key="k", limit=2, window_seconds=60)
    assert refused.value.retry_after and refused.value.retry_after <= 60
    ratelimit.hit(key="other", limit=2, window_seconds=60)
    for _ in range(5):
        ratelimit.hit(key="off", limit=0, window_seconds=60)


def test_concurrent_hits_never_exceed_the_limit():
    results: list[bool] = []

    def one() -> None:
        try:
            ratelimit.hit(key="race", limit=3, window_seconds=60)
            results.append(True)
        except TooManyRequests:
            results.append(False)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) <= 3


def test_sign_in_throttle_is_keyed_on_the_resolved_account(client, monkeypatch):
    monkeypatch.setattr(settings, "login_max_failures_per_account", 3)
    user = factories.make_user("victim", email="victim@example.com")
    for identifier in ("victim", "VICTIM", "victim@example.com"):
        response = client.post("/api/login", json={"username": identifier, "password": "wrong-password"})
        assert response.status_code == 401
    # The account is locked whichever identifier is typed, even with the right password.
    for identifier in ("victim", "victim@example.com"):
        response = client.post("/api/login", json={"username": identifier, "password": factories.PASSWORD})
        assert response.status_code == 429, identifier
    assert user.id


def test_password_hashing_refuses_to_run_on_the_event_loop():
    async def on_the_loop() -> None:
        auth.hash_password("secret123")

    with pytest.raises(RuntimeError, match="event loop"):
        asyncio.run(on_the_loop())

    async def in_a_thread() -> str:
        return await asyncio.to_thread(auth.hash_password, "secret123")

    assert asyncio.run(in_a_thread()).startswith("$argon2")


def test_the_demo_setup_state_hashes_in_a_thread():
    """The one Reflex handler that hashes (demo accounts) awaits a worker thread for it: the service goes to
    `attempt`, which runs it on the state pool (state/service_calls.py, tests/unit/test_service_calls.py)."""
    import inspect
    import re

    from marketplace.state.demo_setup import DemoSetupState

    handler = DemoSetupState.event_handlers["initialize"].fn
    assert inspect.isasyncgenfunction(handler)
    assert re.search(r"await attempt\([^()]*(\([^()]*\))?[^()]*, demo\.init_demo_data,", inspect.getsource(handler))


def _register_from(peer: str, n: int, forwarded_for: str):
    """A sign-up sent from `peer` (the connection's address) with an `X-Forwarded-For` header."""
    with browser_client(client=(peer, 40000)) as sender:
        return _register(sender, n, {"X-Forwarded-For": forwarded_for})


def test_behind_a_trusted_proxy_each_forwarded_client_is_counted_on_its_own(monkeypatch):
    monkeypatch.setattr(settings, "trusted_proxies", "10.0.0.0/8")
    monkeypatch.setattr(settings, "rate_limit_register", 2)
    # The proxy (10.0.0.2) appends each client's address; one client's own forged hop is ignored.
    first = [_register_from("10.0.0.2", n, f"6.6.6.{n}, 198.51.100.1").status_code for n in range(3)]
    assert first == [201, 201, 429]
    assert _register_from("10.0.0.2", 3, "198.51.100.2").status_code == 201  # another client, its own count


def test_a_sender_that_is_not_a_trusted_proxy_cannot_spoof_x_forwarded_for(monkeypatch):
    monkeypatch.setattr(settings, "trusted_proxies", "10.0.0.0/8")
    monkeypatch.setattr(settings, "rate_limit_register", 2)
    # A new forged address on every request: all counted under the sender's own address.
    sent = [_register_from("203.0.113.9", n, f"198.51.100.{n}").status_code for n in range(3)]
    assert sent == [201, 201, 429]
    monkeypatch.setattr(settings, "trusted_proxies", "")
    assert _register_from("10.0.0.2", 3, "198.51.100.7").status_code == 201
    assert _register_from("10.0.0.2", 4, "198.51.100.8").status_code == 201
    assert _register_from("10.0.0.2", 5, "198.51.100.9").status_code == 429  # no proxies trusted: the peer counts
