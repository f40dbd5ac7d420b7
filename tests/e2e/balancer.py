"""A one-backend-at-a-time load balancer for the scale-out test: HTTP and websockets go to the current backend.

`switch()` points new traffic at another app process and closes the websockets open to the old one, as a
load balancer does when it takes a backend out of its pool; the browser's Reflex client then reconnects,
through the balancer, to the new backend. Runs its own event loop in a daemon thread (aiohttp).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter

import aiohttp
from aiohttp import web

# Hop-by-hop headers (RFC 9110 section 7.6.1) and the ones aiohttp sets for itself.
SKIPPED = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
           "content-length"}


class Balancer:
    def __init__(self, port: int, backend: str) -> None:
        self.port = port
        self.backend = backend  # e.g. http://127.0.0.1:8123
        self.http: Counter[str] = Counter()  # HTTP requests forwarded, per backend
        self.websockets: Counter[str] = Counter()  # websockets opened, per backend
        self._open: dict[str, set[web.WebSocketResponse]] = {}
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
        for sockets in self._open.values():
            for ws in list(sockets):
                await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _switch(self, backend: str) -> None:
        old, self.backend = self.backend, backend
        for ws in list(self._open.get(old, ())):
            await ws.close(code=aiohttp.WSCloseCode.GOING_AWAY)

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
        self._open.setdefault(backend, set()).add(client)

        async def pump(source: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
                       sink: web.WebSocketResponse | aiohttp.ClientWebSocketResponse) -> None:
            async for message in source:
                if message.type == aiohttp.WSMsgType.TEXT:
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
            for task in tasks:
                task.cancel()
        finally:
            self._open[backend].discard(client)
            with contextlib.suppress(Exception):
                await upstream.close()
            with contextlib.suppress(Exception):
                await client.close()
        return client
