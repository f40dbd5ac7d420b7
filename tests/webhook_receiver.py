"""A local HTTP server standing in for a vendor's webhook receiver (tests and the webhook benchmark): it keeps
what it got and answers the status it is told to."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class WebhookReceiver:
    status: int = 200
    received: list[Received] = field(default_factory=list)
    got_one: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.got_one:
                    receiver.received.append(Received(self.path, dict(self.headers.items()), body))
                    receiver.got_one.notify_all()
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 64  # the default backlog (5) drops connections of a batch sent at once
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        """The first `count` requests, once they arrived (fails after `timeout` seconds)."""
        with self.got_one:
            assert self.got_one.wait_for(lambda: len(self.received) >= count, timeout), self.received
            return list(self.received[:count])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
