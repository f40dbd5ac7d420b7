"""Security scans in tests: ClamAV's daemon started once per run (dev/clamav.py: an offline signature database
built with sigtool, a socket of its own in a temporary folder), and the scanner run at once.

Tests run no app lifespan, so no background scanner: by default a transaction that queues scans has them
scanned as soon as it commits, in the committing thread (`scanning.wake` drains), so uploads attached through
the API have their verdict before the next request, as a running app has within a moment. `queued_scans`
turns that off for a test that looks at pending scans; it then calls `scanning.drain()` itself. clamd starts
on the first scan of the run, so tests that never scan never start it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dev import clamav
from marketplace.config import settings
from marketplace.services import scanning
from marketplace.services.scanning import queue


@pytest.fixture(scope="session")
def clamd() -> Iterator[str]:
    """clamd's socket path, for the whole run (settings point at it)."""
    folder = Path(tempfile.mkdtemp(prefix="clamd-"))
    process, sock = clamav.start(folder)
    previous = settings.clamd_socket
    settings.clamd_socket = str(sock)
    yield str(sock)
    settings.clamd_socket = previous
    clamav.stop(process)


@pytest.fixture(autouse=True)
def _scans_at_once(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    def scan_now() -> None:
        request.getfixturevalue("clamd")
        scanning.drain()

    monkeypatch.setattr(queue, "wake", scan_now)


@pytest.fixture
def queued_scans(monkeypatch: pytest.MonkeyPatch, clamd: str) -> None:
    """Scans stay queued until the test calls `scanning.drain()` (clamd is running for it)."""
    monkeypatch.setattr(queue, "wake", lambda: None)
