"""Agent versions with release notes, and the leases of downloads in flight

Revision ID: 0033
Revises: 0031

- `agent_revisions.version_label`, `release_notes`: what a revision that changes files publishes as its version.
- `agent_versions`: one row per published version (label, notes, approval date, its files' names, sizes and
  storage keys as JSON). Agents live before this revision get theirs lazily (services/versions/history.py): the
  live version reads as '1.0.0' until the approval that replaces it writes its row, so no data is copied here.
- `download_leases`: the stored objects a download in flight reads; they are not deleted until it ends.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0033"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    op.add_column("agent_revisions", sa.Column("version_label", _s(32), nullable=True))
    op.add_column("agent_revisions", sa.Column("release_notes", sa.Text(), nullable=True))
    op.create_table(
        "agent_versions",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("agent_id", _s(32), sa.ForeignKey("agents.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("label", _s(32), nullable=False),
        sa.Column("release_notes", sa.Text(), nullable=False),
        sa.Column("files", sa.Text(), nullable=False),
        sa.Column("approved_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("agent_id", "version"),
    )
    op.create_index("ix_agent_versions_agent_id", "agent_versions", ["agent_id"])
    op.create_table(
        "download_leases",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("download_id", _s(32), nullable=False),
        sa.Column("storage_key", _s(500), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_download_leases_download_id", "download_leases", ["download_id"])
    op.create_index("ix_download_leases_key_expires", "download_leases", ["storage_key", "expires_at"])


def downgrade() -> None:
    op.drop_table("download_leases")
    op.drop_table("agent_versions")
    # Not batch mode: on SQLite it would rebuild `agent_revisions` (and lose what cascades from or triggers on
    # it). SQLite 3.35+ drops a plain column in place.
    for column in ("release_notes", "version_label"):
        op.drop_column("agent_revisions", column)
