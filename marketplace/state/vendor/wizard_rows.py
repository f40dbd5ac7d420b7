"""What the agent wizard shows in lists (categories, uploaded and attached files) and how it writes sizes and prices."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


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


def size_label(size: int) -> str:
    """1536 -> '1.5 KB'."""
    value = float(max(size, 0))
    for unit in ("B", "KB", "MB"):
        if value < 1024 or unit == "MB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} MB"


def price_label(price: str) -> str:
    """'29.9' -> '$29.90' for the summary and preview; what was typed when it is not a number."""
    try:
        amount = Decimal(price.strip())
    except (InvalidOperation, ValueError):
        return price
    return f"${amount:,.2f}" if amount.is_finite() else price
