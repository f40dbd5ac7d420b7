"""The Approvals tab: agents waiting for review (new ones and revisions of live ones), approved and rejected.

Pending items come from services/admin/moderation.list_pending, the other two sub-tabs from
services/admin/catalog.list_agents(status=...). All three load when the tab opens, so every sub-tab label
carries its count; each is a list state of its own, paged like every admin list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services import images, money, pricing
from marketplace.services.admin import catalog, moderation
from marketplace.state.admin.listing import Action, AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day, format_day_time
from marketplace.state.vendors.wizard_rows import scan_label, size_label

SUBTABS = ("pending", "approved", "rejected")
APPROVE = Action(moderation.approve, "agent_id", ("Agent approved", "The agent has been approved and is now live."),
                 "Failed to approve agent.", plain_toast=True)
REJECT = Action(moderation.reject, "agent_id",
                ("Agent rejected", "The agent has been rejected and vendor has been notified."),
                "Failed to reject agent.", title="Reject Agent", label="Reject Agent", reason="rejection_reason",
                plain_toast=True)
# services/vendors/revisions.DRAFT_FIELDS (+ tags) as the wizard labels them
FIELD_LABELS = {"name": "Name", "short_description": "Short description", "description": "Description",
                "price_cents": "Price", "pricing_model": "Pricing model", "activation_limit": "Activation limit",
                "trial_days": "Free trial",
                "category_id": "Category", "demo_url": "Demo URL", "image_url": "Image URL",
                "tags": "Tags"}


@dataclass
class FileView:
    id: str = ""
    name: str = ""
    size: str = ""  # '1.5 KB'
    checked_type: str = ""  # the type its content was found to be on attach
    href: str = ""  # the admin-only download of this one file
    scan: str = ""  # its security scan's status and first finding ('Scanned: no threats found')
    scan_status: str = ""  # pending | clean | flagged | infected | error
    findings: list[str] = field(default_factory=list)  # every finding, secrets included (admins decide on them)


@dataclass
class ChangeView:
    label: str = ""
    old: str = ""
    new: str = ""


@dataclass
class PendingCard:
    id: str = ""  # the agent's
    is_revision: bool = False
    name: str = ""
    price: str = ""
    pricing_model: str = ""  # 'Monthly subscription' | 'One-time licence'
    activation_limit: str = ""  # '3', 'Unlimited'
    short_description: str = ""
    description: str = ""
    category: str = ""
    demo_url: str = ""
    image_url: str = ""
    submitted: str = ""
    submitted_at: str = ""
    file_count: int = 0
    vendor_id: str = ""
    vendor_username: str = ""
    vendor_email: str = ""
    tags: list[str] = field(default_factory=list)
    files_added: list[str] = field(default_factory=list)
    files_removed: list[str] = field(default_factory=list)
    files: list[FileView] = field(default_factory=list)
    changes: list[ChangeView] = field(default_factory=list)  # revisions: every changed field, old -> new
    # Revisions changing files: the new version ('1.0.0 → 1.1.0') and its notes, rendered safe on the server.
    version: str = ""
    release_notes_html: str = ""


@dataclass
class ReviewedCard:
    id: str
    name: str
    price: str
    category: str
    vendor: str
    date: str  # of the decision
    reason: str


def _value_text(name: str, value: object, pricing_model: str) -> str:
    """A field's value as the admin compares it: prices as money under the model they were set with
    (money.price_label), pricing models by the wizard's names, tags joined, no activation limit as 'Unlimited',
    nothing as a dash."""
    if name == "price_cents" and isinstance(value, int):
        return money.price_label(value, pricing_model=pricing_model)
    if name == "pricing_model":
        return pricing.MODEL_NAMES.get(str(value), str(value))
    if name == "tags" and isinstance(value, list):
        return ", ".join(str(tag) for tag in value) or "No tags"
    if name == "activation_limit" and value is None:
        return "Unlimited"
    if name == "trial_days" and isinstance(value, int):
        return pricing.trial_text(value)
    return "—" if value is None or value == "" else str(value)


def _finding(finding: dict[str, Any]) -> str:
    """'secret: AWS access key in config.py (AKIA…)': kind, name, archive member and detail, as the scan gave them."""
    where = f" in {finding['member']}" if finding.get("member") else ""
    detail = f" ({finding['detail']})" if finding.get("detail") else ""
    return f"{finding.get('kind', '')}: {finding.get('name', '')}{where}{detail}"


def _file_view(info: moderation.FileInfo) -> FileView:
    return FileView(id=info.id, name=info.filename, size=size_label(info.size_bytes), checked_type=info.content_type,
                    href=info.download_url, scan=scan_label(info.scan), scan_status=info.scan.status,
                    findings=[_finding(f) for f in info.scan.findings if isinstance(f, dict)])


def _pending_card(item: moderation.PendingItem, zone: ZoneInfo) -> PendingCard:
    vendor = item.vendor
    # The live price reads under the live model, the proposed one under the proposed model.
    new_model = item.pricing_model
    old_model = next((str(c.old) for c in item.field_changes if c.field == "pricing_model"), new_model)
    return PendingCard(
        id=item.agent_id, is_revision=item.kind == "revision", name=item.name,
        price=money.price_label(item.price_cents, pricing_model=new_model),
        pricing_model=next((name for model, name in pricing.MODEL_NAMES.items() if model == new_model), new_model),
        activation_limit="Unlimited" if item.activation_limit is None else str(item.activation_limit),
        short_description=item.short_description, description=item.description,
        category=item.category_name or "Uncategorized", demo_url=item.demo_url or "",
        image_url=images.displayable_image_url(item.image_url),
        submitted=format_day(item.submitted_at, zone), submitted_at=format_day_time(item.submitted_at, zone),
        file_count=item.file_count, vendor_id=vendor.id if vendor else "",
        vendor_username=vendor.username if vendor else "Unknown", vendor_email=vendor.email if vendor else "",
        tags=list(item.tags),
        files_added=list(item.files_added), files_removed=list(item.files_removed),
        files=[_file_view(info) for info in item.files],
        changes=[ChangeView(label=FIELD_LABELS.get(c.field, c.field), old=_value_text(c.field, c.old, old_model),
                            new=_value_text(c.field, c.new, new_model)) for c in item.field_changes],
        version=("" if not item.version_label else f"{item.current_version_label} → {item.version_label}"
                 if item.current_version_label else item.version_label),
        release_notes_html=item.release_notes_html or "",
    )


def _reviewed_card(row: catalog.AdminAgentRow, zone: ZoneInfo) -> ReviewedCard:
    decided = row.reviewed_at or row.created_at  # demo and older rows may lack the decision time
    return ReviewedCard(
        id=row.id, name=row.name,
        price=money.price_label(row.price_cents, pricing_model=row.pricing_model),
        category=row.category_name or "Uncategorized",
        vendor=row.vendor_username or "Unknown", date=format_day(decided, zone),
        reason=row.rejection_reason or "",
    )


class ApprovedAgentsState(AdminList, AdminState):
    rows: list[ReviewedCard] = []

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[ReviewedCard], int]:
        rows, total = catalog.list_agents(actor=user, limit=limit, offset=offset, status="approved")
        return [_reviewed_card(row, zone) for row in rows], total


class RejectedAgentsState(AdminList, AdminState):
    rows: list[ReviewedCard] = []

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[ReviewedCard], int]:
        rows, total = catalog.list_agents(actor=user, limit=limit, offset=offset, status="rejected")
        return [_reviewed_card(row, zone) for row in rows], total


class PendingAgentsState(AdminList, AdminState):
    rows: list[PendingCard] = []
    viewing: PendingCard = PendingCard()
    subtab: str = "pending"
    _actions: ClassVar = {"approve": APPROVE, "reject": REJECT}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[PendingCard], int]:
        items, total = moderation.list_pending(actor=user, limit=limit, offset=offset)
        return [_pending_card(item, zone) for item in items], total

    def _followers(self) -> list[Any]:
        return [ApprovedAgentsState.reload, RejectedAgentsState.reload]

    @rx.event
    def set_subtab(self, value: str) -> None:
        if value in SUBTABS:
            self.subtab = value
