"""Benchmark uploads and downloads: 50 MB files through the local backend and through S3 (moto).

What it does, per backend:
1. serves the API app (`marketplace.api.app:create_api`, the FastAPI app `make run` mounts) with granian, the
   server `reflex run --env prod` uses, in its own process, on a fresh SQLite file and a fresh storage
   folder (local) or bucket (S3 on moto's ThreadedMotoServer, started here);
2. signs in a vendor and an admin (made so with one UPDATE on the SQLite file) over HTTP, creates an agent;
3. uploads a 50 MB zip the way the browser does: one PUT to the URL `POST /api/objects/upload` answers,
   then again with Companion's multipart protocol (5 MB parts, in order) under `/api/uploads/s3/`; reports
   MB/s for each, then attaches five 50 MB files with `PUT /api/agent-files` and approves the agent;
4. downloads the agent (`GET /api/agents/{id}/download`: a 250 MB zip streamed on the fly) while sampling
   the server's resident memory (process tree) every 5 ms; reports MB/s and the peak growth over the resident
   size just before the download (budget: under 64 MB).

Usage (from the project root, with the project's virtualenv):
    python -m benchmarks.uploads                  # both backends
    python -m benchmarks.uploads --backend local --size-mb 50 --files 5
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # also runnable as `python benchmarks/uploads.py`
    sys.path.insert(0, str(ROOT))
MB = 1024 * 1024
PART_SIZE = 5 * MB
PEAK_BUDGET_MB = 64.0
PASSWORD = "bench-password-1"
BUCKET = "bench-uploads"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _rss_bytes(pid: int) -> int:
    """Resident memory of a process and its descendants (granian serves from a worker process)."""
    total = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            total += int(line.split()[1]) * 1024
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            total += _rss_bytes(int(child))
    return total


def make_zip(path: Path, size: int) -> None:
    """A real zip (the attach check judges type by content) holding `size` random bytes, stored."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive, \
            archive.open("payload.bin", "w", force_zip64=True) as member:
        left = size - 200  # the zip's own headers
        while left > 0:
            chunk = os.urandom(min(MB, left))
            member.write(chunk)
            left -= len(chunk)


@contextmanager
def moto_server() -> Iterator[str]:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@contextmanager
def api_server(env: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen]:
    # Granian, as `reflex run --env prod` serves the app (one worker).
    cmd = [sys.executable, "-m", "granian", "--interface", "asgi", "--factory", "--host", "127.0.0.1",
           "--port", str(port), "--workers", "1", "--no-access-log", "--log-level", "warning",
           "marketplace.api.app:create_api"]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/categories", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"the API did not start; see {log}")
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def migrate(env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "marketplace.migrate"], cwd=ROOT, env={**os.environ, **env}, check=True)


@dataclass
class Figures:
    backend: str
    single_put_mbps: float
    multipart_mbps: float
    download_mbps: float
    download_mb: float
    rss_before_mb: float
    peak_growth_mb: float


