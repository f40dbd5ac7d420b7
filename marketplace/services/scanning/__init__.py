"""Security scans of every stored agent file (issue 33): engines, the background queue, what verdicts decide."""

from marketplace.services.scanning.engines import ScanFailed, engine_set, scan_data, scan_object
from marketplace.services.scanning.findings import Finding
from marketplace.services.scanning.queue import (
    drain,
    enqueue,
    queue_all,
    queue_stale,
    scan_forever,
    verdict,
    wake,
)
from marketplace.services.scanning.views import (
    BLOCKED,
    PENDING_VIEW,
    ScanView,
    approval_refusal,
    clean_scanned_at,
    download_refusal,
    summary,
    view,
    views_of,
)

__all__ = [
    "BLOCKED",
    "PENDING_VIEW",
    "Finding",
    "ScanFailed",
    "ScanView",
    "approval_refusal",
    "clean_scanned_at",
    "download_refusal",
    "drain",
    "engine_set",
    "enqueue",
    "queue_all",
    "queue_stale",
    "scan_data",
    "scan_forever",
    "scan_object",
    "summary",
    "verdict",
    "view",
    "views_of",
    "wake",
]
