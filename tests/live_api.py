"""The `/api` app served over real HTTP in this process, and a way to send N requests at the same moment.

Concurrency tests use it instead of the in-process TestClient: uvicorn answers each request on its own worker
thread (as the deployed server does), so requests that arrive together really race in the services and the
database. `fire` releases every request from one barrier and returns the answers in the order given.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import httpx
import pytest
import uvicorn

from tests import factories
from tests.conftest import BASE_URL
from tests.ports import free_port


@dataclass(frozen=True)
class LiveApi:
    url: str

    def client(self, **kwargs: object) -> httpx.Client:
        """A browser-like client: the site's Origin on every request (unsafe methods need it), its own cookies."""
        return httpx.Client(base_url=self.url, headers={"Origin": BASE_URL}, timeout=60, **kwargs)

    def signed_in(self, username: str, password: str = factories.PASSWORD) -> httpx.Client:
        client = self.client()
        response = client.post("/api/login", json={"username": username, "password": password})
        assert response.status_code == 200, response.text
        return client


@pytest.fixture(scope="session")
def live_api() -> Iterator[LiveApi]:
    # Imported here, not when conftest loads this plugin: importing the app imports authlib, whose warning
    # filter ("always") must be set inside pytest's own filters (tests/api/test_oauth.py's collection), not
    # beneath them, where pyproject's "error::DeprecationWarning" would turn authlib's warnings into errors.
    from marketplace.api.app import create_api

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_api(), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the live API server did not start")
        time.sleep(0.01)
    try:
        yield LiveApi(url=f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def fire(calls: Sequence[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    """Run every call on its own thread, all released at once; the answers come back in the calls' order."""
    barrier = threading.Barrier(len(calls))
    answers: list[httpx.Response | BaseException | None] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            answers[index] = calls[index]()
        except BaseException as error:  # re-raised in the test thread below
            answers[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for answer in answers:
        if isinstance(answer, BaseException):
            raise answer
    return [answer for answer in answers if isinstance(answer, httpx.Response)]
