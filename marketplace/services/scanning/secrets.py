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

PATTERNS: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    ("aws-access-key-id", re.compile(rb"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("aws-secret-access-key", re.compile(
        rb"(?i)aws_?secret_?access_?key\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])")),
    ("stripe-secret-key", re.compile(rb"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b")),
    ("openai-api-key", re.compile(
        rb"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})")),
    ("github-token", re.compile(rb"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})\b")),
    ("slack-token", re.compile(rb"\bxox[abprs]-[0-9A-Za-z\-]{10,}")),
    ("slack-webhook", re.compile(rb"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+")),
    ("private-key", re.compile(rb"-----BEGIN (?:RSA |DSA |EC |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----")),
)


def _mask(value: bytes) -> str:
    text = value.decode("ascii", "replace")
    return text if text.startswith("-----") else f"{text[:4]}…{text[-4:]}"


def find(data: bytes, *, member: str | None) -> list[Finding]:
    """A `secret` finding for each match, with its line and masked value."""
    found: list[Finding] = []
    for name, pattern in PATTERNS:
        for match in pattern.finditer(data):
            if len(found) >= MAX_PER_FILE:
                return found
            value = match.group(1) if match.groups() else match.group(0)
            line = data.count(b"\n", 0, match.start()) + 1
            found.append(Finding(FindingKind.SECRET, name, member, f"line {line}: {_mask(value)}"))
    return found