class Client:
    """One signed-in browser: a cookie jar, the site's Origin on every write."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, headers={"Origin": base}, timeout=120)

    def call(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        response = self.http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response

    def sign_up(self, username: str) -> None:
        self.call("POST", "/api/register", json={"username": username, "email": f"{username}@bench.example",
                                                 "password": PASSWORD})

    def sign_in(self, username: str) -> None:
        self.call("POST", "/api/login", json={"username": username, "password": PASSWORD})


def upload_single(vendor: Client, path: Path) -> tuple[str, float]:
    url = vendor.call("POST", "/api/objects/upload").json()["uploadURL"]
    started = time.perf_counter()
    with path.open("rb") as body:
        response = httpx.put(url, content=body, headers={"Content-Type": "application/zip"}, timeout=300)
    response.raise_for_status()
    return url, time.perf_counter() - started


def upload_multipart(vendor: Client, path: Path) -> tuple[str, float]:
    started = time.perf_counter()
    created = vendor.call("POST", "/api/uploads/s3/multipart",
                          json={"filename": path.name, "type": "application/zip", "metadata": {}}).json()
    key, upload_id = created["key"], created["uploadId"]
    parts = []
    with path.open("rb") as source:
        number = 1
        while chunk := source.read(PART_SIZE):
            signed = vendor.call("GET", f"/api/uploads/s3/multipart/{upload_id}/{number}", params={"key": key})
            url = signed.json()["url"]
            response = httpx.put(url, content=chunk, timeout=300)
            response.raise_for_status()
            parts.append({"PartNumber": number, "ETag": response.headers["etag"]})
            number += 1
    done = vendor.call("POST", f"/api/uploads/s3/multipart/{upload_id}/complete", params={"key": key},
                       json={"parts": parts}).json()
    return done["location"], time.perf_counter() - started


def download(client: Client, agent_id: str, pid: int) -> tuple[int, float, int, int]:
    """Bytes, seconds, RSS before, peak RSS while streaming (sampled every 5 ms by a thread)."""
    before = _rss_bytes(pid)
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_bytes(pid))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    total = 0
    with client.http.stream("GET", f"/api/agents/{agent_id}/download") as response:
        response.raise_for_status()
        for chunk in response.iter_bytes(1 << 20):
            total += len(chunk)
    elapsed = time.perf_counter() - started
    done.set()
    sampler.join()
    return total, elapsed, before, peak[0]


def run_backend(backend: str, *, size: int, files: int, work: Path) -> Figures:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    db_path = work / f"{backend}.db"
    env = {"DATABASE_URL": f"sqlite:///{db_path}", "STORAGE_DIR": str(work / f"{backend}-files"),
           "PUBLIC_URL": base, "APP_ENV": "local", "SECRET_KEY": "bench-secret-key-0123456789-abcdefghij",
           "UPLOAD_MAX_OPEN_PER_VENDOR": "100", "CATALOG_CACHE_ENTRIES": "0"}
    with moto_server() if backend == "s3" else _nothing() as endpoint:
        if endpoint:
            import boto3

            env.update(STORAGE_BACKEND="s3", S3_BUCKET=BUCKET, S3_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="bench",
                       AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
            boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="bench",
                         aws_secret_access_key="bench").create_bucket(Bucket=BUCKET)
        migrate(env)
        with api_server(env, port, work / f"{backend}-server.log") as proc:
            vendor, admin = Client(base), Client(base)
            vendor.sign_up("benchvendor")
            admin.sign_up("benchadmin")
            with sqlite3.connect(db_path) as conn:
                conn.execute("UPDATE users SET role = 'vendor', is_vendor_approved = 1 WHERE username = 'benchvendor'")
                conn.execute("UPDATE users SET role = 'admin' WHERE username = 'benchadmin'")
                if not conn.execute("SELECT count(*) FROM categories").fetchone()[0]:
                    conn.execute("INSERT INTO categories (slug, name, emoji, description, sort_order)"
                                 " VALUES ('bench', 'Bench', '', '', 0)")
                category = conn.execute("SELECT id FROM categories ORDER BY id LIMIT 1").fetchone()[0]
            vendor.sign_in("benchvendor")
            admin.sign_in("benchadmin")
            agent_id = vendor.call("POST", "/api/vendor/agents", json={
                "name": "Bench Agent", "shortDescription": "Big files", "description": "Five files of 50 MB.",
                "price": "9.99", "categoryId": category}).json()["id"]

            source = work / "payload.zip"
            if not source.exists() or source.stat().st_size != size:
                make_zip(source, size)
            single_url, single_s = upload_single(vendor, source)
            multi_url, multi_s = upload_multipart(vendor, source)
            urls = [single_url, multi_url] + [upload_single(vendor, source)[0] for _ in range(files - 2)]
            for url in urls:
                vendor.call("PUT", "/api/agent-files", json={"agentId": agent_id, "agentFileURL": url})
            admin.call("POST", f"/api/admin/agents/{agent_id}/approve")

            download(vendor, agent_id, proc.pid)  # warm-up: imports, first-request allocations
            total, seconds, before, peak = download(vendor, agent_id, proc.pid)
    return Figures(backend=backend, single_put_mbps=size / MB / single_s, multipart_mbps=size / MB / multi_s,
                   download_mbps=total / MB / seconds, download_mb=total / MB, rss_before_mb=before / MB,
                   peak_growth_mb=(peak - before) / MB)


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["local", "s3", "both"], default="both")
    parser.add_argument("--size-mb", type=int, default=50)
    parser.add_argument("--files", type=int, default=5)
    args = parser.parse_args(argv)
    backends = ["local", "s3"] if args.backend == "both" else [args.backend]
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-uploads-") as tmp:
        for backend in backends:
            figures = run_backend(backend, size=args.size_mb * MB, files=max(args.files, 2), work=Path(tmp))
            within = figures.peak_growth_mb < PEAK_BUDGET_MB
            ok &= within
            print(f"{figures.backend:5}  single PUT {figures.single_put_mbps:7.1f} MB/s  "
                  f"multipart {figures.multipart_mbps:7.1f} MB/s  "
                  f"download {figures.download_mb:.0f} MB at {figures.download_mbps:7.1f} MB/s  "
                  f"RSS before {figures.rss_before_mb:.0f} MB, peak growth {figures.peak_growth_mb:.1f} MB "
                  f"({'within' if within else 'OVER'} {PEAK_BUDGET_MB:.0f} MB)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
