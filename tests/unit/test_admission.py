"""A lagging worker turns new event websockets away (503, retry) and keeps serving the open ones (api/admission)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocket

from marketplace.api import admission
from marketplace.api.app import create_api
from marketplace.config import settings


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    fake = Clock()
    monkeypatch.setattr(admission, "lag", admission.LoopLag(clock=fake))
    monkeypatch.setattr(settings, "admission_lag_ms", 1000)
    yield fake


def test_a_late_tick_refuses_for_a_while_after_the_loop_caught_up(clock: Clock) -> None:
    lag = admission.lag
    assert not lag.lagging(limit=1.0)
    lag.tick_started()  # due at 100.1
    clock.t = 101.0
    assert not lag.lagging(limit=1.0)  # 0.9 s overdue: within the limit
    clock.t = 101.2
    assert lag.lagging(limit=1.0)  # the running tick is 1.1 s overdue: the loop is behind now
    lag.tick_ran(limit=1.0)
    assert lag.last_late == pytest.approx(1.1)
    lag.tick_started()
    clock.t = 101.3
    lag.tick_ran(limit=1.0)  # on time again
    assert lag.lagging(limit=1.0)  # still held: a loop catching up is not handed a burst of new tabs
    clock.t = 101.2 + admission.HOLD_SECONDS + 0.01
    assert not lag.lagging(limit=1.0)


def test_a_blocked_loop_is_seen_by_the_ticker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real ticker on a real loop: a callback holding the loop past the limit makes the worker refuse."""
    monkeypatch.setattr(admission, "lag", admission.LoopLag())
    monkeypatch.setattr(settings, "admission_lag_ms", 200)

    async def scenario() -> tuple[bool, bool]:
        ticker = asyncio.create_task(admission.watch_lag())
        await asyncio.sleep(0.25)
        before = admission.lag.lagging(limit=0.2)
        time.sleep(0.45)  # a handler holding the loop
        await asyncio.sleep(admission.TICK_SECONDS * 1.5)
        after = admission.lag.lagging(limit=0.2)
        ticker.cancel()
        return before, after

    assert asyncio.run(scenario()) == (False, True)


def test_admission_off_starts_no_ticker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "admission_lag_ms", 0)
    asyncio.run(asyncio.wait_for(admission.watch_lag(), timeout=1))  # returns at once


async def _echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for text in websocket.iter_text():
        await websocket.send_text(text)


def _app() -> admission.Admission:
    routes = [WebSocketRoute("/_event", _echo), WebSocketRoute("/other", _echo),
              Route("/", lambda _request: PlainTextResponse("page"))]
    return admission.Admission(Starlette(routes=routes))


def test_a_new_tab_waits_while_the_open_one_is_served(clock: Clock) -> None:
    with TestClient(_app()) as client, client.websocket_connect("/_event") as open_tab:
        open_tab.send_text("before")
        assert open_tab.receive_text() == "before"
        admission.lag.tick_started()
        clock.t += 2.0  # the loop falls two seconds behind
        with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect("/_event/?EIO=4"):
            pass
        assert refused.value.status_code == 503
        assert refused.value.headers["retry-after"] == str(admission.RETRY_AFTER_SECONDS)
        open_tab.send_text("during")  # the tab already open is served as before
        assert open_tab.receive_text() == "during"
        assert client.get("/").text == "page"  # pages and the API too
        with client.websocket_connect("/other") as other:  # only the event socket is admitted
            other.send_text("x")
            assert other.receive_text() == "x"
        admission.lag.tick_ran(limit=1.0)  # the late tick runs at last
        admission.lag.tick_started()
        clock.t += admission.TICK_SECONDS
        admission.lag.tick_ran(limit=1.0)  # and the next one on time
        clock.t += admission.HOLD_SECONDS
        with client.websocket_connect("/_event") as new_tab:  # caught up: admitted again
            new_tab.send_text("after")
            assert new_tab.receive_text() == "after"


def test_admission_off_admits_every_tab(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "admission_lag_ms", 0)
    admission.lag.tick_started()
    clock.t += 5.0
    with TestClient(_app()) as client, client.websocket_connect("/_event") as tab:
        tab.send_text("x")
        assert tab.receive_text() == "x"


def test_a_server_without_denial_responses_gets_a_retry_later_close(clock: Clock) -> None:
    admission.lag.tick_started()
    clock.t += 2.0
    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    async def receive() -> dict[str, object]:
        return {"type": "websocket.connect"}

    async def never(*_args: object) -> None:
        raise AssertionError("a refused socket reached the app")

    scope = {"type": "websocket", "path": "/_event/", "extensions": {}}
    asyncio.run(admission.Admission(never)(scope, receive, send))
    assert sent == [{"type": "websocket.close", "code": 1013}]


def test_the_app_turns_tabs_away_before_any_other_work() -> None:
    middleware = create_api().user_middleware
    assert middleware[0].cls is admission.Admission  # the outermost
