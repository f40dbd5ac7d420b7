"""A one-backend-at-a-time load balancer for the scale-out test: HTTP and websockets go to the current backend.

`switch()` drains the current backend, as a load balancer (or a rolling restart) takes a process out of its
pool: new requests go to the next backend, each websocket to the old one is closed on the backend's side
first, and the browser's side is closed once `released` says the old backend has let go of those clients
(Reflex keeps a record per connected client in Redis; a client that reconnects while the old record is still
there is taken for a second tab and gets a new, empty state). The browser's Reflex client then reconnects,
through the balancer, to the new backend. Runs its own event loop in a daemon thread (aiohttp).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

# Hop-by-hop headers (RFC 9110 section 7.6.1) and the ones aiohttp sets for itself.
SKIPPED = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
           "content-length"}


@dataclass(eq=False)
class _Tunnel:
    client: web.WebSocketResponse
    upstream: aiohttp.ClientWebSocketResponse
    token: str  # the Reflex client's token (the websocket URL's `token` parameter)
    draining: bool = False
    released: asyncio.Event = field(default_factory=asyncio.Event)


class Balancer:
    def __init__(self, port: int, backend: str,
                 released: Callable[[list[str]], Awaitable[None]] | None = None) -> None:
        self.port = port
        self.backend = backend  # e.g. http://127.0.0.1:8123
        self.released = released  # waits until the old backend has let go of these client tokens
        self.http: Counter[str] = Counter()  # HTTP requests forwarded, per backend
        self.websockets: Counter[str] = Counter()  # websockets opened, per backend
        self.tokens: dict[str, list[str]] = {}  # the Reflex client tokens of the websockets, per backend
        self.new_tokens: Counter[str] = Counter()  # `new_token` events sent (a client taken for a second tab)
        self._open: dict[str, set[_Tunnel]] = {}
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._thread = threading.Thread(target=self._run, name="balancer", daemon=True)

    def start(self) -> None:
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the balancer did not start")

    def stop(self) -> None:
        if not self._started.is_set():
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def switch(self, backend: str) -> None:
        """New requests go to `backend`; websockets open to the old one are closed (the client reconnects)."""
        asyncio.run_coroutine_threadsafe(self._switch(backend), self._loop).result(10)

    def open_websockets(self, backend: str) -> int:
        return len(self._open.get(backend, ()))

    # -- inside the loop --

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._serve())
        self._started.set()
        self._loop.run_forever()

    async def _serve(self) -> None:
        # No decompression, no redirects followed, no cookie jar: the browser sees what the backend answered.
        self._session = aiohttp.ClientSession(auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar(),
                                              timeout=aiohttp.ClientTimeout(total=None, sock_connect=10))
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _shutdown(self) -> None:
        for tunnels in self._open.values():
            for tunnel in list(tunnels):
                await tunnel.client.close()
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _switch(self, backend: str) -> None:
        old, self.backend = self.backend, backend
        tunnels = list(self._open.get(old, ()))
        for tunnel in tunnels:
            tunnel.draining = True
            await tunnel.upstream.close(code=aiohttp.WSCloseCode.GOING_AWAY)  # the old backend sees its client go
        try:
            if self.released is not None:
                await self.released([t.token for t in tunnels])
        finally:
            for tunnel in tunnels:
                tunnel.released.set()  # now the browser's side closes, and the client reconnects

    def _headers(self, request: web.Request) -> dict[str, str]:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in SKIPPED}
        headers["X-Forwarded-Host"] = request.host
        headers["X-Forwarded-Proto"] = "http"
        return headers

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        backend = self.backend
        assert self._session is not None
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._tunnel(request, backend)
        self.http[backend] += 1
        body = await request.read()
        async with self._session.request(request.method, backend + request.path_qs, headers=self._headers(request),
                                         data=body or None, allow_redirects=False) as upstream:
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in upstream.headers.items():
                if name.lower() not in SKIPPED:
                    response.headers.add(name, value)
            if "Content-Length" in upstream.headers and request.method != "HEAD":
                response.content_length = int(upstream.headers["Content-Length"])
            await response.prepare(request)
            async for chunk in upstream.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response

    async def _tunnel(self, request: web.Request, backend: str) -> web.WebSocketResponse:
        assert self._session is not None
        headers = {k: v for k, v in self._headers(request).items()
                   if not k.lower().startswith("sec-websocket")}
        offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
        upstream = await self._session.ws_connect(backend.replace("http", "ws", 1) + request.path_qs, headers=headers,
                                                  protocols=offered, autoping=False)
        # Reflex's client offers its version as a subprotocol: answer with what the backend chose.
        client = web.WebSocketResponse(protocols=[upstream.protocol] if upstream.protocol else (), autoping=False)
        await client.prepare(request)
        self.websockets[backend] += 1
        tunnel = _Tunnel(client, upstream, request.query.get("token", ""))
        self.tokens.setdefault(backend, []).append(tunnel.token)
        self._open.setdefault(backend, set()).add(tunnel)

        async def pump(source: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
                       sink: web.WebSocketResponse | aiohttp.ClientWebSocketResponse) -> None:
            async for message in source:
                if message.type == aiohttp.WSMsgType.TEXT:
                    if source is upstream and '"new_token"' in message.data:
                        self.new_tokens[backend] += 1
                    await sink.send_str(message.data)
                elif message.type == aiohttp.WSMsgType.BINARY:
                    await sink.send_bytes(message.data)
                elif message.type == aiohttp.WSMsgType.PING:
                    await sink.ping(message.data)
                elif message.type == aiohttp.WSMsgType.PONG:
                    await sink.pong(message.data)

        try:
            tasks = [asyncio.ensure_future(pump(client, upstream)), asyncio.ensure_future(pump(upstream, client))]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            if tunnel.draining:
                await tunnel.released.wait()
            for task in tasks:
                task.cancel()
        finally:
            self._open[backend].discard(tunnel)
            with contextlib.suppress(Exception):
                await upstream.close()
            with contextlib.suppress(Exception):
                await client.close(code=aiohttp.WSCloseCode.GOING_AWAY)
        return client
