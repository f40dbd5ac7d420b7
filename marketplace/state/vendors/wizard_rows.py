"""What the agent wizard shows in lists (categories, uploaded and attached files) and how it writes sizes and prices."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from marketplace.services import money
from marketplace.services.vendors.drafts import MAX_PRICE_CENTS


@dataclass
class CategoryOption:
    id: str
    label: str


@dataclass
class UploadedFile:
    """A file the widget finished uploading, not attached yet."""

    id: str  # Uppy's file id
    name: str
    size: str
    url: str


@dataclass
class AgentFileRow:
    """A file already attached to the agent being edited."""

    id: str
    name: str
    size: str
    scan: str = ""  # the security scan's status and first finding (scan_label)
    scan_status: str = ""


SCAN_ORDER = ["clean", "pending", "error", "flagged", "infected"]  # least to most serious
SCAN_LABELS = {"pending": "Scan pending", "clean": "Scanned: no threats found", "flagged": "Flagged for review",
               "infected": "Infected: cannot be approved", "error": "Scan failed, retrying"}


def scan_label(scan: Any) -> str:
    """'Infected: cannot be approved (Eicar-Test-Signature in bin/eicar.txt)' from a file's ScanView."""
    label = SCAN_LABELS.get(scan.status, scan.status)
    if scan.findings:
        first = scan.findings[0]
        where = f" in {first.get('member')}" if first.get("member") else ""
        label += f" ({first.get('name')}{where})"
    return label


def size_label(size: int) -> str:
    """1536 -> '1.5 KB'."""
    value = float(max(size, 0))
    for unit in ("B", "KB", "MB"):
        if value < 1024 or unit == "MB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} MB"


def price_label(price: str, pricing_model: str) -> str:
    """What was typed as the listing will label it (money's one rule), for the summary and preview:
    ('29.9', 'monthly') -> '$29.90/month', ('49', 'one_time') -> '$49.00 one-time'; what was typed when it is
    not a number of cents the service would take."""
    try:
        amount = Decimal(price.strip())
    except (InvalidOperation, ValueError):
        return price
    if not amount.is_finite() or amount < 0 or amount > MAX_PRICE_CENTS / 100:
        return price
    return money.price_label(money.round_half_up(amount * 100), pricing_model=pricing_model)
