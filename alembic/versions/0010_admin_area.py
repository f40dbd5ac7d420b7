"""Admin area: the audit log of admin writes, agent page views, and the indexes admin lists read

Revision ID: 0010
Revises: 0009

Every admin write leaves an audit entry. An agent page counts at most one view per visitor per day
(`agent_views`), and `agents.view_count` keeps the total so Most Viewed is an index read. The catalogue
triggers watch named columns of `agents`, so counting views does not invalidate cached listings.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE = sa.text("status = 'approved' AND deleted_at IS NULL")


def upgrade() -> None:
    # Plain ADD COLUMN: a batch rebuild of `agents` would trip over the catalogue triggers that read it.
    op.add_column("agents", sa.Column("view_count", sa.Integer(), nullable=False, server_default="0"))
    op.create_index("ix_agents_pub_views", "agents", ["view_count", "id"], postgresql_where=LIVE, sqlite_where=LIVE)
    op.create_table(
        "audit_log",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("actor_id", sa.String(length=32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("actor_username", sa.String(length=200), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("target_type", sa.String(length=32), nullable=False),
        sa.Column("target_id", sa.String(length=64), nullable=False),
        sa.Column("details", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_audit_log_actor_id", "audit_log", ["actor_id"])
    op.create_index("ix_audit_log_created", "audit_log", ["created_at", "id"])
    op.create_table(
        "agent_views",
        sa.Column("agent_id", sa.String(length=32), sa.ForeignKey("agents.id", ondelete="CASCADE"), nullable=False),
        sa.Column("visitor", sa.String(length=64), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint("agent_id", "visitor", "day"),
    )


def downgrade() -> None:
    op.drop_table("agent_views")
    op.drop_table("audit_log")
    op.drop_index("ix_agents_pub_views", table_name="agents")
    op.drop_column("agents", "view_count")
