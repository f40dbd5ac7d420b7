"""In-process CPU of one licence validate (issue 19), next to `/ping`: what `benchmarks.licenses` cannot tell
apart on a shared host (the app's CPU per request, not the machine's load).

Against a database `benchmarks.licenses` seeded (run it once first), in this process, with no server and no
HTTP client: the service call (`licenses.validate`) and the whole route through the API's ASGI app (its
middlewares, FastAPI's body parsing and answer), each 200 times to warm up, then 1,000 times measured: CPU per
call (`time.process_time`, every thread) with no profiler, then under cProfile with its top functions by own
time. cProfile sees one thread: for the route's profile FastAPI's thread pool is replaced by a direct call
(the CPU figure without the profiler keeps the real pool and its thread hops).

Usage (from the project root, not part of `make test`):
    python -m benchmarks.licenses_cpu --url postgresql://postgres@127.0.0.1:5432/bench_licenses
    python -m benchmarks.licenses_cpu --url sqlite:///data/bench/licenses.db --top 25
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # also runnable as `python benchmarks/licenses_cpu.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _cpu_per_call(call: Callable[[int], object], *, warm: int, calls: int) -> float:
    for n in range(warm):
        call(n)
    started = time.process_time()
    for n in range(calls):
        call(warm + n)
    return (time.process_time() - started) / calls * 1000


def _profiled(call: Callable[[int], object], *, warm: int, calls: int, top: int) -> tuple[float, str]:
    for n in range(warm):
        call(n)
    profile = cProfile.Profile()
    profile.enable()
    for n in range(calls):
        call(warm + n)
    profile.disable()
    stats = pstats.Stats(profile, stream=(out := io.StringIO()))
    stats.sort_stats("tottime").print_stats(top)
    return stats.total_tt / calls * 1000, out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the database benchmarks.licenses seeded")
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--warm", type=int, default=200)
    parser.add_argument("--top", type=int, default=15, help="functions listed per profile")
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = args.url
    os.environ.setdefault("SECRET_KEY", secrets.token_hex(32))
    os.environ["RATE_LIMIT_LICENSE_PER_ADDRESS"] = "100000000"  # one address: counted, never refused
    import asyncio
    import json

    import fastapi.routing

    from benchmarks.licenses import stored_keys
    from marketplace.api.app import create_api
    from marketplace.services import licenses

    keys = stored_keys(args.url)
    if not keys:
        sys.exit("no keys: seed the database with `python -m benchmarks.licenses` first")

    def service(n: int) -> object:
        answer = licenses.validate(license_key=keys[n % len(keys)], instance_id=None, address="127.0.0.1")
        assert answer.ok, answer
        return answer

    app = create_api()
    loop = asyncio.new_event_loop()

    async def post(body: bytes) -> int:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": "/api/licenses/validate", "raw_path": b"/api/licenses/validate",
                 "query_string": b"", "root_path": "", "client": ("127.0.0.1", 40000),
                 "server": ("127.0.0.1", 3000),
                 "headers": [(b"host", b"127.0.0.1:3000"), (b"content-type", b"application/json"),
                             (b"content-length", str(len(body)).encode())]}
        sent: list[dict] = []

        async def receive() -> dict:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        await app(scope, receive, send)
        return sent[0]["status"]

    def route(n: int) -> object:
        status = loop.run_until_complete(post(json.dumps({"licenseKey": keys[n % len(keys)]}).encode()))
        assert status == 200, status
        return status

    async def inline(func: Callable[..., object], *call_args: object, **kwargs: object) -> object:
        return func(*call_args, **kwargs)

    print(f"load average {os.getloadavg()[0]:.1f}; {args.calls} calls after {args.warm}")
    for name, call in (("service validate", service), ("route validate", route)):
        plain = _cpu_per_call(call, warm=args.warm, calls=args.calls)
        if call is route:
            fastapi.routing.run_in_threadpool = inline  # one thread for cProfile (see above)
        profiled, table = _profiled(call, warm=0, calls=args.calls, top=args.top)
        print(f"\n== {name}: {plain:.3f} ms CPU per call; under cProfile {profiled:.3f} ms")
        print(table)


if __name__ == "__main__":
    main()
