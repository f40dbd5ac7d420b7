"""Every browser test carries the `e2e` marker, so `-m "not e2e"` (and `make test-unit`) never starts Chromium."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_browser_test_is_marked_e2e():
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "-m", "not e2e", "tests/e2e"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=False)
    left = [line for line in run.stdout.splitlines() if "::" in line]
    deselected = re.search(r"(\d+) deselected", run.stdout)
    assert left == []
    assert deselected and int(deselected.group(1)) > 20, run.stdout[-2000:]
