"""Accounts and e-mail: verified addresses, a pending new address, single-use links (verify, reset)

Revision ID: 0012
Revises: 0011

Existing accounts start unverified (a banner asks them to confirm); the demo accounts are marked verified
by the demo seed. A provider sign-in links only to a verified address.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0012"
# The admin work adds 0010 and 0011; until that is merged this branch chains onto 0009.
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (nullable): no batch rebuild of `users`, which other tables' triggers and keys reference.
    op.add_column("users", sa.Column("email_verified_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("users", sa.Column("pending_email", sa.String(length=255), nullable=True))
    op.create_table(
        "account_tokens",
        sa.Column("token_hash", sa.String(length=64), primary_key=True),
        sa.Column("user_id", sa.String(length=32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    )
    op.create_index("ix_account_tokens_user_purpose", "account_tokens", ["user_id", "purpose"])


def downgrade() -> None:
    op.drop_index("ix_account_tokens_user_purpose", table_name="account_tokens")
    op.drop_table("account_tokens")
    # Plain DROP COLUMN (SQLite 3.35+), for the same reason as the ADD COLUMN above.
    op.drop_column("users", "pending_email")
    op.drop_column("users", "email_verified_at")
