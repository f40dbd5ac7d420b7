"""A simulated browser tab for `benchmarks/ws_load.py`: the page's HTML over HTTP, then Reflex's `/_event` websocket.

It speaks the protocol the compiled frontend speaks (`utils/state.js` of Reflex's web template): a socket.io
connection to the `/_event` namespace with the tab's token in the query and the boot event (`hydrate_and_load`,
with the compiled `initialStateHashes` on the first connect) and the frontend's `stateSchema` in the CONNECT
packet; then one `event` message per user action, each `{name, payload, router_data}`. The server answers with
`event` messages carrying state deltas and client-side events (`_call_script` with a callback is answered with the
callback's event, as the page's JavaScript would; `_redirect` moves the tab).

Event names and payload keys are not typed here: `EVENTS` reads them from the app's state classes through
Reflex's own naming (`format_event_handler`), so renaming a handler breaks `tests/unit/test_ws_load_events.py`
instead of this benchmark measuring nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import random
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import socketio
from reflex.event import EventHandler
from reflex.state import OnLoadInternalState
from reflex_base.constants.state import FIELD_MARKER
from reflex_base.utils.format import format_event_handler

from marketplace.state.agent_detail import AgentDetailState
from marketplace.state.catalog import BrowseState
from marketplace.state.checkout import CheckoutState
from marketplace.state.session import SessionState

NAMESPACE = "/_event"  # Reflex's event namespace; the frontend connects to `<backend>/_event` with that path
ASSET = re.compile(r'(?:href|src)="(/assets/[^"]+)"')
CALLBACK_EVENT = re.compile(r'ReflexEvent\("([^"]+)",\s*\{(\w+):_result\}\)')
STEP_TIMEOUT = 30.0


def event_name(handler: EventHandler) -> str:
    """The name the compiled frontend sends for `handler` (`<full state name>.<handler>`)."""
    return format_event_handler(handler)


def payload_keys(handler: EventHandler) -> list[str]:
    """The handler's argument names: the keys of the payload the page sends with it."""
    return [name for name in inspect.signature(handler.fn).parameters if name != "self"]


def field_key(state: type, name: str) -> tuple[str, str]:
    """Where a state field's value arrives in a delta: (full state name, field name with Reflex's marker)."""
    return state.get_full_name(), f"{name}{FIELD_MARKER}"


# What the pages send, read from the app (see the module's docstring).
EVENTS: dict[str, EventHandler] = {
    "hydrate_and_load": SessionState.get_root_state().hydrate_and_load,  # the boot event of every page load
    "on_load_internal": OnLoadInternalState.on_load_internal,  # what a link inside the app sends
    "set_category": BrowseState.set_category,
    "set_search": BrowseState.set_search,
    "toggle_favorite": AgentDetailState.toggle_favorite,
    "set_review_rating": AgentDetailState.set_review_rating,
    "set_review_comment": AgentDetailState.set_review_comment,
    "submit_review": AgentDetailState.submit_review,
    "payment_started": CheckoutState.payment_started,
    "payment_succeeded": CheckoutState.payment_succeeded,
}
PAYLOAD_KEYS = {key: payload_keys(handler) for key, handler in EVENTS.items()}
ROUTE_PARAM = "agent_id"  # the dynamic segment of /agents/[agent_id] and /checkout/[agent_id]
HYDRATED = field_key(SessionState.get_root_state(), "is_hydrated")
BROWSE_LOADING = field_key(BrowseState, "loading")
FAVORITE_BUSY = field_key(AgentDetailState, "favorite_busy")
REVIEW_SUBMITTING = field_key(AgentDetailState, "review_submitting")
REVIEW_RATING = field_key(AgentDetailState, "review_rating")
REVIEW_COMMENT = field_key(AgentDetailState, "review_comment")
CHECKOUT_SECRET = field_key(CheckoutState, "client_secret")
CHECKOUT_LOADING = field_key(CheckoutState, "loading")
CHECKOUT_PROCESSING = field_key(CheckoutState, "processing")
CHECKOUT_REDIRECTING = field_key(CheckoutState, "redirecting")
CHECKOUT_ERROR = field_key(CheckoutState, "payment_error")

CARD = {"payment_method_data[type]": "card", "payment_method_data[card][number]": "4242424242424242",
        "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034",
        "payment_method_data[card][cvc]": "123"}


