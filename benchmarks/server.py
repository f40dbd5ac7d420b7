"""The app as a benchmark's own server: started, waited for, stopped, and the build's traces put back."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# Benchmarks import the app and start it outside demo mode, where the development SECRET_KEY is refused: one key
# of their own, set before the app's settings are first read and inherited by every process they start.
os.environ.setdefault("SECRET_KEY", f"benchmark-{secrets.token_urlsafe(32)}")

from tests.ports import free_port  # noqa: E402

__all__ = ["ROOT", "free_port", "running", "tool_path"]


def tool_path() -> str:
    """PATH with the project's virtualenv and bun first, as `make` recipes have it."""
    extra = [str(Path(sys.executable).parent), str(ROOT / ".venv" / "bin"), str(ROOT / ".tools" / "node_modules" /
                                                                              ".bin")]
    return os.pathsep.join([*extra, os.environ.get("PATH", "")])


@contextlib.contextmanager
def running(command: list[str], *, env: dict[str, str], log_path: Path, ready_url: str | None,
            timeout: float = 900, cwd: Path = ROOT) -> Iterator[subprocess.Popen[bytes]]:
    """Run `command` in its own process group until the block ends, once `ready_url` answers 200 (or at once).
    `cwd`: the checkout to run in (another revision's, for `benchmarks/step_ab.py`).

    A build rewrites reflex.lock/ from the benchmark's web folder, so the project's files are put back after."""
    lock_files = {p: p.read_bytes() for p in (cwd / "reflex.lock").glob("*") if p.is_file()}
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while ready_url:
            if process.poll() is not None:
                sys.exit(f"{command[-1]} exited ({process.returncode}); see {log_path}")
            with contextlib.suppress(OSError), urllib.request.urlopen(ready_url, timeout=2) as response:
                if response.status == 200:
                    break
            if time.monotonic() > deadline:
                sys.exit(f"{command[-1]} did not answer in time; see {log_path}")
            time.sleep(0.2)
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for lock_path, content in lock_files.items():
            lock_path.write_bytes(content)
