"""`python -m marketplace.scan --all`: scan every stored agent file again, now (after a change of YARA rules or
ClamAV signatures; the app's scanners also rescan daily). Without `--all`: scan only what is queued.

Uses the app's settings (`DATABASE_URL`, `STORAGE_*`, `CLAMD_SOCKET`); the verdicts and what they cause (an
infected live file blocked, its vendor and the admins notified) are written as the app's scanners write them.
"""

from __future__ import annotations

import argparse
import logging

from marketplace.services import scanning


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m marketplace.scan", description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="queue every stored file before scanning")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.all:
        print(f"queued {scanning.queue_all()} stored files")
    scanned = scanning.drain()
    summary = scanning.summary()
    print(f"scanned {scanned} files; " + ", ".join(f"{status}: {n}" for status, n in sorted(summary.items())))
    return 1 if summary.get("error") else 0


if __name__ == "__main__":
    raise SystemExit(main())