@dataclass
class Frontend:
    """What the compiled frontend sends on its first connect, read from the build (`utils/context.jsx`)."""

    hashes: list[str]
    schema: str

    @classmethod
    def read(cls, web_dir: Path) -> Frontend:
        text = (web_dir / "utils" / "context.jsx").read_text()
        hashes = re.search(r"export const initialStateHashes = (\[.*?\])", text)
        schema = re.search(r"export const stateSchema = (\".*?\")", text)
        if not hashes or not schema:
            msg = f"no initialStateHashes/stateSchema in {web_dir}/utils/context.jsx"
            raise SystemExit(msg)
        return cls(json.loads(hashes.group(1)), json.loads(schema.group(1)))


@dataclass
class Site:
    """What every browser shares: where the app and the stand-in are, the build, the catalogue."""

    base: str
    standin: str
    frontend: Frontend
    agents: list[dict[str, Any]]
    wait: tuple[float, float] = (1.0, 3.0)
    record: Callable[[str, float | None, float | None, str | None], None] = lambda *_: None


@dataclass
class Browser:
    """One tab of one signed-in person: a token of its own, its asset cache, the state it was sent."""

    site: Site
    session: str  # the session cookie's value
    address: str  # its X-Forwarded-For (the app trusts the generator as a proxy: limits count per browser)
    http: aiohttp.ClientSession
    token: str = field(default_factory=lambda: str(uuid.uuid4()))
    cached: set[str] = field(default_factory=set)
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    owned: set[str] = field(default_factory=set)
    path: str = "/"
    redirect: str | None = None
    sio: socketio.AsyncClient | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _callbacks: set[asyncio.Task[None]] = field(default_factory=set)
    _seen: int = 0  # deltas received so far
    _errors: list[str] = field(default_factory=list)

    # -- the protocol --

    def _headers(self) -> dict[str, str]:
        return {"Cookie": f"mp_session={self.session}", "Origin": self.site.base, "X-Forwarded-For": self.address}

    def _router_data(self, path: str, query: dict[str, str]) -> dict[str, Any]:
        """What the page adds to each event: its path, the address as typed, the query with the route's params
        (`agent_id` of `/agents/[agent_id]` is in the path, not the search)."""
        search = urlencode({k: v for k, v in query.items() if k != ROUTE_PARAM})
        data: dict[str, Any] = {"pathname": path, "asPath": f"{path}?{search}" if search else path}
        if query:
            data["query"] = query
        return data

    def _event(self, key: str, payload: dict[str, Any], query: dict[str, str] | None = None) -> dict[str, Any]:
        if unknown := set(payload) - set(PAYLOAD_KEYS[key]):
            msg = f"{event_name(EVENTS[key])} takes no {sorted(unknown)}"
            raise TypeError(msg)
        return {"name": event_name(EVENTS[key]), "payload": payload,
                "router_data": self._router_data(self.path, query or {})}

    async def _on_update(self, update: dict[str, Any]) -> None:
        for state_name, delta in (update.get("delta") or {}).items():
            self.state.setdefault(state_name, {}).update(delta)
        self._seen += 1
        for event in update.get("events") or []:
            name, payload = event.get("name"), event.get("payload") or {}
            text = json.dumps(payload)
            if "toast.error" in text or "window.onerror" in text:
                self._errors.append(text[:300])
            if name == "_redirect":
                self.redirect = payload.get("path")
            elif name == "_call_script" and (found := CALLBACK_EVENT.search(payload.get("callback") or "")):
                self._callbacks.add(task := asyncio.create_task(self._answer(found, payload)))
                task.add_done_callback(self._callbacks.discard)
        self._changed.set()

    async def _answer(self, callback: re.Match[str], payload: dict[str, Any]) -> None:
        """The page runs the script and sends its callback's event with the result (none here: no flash message
        waits in sessionStorage; a timer resolves with undefined)."""
        await asyncio.sleep(_timer_ms(payload.get("javascript_code") or "") / 1000)
        if self.sio is not None and self.sio.connected:
            with contextlib.suppress(socketio.exceptions.SocketIOError):
                await self.sio.emit("event", {"name": callback.group(1), "payload": {callback.group(2): None},
                                              "router_data": self._router_data(self.path, {})}, namespace=NAMESPACE)

    def _value(self, key: tuple[str, str]) -> Any:
        return self.state.get(key[0], {}).get(key[1])

    async def _step(self, name: str, send: Callable[[], Any], done: Callable[[], bool]) -> bool:
        """Send one event; record the time to the first delta and until `done()` holds (the page shows it)."""
        self._errors.clear()
        seen = self._seen
        started = time.perf_counter()
        first: float | None = None
        try:
            await send()
            deadline = started + STEP_TIMEOUT
            while True:
                if first is None and self._seen > seen:
                    first = time.perf_counter() - started
                if self._seen > seen and done():
                    break
                if self.sio is None or not self.sio.connected:
                    raise ConnectionError("websocket closed")
                self._changed.clear()
                await asyncio.wait_for(self._changed.wait(), max(deadline - time.perf_counter(), 0.001))
        except (TimeoutError, ConnectionError, socketio.exceptions.SocketIOError, aiohttp.ClientError) as error:
            self.site.record(name, first, None, f"{type(error).__name__}: {error}")
            return False
        elapsed = time.perf_counter() - started
        self.site.record(name, first, elapsed, self._errors[0] if self._errors else None)
        return not self._errors

    async def _think(self, low: float | None = None, high: float | None = None) -> None:
        await asyncio.sleep(random.uniform(low if low is not None else self.site.wait[0],
                                           high if high is not None else self.site.wait[1]))

    # -- pages --

    async def load_page(self, path: str, query: dict[str, str] | None = None) -> bool:
        """A full page load: the HTML (and, the first time, its assets), then a new websocket that hydrates."""
        await self.close()
        started = time.perf_counter()
        async with self.http.get(self.site.base + path, headers=self._headers()) as page:
            page.raise_for_status()
            html = await page.text()
        assets = [a for a in dict.fromkeys(ASSET.findall(html)) if a not in self.cached]
        for asset in assets:  # a browser fetches these in parallel over six connections
            async with self.http.get(self.site.base + asset) as answer:
                answer.raise_for_status()
                await answer.read()
            self.cached.add(asset)
        self.site.record(f"GET {_route(path)} (HTML{' + assets' if assets else ''})", None,
                         time.perf_counter() - started, None)
        self.path = path
        self.state.clear()
        self.sio = socketio.AsyncClient(reconnection=False, http_session=self.http)
        self.sio.on("event", self._on_update, namespace=NAMESPACE)
        boot = self._event("hydrate_and_load", {"hashes": self.site.frontend.hashes}, query)

        async def connect() -> None:
            assert self.sio is not None
            await self.sio.connect(f"{self.site.base}?token={self.token}", socketio_path=NAMESPACE,
                                   transports=["websocket"], namespaces=[NAMESPACE], headers=self._headers(),
                                   auth={"event": boot, "state_schema": self.site.frontend.schema},
                                   wait_timeout=STEP_TIMEOUT)

        return await self._step(f"{_route(path)} load: connect + hydrate + on_load", connect,
                                lambda: self._value(HYDRATED) is True)

    async def navigate(self, path: str, query: dict[str, str] | None = None) -> bool:
        """A link inside the app: no HTML, the same websocket. The page marks itself not hydrated and sends
        `on_load_internal`, which runs the route's on_load handlers and sets `is_hydrated` again."""
        self.path = path
        self.state.setdefault(HYDRATED[0], {})[HYDRATED[1]] = False
        event = self._event("on_load_internal", {}, query)
        return await self._step(f"{_route(path)} navigate: on_load", lambda: self._emit(event),
                                lambda: self._value(HYDRATED) is True)

    async def _emit(self, event: dict[str, Any]) -> None:
        assert self.sio is not None
        await self.sio.emit("event", event, namespace=NAMESPACE)

    async def send(self, step: str, key: str, payload: dict[str, Any], done: Callable[[], bool],
                   query: dict[str, str] | None = None) -> bool:
        return await self._step(step, lambda: self._emit(self._event(key, payload, query)), done)

    async def close(self) -> None:
        if self.sio is not None:
            await self.sio.disconnect()
            self.sio = None

    # -- the visit --

    async def visit(self) -> None:
        """One visit, as a person makes it: home, the catalogue with a filter and a typed search, an agent
        (favourite, review), its checkout and payment, then the dashboard; pauses between steps."""
        if not await self.load_page("/"):
            return
        await self._think()
        if not await self.navigate("/agents"):
            return
        await self._think()
        category = random.choice([a["category"]["slug"] for a in self.site.agents if a.get("category")])
        await self.send("/agents set_category", "set_category", {"value": category},
                        lambda: self._value(BROWSE_LOADING) is False)
        await self._think()
        word = random.choice(["invoice", "support", "writer", "data", "email", "code"])
        for typed in (word[:3], word):  # typed in two bursts: the input's debounce sends each pause's text
            await self.send("/agents set_search (typed)", "set_search", {"value": typed},
                            lambda: self._value(BROWSE_LOADING) is False)
            await self._think(0.4, 0.9)
        await self._think()
        agent = random.choice(self.site.agents)
        await self._agent(agent)
        paid = [a for a in self.site.agents if a["id"] not in self.owned and a["price"] not in ("0", "0.00")]
        if paid:
            await self._think()
            await self._checkout(random.choice(paid))
        await self._think()
        await self.navigate("/dashboard")
        await self._think()

    async def _agent(self, agent: dict[str, Any]) -> None:
        query = {"agent_id": agent["id"]}
        if not await self.navigate(f"/agents/{agent['id']}", query):
            return
        await self._think()
        await self.send("/agents/{id} toggle_favorite", "toggle_favorite", {},
                        lambda: self._value(FAVORITE_BUSY) is False, query)
        await self._think()
        rating = random.choice(["3", "4", "5"])
        await self.send("/agents/{id} set_review_rating", "set_review_rating", {"value": rating},
                        lambda: self._value(REVIEW_RATING) == rating, query)
        comment = f"Load test review {uuid.uuid4().hex[:8]}: does what it says."
        await self._think(1.0, 2.0)
        await self.send("/agents/{id} set_review_comment", "set_review_comment", {"value": comment},
                        lambda: self._value(REVIEW_COMMENT) == comment, query)
        await self._think(0.5, 1.0)
        await self.send("/agents/{id} submit_review", "submit_review", {"form": {"comment": comment}},
                        lambda: self._value(REVIEW_SUBMITTING) is False and self._value(REVIEW_COMMENT) == "",
                        query)

    async def _checkout(self, agent: dict[str, Any]) -> None:
        query = {"agent_id": agent["id"]}
        if not await self.navigate(f"/checkout/{agent['id']}", query):
            return
        secret = self._value(CHECKOUT_SECRET)
        if not secret:  # bought in an earlier visit, or refused: the page shows why; nothing to pay
            self.owned.add(agent["id"])
            return
        await self._think(2.0, 4.0)  # typing the card
        await self.send("/checkout payment_started", "payment_started", {},
                        lambda: self._value(CHECKOUT_PROCESSING) is True, query)
        intent_id = secret.split("_secret_")[0]
        async with self.http.post(f"{self.site.standin}/v1/payment_intents/{intent_id}/confirm", data={
                "key": "pk_test_standin", "client_secret": secret, **CARD}) as confirmed:  # Stripe.js's part
            confirmed.raise_for_status()
        self.redirect = None
        ok = await self.send("/checkout payment_succeeded (purchase completed)", "payment_succeeded",
                             {"payment_intent_id": intent_id},
                             lambda: self._value(CHECKOUT_REDIRECTING) is True or bool(self._value(CHECKOUT_ERROR)),
                             query)
        if not ok or self._value(CHECKOUT_ERROR):
            return
        self.owned.add(agent["id"])
        deadline = time.monotonic() + STEP_TIMEOUT  # the page waits, then its callback asks for the redirect
        while self.redirect is None and time.monotonic() < deadline:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 1.0)
        if self.redirect:
            path, _, order = self.redirect.partition("?")
            await self.navigate(path, dict(part.split("=", 1) for part in order.split("&") if "=" in part))


def _timer_ms(script: str) -> float:
    found = re.search(r"setTimeout\(resolve, (\d+)\)", script)
    return float(found.group(1)) if found else 0.0


def _route(path: str) -> str:
    """A path as the report groups it: ids replaced by `{id}`."""
    parts = path.split("/")
    if len(parts) > 2 and parts[1] in ("agents", "checkout"):
        parts[2] = "{id}"
    return "/".join(parts)


