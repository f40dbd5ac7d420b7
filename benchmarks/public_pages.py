"""Public pages with their head and content against the compiled static shell they replace (issue 29's budget:
an agent page's filled HTML at concurrency 16 >= 80% of the static shell's rate).

Drives a running app (`make run`, or any `--base`) with wrk:
- `shell`: `/agents/{id}/`, the compiled page the server answered for every agent before (the trailing slash
  is not a public page's address, so it is served as a static file, untouched);
- `agent`: `/agents/{id}`, one live agent, filled;
- `agents-rotating`: every live agent in turn (up to 1,000), filled: the per-version cache cold for each id at
  first, then warm;
- `home`, `agents`, `categories`: the other filled pages.

    .venv/bin/python -m benchmarks.public_pages --base http://localhost:3000 --duration 10
"""

from __future__ import annotations

import argparse
import json
import os
import urllib.request
from pathlib import Path

from benchmarks.catalog import run_wrk
from benchmarks.server import ROOT


def _live_ids(base: str, limit: int) -> list[str]:
    ids: list[str] = []
    while len(ids) < limit:
        url = f"{base}/api/agents?limit=100&offset={len(ids)}"
        with urllib.request.urlopen(url, timeout=30) as response:
            page = json.load(response)
        if not page:
            break
        ids += [agent["id"] for agent in page]
    return ids[:limit]


def _rotating_script(paths: list[str]) -> Path:
    script = ROOT / "data" / "bench" / "rotating-pages.lua"
    script.parent.mkdir(parents=True, exist_ok=True)
    listed = ",\n".join(f'  "{p}"' for p in paths)
    script.write_text(f"local paths = {{\n{listed}\n}}\nlocal n = 0\n"
                      "request = function()\n  n = n + 1\n  return wrk.format(\"GET\", paths[(n % #paths) + 1])\nend\n")
    return script


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="http://localhost:3000")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    args = parser.parse_args()
    ids = _live_ids(args.base, 1000)
    if not ids:
        raise SystemExit("no live agents at " + args.base)
    cases = [("shell", f"/agents/{ids[0]}/", None), ("agent", f"/agents/{ids[0]}", None),
             ("agents-rotating", "/", _rotating_script([f"/agents/{i}" for i in ids])),
             ("home", "/", None), ("agents", "/agents", None), ("categories", "/categories", None),
             ("shell (again)", f"/agents/{ids[0]}/", None)]
    print(f"{len(ids)} live agents; load {os.getloadavg()[0]:.1f}")
    rates: dict[tuple[str, int], float] = {}
    for name, path, script in cases:
        run_wrk(args.base + path, concurrency=max(args.concurrency), duration=2, script=script)  # warm
        for concurrency in args.concurrency:
            p50, p99, rps, errors = run_wrk(args.base + path, concurrency=concurrency, duration=args.duration,
                                            script=script)
            rates[(name, concurrency)] = rps
            print(f"  {name:<16} c={concurrency:<3} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  {rps:8.1f} req/s"
                  f"  load {os.getloadavg()[0]:.1f}" + (f"  ERRORS {errors}" if errors else ""), flush=True)
    top = max(args.concurrency)
    shell = (rates[("shell", top)] + rates[("shell (again)", top)]) / 2
    for name in ("agent", "agents-rotating"):
        print(f"{name} at c={top}: {rates[(name, top)] / shell:.0%} of the static shell's rate (budget >= 80%)")


if __name__ == "__main__":
    main()
