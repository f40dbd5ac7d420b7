"""A vendor's answer to a review

Revision ID: 0030
Revises: 0029

`reviews.vendor_reply` with when it was first given (`vendor_reply_at`, shown as its `createdAt`) and last edited
(`vendor_reply_updated_at`): one answer per review, which its vendor may edit and an admin may remove.
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("reviews") as batch_op:
        batch_op.add_column(sa.Column("vendor_reply", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("vendor_reply_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("vendor_reply_updated_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    # Not batch mode: on SQLite it would rebuild `reviews` and lose its catalogue-version triggers (revision
    # 0014), which an upgrade from here does not put back. SQLite 3.35+ drops a plain column in place.
    for column in ("vendor_reply_updated_at", "vendor_reply_at", "vendor_reply"):
        op.drop_column("reviews", column)
