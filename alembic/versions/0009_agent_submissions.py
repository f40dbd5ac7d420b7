"""Agent submissions: issued uploads, file versions, pending revisions of live agents, the download log

Revision ID: 0009
Revises: 0008

Uploads go straight to storage, so the app records every object key it issues (to whom, until when) and
attaches only those. A live agent's edits wait in a revision; its files are versioned so buyers keep
downloading the approved version until a new one is approved.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PENDING = sa.text("status = 'pending'")


def upgrade() -> None:
    # Plain ADD COLUMN: a batch rebuild of `agents` would trip over the catalogue triggers that read it.
    op.add_column("agents", sa.Column("current_version", sa.Integer(), nullable=False, server_default="1"))
    op.add_column("agent_files", sa.Column("version", sa.Integer(), nullable=False, server_default="1"))
    op.create_index("ix_agent_files_agent_version", "agent_files", ["agent_id", "version"])
    op.create_table(
        "uploads",
        sa.Column("key", sa.String(length=200), primary_key=True),
        sa.Column("vendor_id", sa.String(length=32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("upload_id", sa.String(length=1024), nullable=True),
        sa.Column("filename", sa.String(length=255), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("attached_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    )
    op.create_index("ix_uploads_vendor_open", "uploads", ["vendor_id", "attached_at", "expires_at"])
    op.create_index("ix_uploads_expires_at", "uploads", ["expires_at"])
    op.create_table(
        "agent_revisions",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("agent_id", sa.String(length=32), sa.ForeignKey("agents.id", ondelete="CASCADE"), nullable=False),
        sa.Column("vendor_id", sa.String(length=32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("changes", sa.Text(), nullable=False),
        sa.Column("files_changed", sa.Boolean(), nullable=False),
        sa.Column("rejection_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("reviewed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("decided_by", sa.String(length=32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    )
    op.create_index("ix_agent_revisions_agent_id", "agent_revisions", ["agent_id"])
    op.create_index("ux_agent_revisions_pending", "agent_revisions", ["agent_id"], unique=True,
                    postgresql_where=PENDING, sqlite_where=PENDING)
    op.create_index("ix_agent_revisions_status_created", "agent_revisions", ["status", "created_at"])
    op.create_table(
        "agent_downloads",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("user_id", sa.String(length=32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("agent_id", sa.String(length=32), sa.ForeignKey("agents.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_agent_downloads_user_id", "agent_downloads", ["user_id"])
    op.create_index("ix_agent_downloads_agent_created", "agent_downloads", ["agent_id", "created_at"])


def downgrade() -> None:
    op.drop_table("agent_downloads")
    op.drop_table("agent_revisions")
    op.drop_table("uploads")
    op.drop_index("ix_agent_files_agent_version", table_name="agent_files")
    with op.batch_alter_table("agent_files") as batch_op:
        batch_op.drop_column("version")
    op.drop_column("agents", "current_version")
