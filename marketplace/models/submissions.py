"""What vendors submit: uploads issued to them, pending revisions of live agents, and the download log; the
requests and answers of the vendor's agent and file routes and of agent moderation."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import pydantic
from sqlalchemy import Column, Index, Text, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow
from marketplace.models.scans import FileScanPublic


class RevisionStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class UploadMethod(StrEnum):
    PUT = "put"  # POST /api/objects/upload: one PUT of one file
    POST = "post"  # companion `s3/params`: one form POST
    MULTIPART = "multipart"  # companion `s3/multipart`


class Upload(SQLModel, table=True):
    """An object key the app issued to a vendor. Only issued, unexpired, unclaimed keys can be attached."""

    __tablename__ = "uploads"
    __table_args__ = (Index("ix_uploads_vendor_open", "vendor_id", "attached_at", "expires_at"),)

    key: str = Field(primary_key=True, max_length=200)
    vendor_id: str = Field(foreign_key="users.id", max_length=32, ondelete="CASCADE")
    method: str = Field(max_length=16)
    # The storage's multipart upload id; "" while the multipart upload is being created, None once finished.
    upload_id: str | None = Field(default=None, max_length=1024)
    filename: str = Field(default="", max_length=255)
    content_type: str = Field(default="application/octet-stream", max_length=255)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime = Field(index=True)
    attached_at: datetime | None = None
    # Set by the one attach that claimed the upload: where its object goes while it is checked. A claimed upload
    # still counts as open (and expires like one) until the attach is recorded or given up.
    claimed_key: str | None = Field(default=None, max_length=200)


class AgentRevision(SQLModel, table=True):
    """Edits of a live agent waiting for review; the listing stays as it is until an admin approves.

    `changes` is a JSON object of the edited draft fields (snake_case names, `price_cents`, `tags` as a
    list). `files_changed` says whether version `agent.current_version + 1` differs from the live files.
    """

    __tablename__ = "agent_revisions"
    __table_args__ = (
        Index("ux_agent_revisions_pending", "agent_id", unique=True,
              postgresql_where=text("status = 'pending'"), sqlite_where=text("status = 'pending'")),
        Index("ix_agent_revisions_status_created", "status", "created_at"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32, ondelete="CASCADE")
    vendor_id: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")
    status: str = Field(default=RevisionStatus.PENDING, max_length=16)
    version: int  # the file-set version this revision would publish
    changes: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    files_changed: bool = False
    # A revision that changes files publishes a new version: its label ('1.4.0') and Markdown release notes.
    version_label: str | None = Field(default=None, max_length=32)
    release_notes: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    rejection_reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    reviewed_at: datetime | None = None
    decided_by: str | None = Field(default=None, foreign_key="users.id", max_length=32, ondelete="SET NULL")


class AgentDownload(SQLModel, table=True):
    """One download of an agent's files: who, which version, when."""

    __tablename__ = "agent_downloads"
    __table_args__ = (Index("ix_agent_downloads_agent_created", "agent_id", "created_at"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32,
                                ondelete="SET NULL")
    agent_id: str = Field(foreign_key="agents.id", max_length=32, ondelete="CASCADE")
    version: int
    created_at: datetime = Field(default_factory=utcnow)


# ---- API schemas (camelCase on the wire) ----------------------------------------------------------------


class AgentFilePublic(ApiModel):
    id: str
    filename: str
    size_bytes: int
    content_type: str
    scan: FileScanPublic | None = pydantic.Field(default=None, description="The file's security scan (its vendor's)")


class RevisionSummaryPublic(ApiModel):
    """An approved agent's pending revision, as its vendor's agent list shows it."""

    id: str
    version: int
    files_changed: bool
    created_at: datetime
    updated_at: datetime
    version_label: str | None = pydantic.Field(
        default=None, description="The new version's label, once given (revisions that change files)")


class VendorAgentDraftPublic(ApiModel):
    """An agent as its vendor edits it: the pending revision's values if any, with the files the next
    approval would publish."""

    id: str
    status: str
    has_pending_revision: bool
    name: str
    short_description: str
    description: str
    price: str
    pricing_model: str = "monthly"  # models.billing.PricingModel: 'monthly' or 'one_time'
    activation_limit: int | str = pydantic.Field(
        default=3, description="Machines one license key may be activated on: 1-100, or 'unlimited'")
    trial_days: int = pydantic.Field(default=0, description="Free days before a new subscriber's first charge")
    category_id: int | str | None = None
    demo_url: str | None = None
    image_url: str | None = None
    tags: list[str]
    files: list[AgentFilePublic]
    version_label: str | None = pydantic.Field(
        default=None, description="The pending revision's version label; an agent not yet live: its first version's")
    release_notes: str | None = pydantic.Field(
        default=None, description="The pending revision's release notes; an agent not yet live: its first version's")
    current_version_label: str | None = pydantic.Field(
        default=None, description="The live version's label (a live agent's)")


class PendingVendorPublic(ApiModel):
    id: str
    username: str
    email: str


class PendingCategoryPublic(ApiModel):
    id: int
    name: str


class PendingFilePublic(ApiModel):
    """A file of the version under review, with the admin's download of it (`downloadUrl`)."""

    id: str
    filename: str
    size_bytes: int
    content_type: str = pydantic.Field(description="The type the file's content was found to be when attached")
    download_url: str
    scan: FileScanPublic = pydantic.Field(description="The file's security scan, findings included")


class FieldChangePublic(ApiModel):
    """A revision's changed field (named as in `changedFields`), live value -> proposed value: a price as an
    amount ('12.00'), a category by its name, tags as a list, an empty field as null."""

    field: str
    old: str | list[str] | None
    new: str | list[str] | None


class PendingAgentPublic(ApiModel):
    """A new agent (`kind` "agent") or a live agent's revision ("revision") waiting for review; `id` is the
    agent's (the approve/reject routes take it). Values are the proposed ones."""

    id: str
    kind: str
    revision_id: str | None = None
    name: str
    short_description: str
    description: str
    price: str
    pricing_model: str = "monthly"  # models.billing.PricingModel: 'monthly' or 'one_time'
    trial_days: int = 0
    demo_url: str | None = None
    image_url: str | None = None
    tags: list[str]
    category_id: int | None = None
    category: PendingCategoryPublic | None = None
    vendor: PendingVendorPublic | None = None
    submitted_at: datetime
    file_count: int
    changed_fields: list[str]
    files_added: list[str]
    files_removed: list[str]
    files: list[PendingFilePublic] = pydantic.Field(description="The files of the version under review")
    field_changes: list[FieldChangePublic] = pydantic.Field(
        description="Revisions: each of `changedFields`, old -> new (empty for a new agent)")
    version_label: str | None = pydantic.Field(
        default=None, description="Revisions changing files: the new label; new agents: their first")
    current_version_label: str | None = pydantic.Field(default=None, description="Revisions: the live label")
    release_notes: str | None = pydantic.Field(default=None,
                                               description="Revisions changing files (and new agents): Markdown")
    release_notes_html: str | None = pydantic.Field(default=None, description="The notes rendered as safe HTML")


class ModerationDecisionPublic(ApiModel):
    id: str
    status: str
    revision_id: str | None = None
    current_version: int


# ---- requests (`pydantic.Field`: input limits, not columns) -----------------------------------------------------


class AgentDraftIn(ApiInput):
    """The wizard's draft (spec section 3); every rule is checked by services/vendors/drafts.py."""

    name: str = pydantic.Field(default="", max_length=1000)
    short_description: str = pydantic.Field(default="", max_length=5000)
    description: str = pydantic.Field(default="", max_length=100_000)
    price: str | int | float | None = pydantic.Field(default=None, union_mode="left_to_right")
    # 'monthly' or 'one_time'; left out: monthly for a new agent, the agent's current model for an edit
    pricing_model: str | None = pydantic.Field(default=None, max_length=50)
    # 1-100 or 'unlimited'; left out: 3 for a new agent, the agent's current limit for an edit
    activation_limit: pydantic.StrictInt | str | None = pydantic.Field(default=None, union_mode="left_to_right")
    # 0 (no trial) to 30 free days, monthly agents only; left out: none for a new agent, the agent's current trial
    trial_days: pydantic.StrictInt | str | None = pydantic.Field(default=None, union_mode="left_to_right")
    category_id: int | str | None = pydantic.Field(default=None, union_mode="left_to_right")
    demo_url: str | None = pydantic.Field(default=None, max_length=5000)
    image_url: str | None = pydantic.Field(default=None, max_length=5000)
    tags: list[str] | None = pydantic.Field(default=None, max_length=100)
    # A live agent's edit that changes files: the new version's label ('1.4.0') and release notes (Markdown);
    # a new (not yet live) agent: its first version's, both optional (label left out: 1.0.0).
    version_label: str | None = pydantic.Field(default=None, max_length=1000)
    release_notes: str | None = pydantic.Field(default=None, max_length=100_000)


class AttachIn(ApiInput):
    """Spec section 3: `{agentId, agentFileURL}` (the URL the upload widget reported for the finished file)."""

    agent_id: str = pydantic.Field(default="", max_length=64)
    agent_file_url: str = pydantic.Field(default="", alias="agentFileURL", max_length=4000)


class RejectIn(ApiInput):
    rejection_reason: str | None = pydantic.Field(default=None, max_length=20_000)
