"""Leaked secrets in agent files: provider tokens and private keys, reported masked (never the whole value).

Findings of this kind are shown to the file's vendor and to admins, never to buyers (services/scanning/views.py).
Change a pattern and bump PATTERNS_VERSION: every stored file is then scanned again.
"""

from __future__ import annotations

import re

from marketplace.models import FindingKind
from marketplace.services.scanning.findings import Finding

PATTERNS_VERSION = "1"
MAX_PER_FILE = 20

# (name, literal needles: the pattern is run only when one of them is in the data, pattern)
PATTERNS: tuple[tuple[str, tuple[bytes, ...], re.Pattern[bytes]], ...] = (
    ("aws-access-key-id", (b"AKIA", b"ASIA", b"AGPA", b"AIDA", b"AROA"),
     re.compile(rb"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("aws-secret-access-key", (b"ecret", b"ECRET"),
     re.compile(rb"(?i)aws_?secret_?access_?key\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])")),
    ("stripe-secret-key", (b"k_live_", b"k_test_"), re.compile(rb"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b")),
    ("openai-api-key", (b"sk-",),
     re.compile(rb"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})")),
    ("github-token", (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_"),
     re.compile(rb"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})\b")),
    ("slack-token", (b"xox",), re.compile(rb"\bxox[abprs]-[0-9A-Za-z\-]{10,}")),
    ("slack-webhook", (b"hooks.slack.com",),
     re.compile(rb"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+")),
    ("private-key", (b"-----BEGIN",),
     re.compile(rb"-----BEGIN (?:RSA |DSA |EC |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----")),
)


def _mask(value: bytes) -> str:
    text = value.decode("ascii", "replace")
    return text if text.startswith("-----") else f"{text[:4]}…{text[-4:]}"


def find(data: bytes, *, member: str | None) -> list[Finding]:
    """A `secret` finding for each match, with its line and masked value."""
    found: list[Finding] = []
    for name, needles, pattern in PATTERNS:
        if not any(needle in data for needle in needles):
            continue  # a substring test is a fraction of a regular expression's scan
        for match in pattern.finditer(data):
            if len(found) >= MAX_PER_FILE:
                return found
            value = match.group(1) if match.groups() else match.group(0)
            line = data.count(b"\n", 0, match.start()) + 1
            found.append(Finding(FindingKind.SECRET, name, member, f"line {line}: {_mask(value)}"))
    return found
