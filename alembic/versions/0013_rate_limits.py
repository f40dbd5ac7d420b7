"""Rate-limit hits per key (registration, reviews, reports, password-reset requests per client address)

Revision ID: 0013
Revises: 0012

Stored in the database, not in process memory, so several workers share one count.
NOTE for merging: this branch lacks 0010-0012, so down_revision is temporarily "0009"; set it to "0012".
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_limit_hits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_rate_limit_hits_key_created", "rate_limit_hits", ["key", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_rate_limit_hits_key_created", table_name="rate_limit_hits")
    op.drop_table("rate_limit_hits")
