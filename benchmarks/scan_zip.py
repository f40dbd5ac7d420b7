"""`python -m benchmarks.scan_zip`: the security scan of a 50 MB zip of 1,000 members (issue 33's budget: < 10 s).

Builds the zip in memory (1,000 members of ~50 KB each: Python source, Markdown and JSON with varied text, stored
deflated as an agent's archive would be, one member being a pickle), starts clamd with the offline signature
database (dev/clamav.py, its own socket in a temporary folder) and times `scanning.scan_data` (every engine, member
by member) a few times. Prints the zip's size, the members and each run's seconds.
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import random
import string
import tempfile
import time
import zipfile
from pathlib import Path

os.environ.setdefault("SECRET_KEY", "benchmark-secret-key-0123456789-abcdefghij")

from dev import clamav
from marketplace.config import settings
from marketplace.services import scanning

TARGET_BYTES = 50 << 20
MEMBERS = 1000


def build_zip(seed: int = 7) -> bytes:
    rng = random.Random(seed)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 10))) for _ in range(5000)]
    per_member = TARGET_BYTES // MEMBERS
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for n in range(MEMBERS - 1):
            suffix = (".py", ".md", ".json")[n % 3]
            # Random words: text that compresses like code does not, so the archive really is ~50 MB.
            body = " ".join(rng.choices(words, k=per_member // 6))[:per_member]
            z.writestr(f"agent/module_{n:04d}{suffix}", body)
        z.writestr("agent/weights.pkl", pickle.dumps({"layers": [rng.random() for _ in range(1000)]}))
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    data = build_zip()
    process, sock = clamav.start(Path(tempfile.mkdtemp(prefix="clamd-bench-")))
    settings.clamd_socket = str(sock)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            members = len(z.infolist())
        print(f"zip: {len(data) / (1 << 20):.1f} MB, {members} members")
        for run in range(1, args.runs + 1):
            started = time.perf_counter()
            findings = scanning.scan_data(data, filename="agent.zip")
            seconds = time.perf_counter() - started
            print(f"run {run}: {seconds:.2f} s, {len(findings)} findings")
    finally:
        clamav.stop(process)


if __name__ == "__main__":
    main()
