"""Orders remember the refund that gave a payment back

Revision ID: 0006
Revises: 0005

A payment that grants nothing (the buyer already owned the agent, e.g. paid in two tabs) is refunded at
once; the order keeps the provider's refund id and the status `refunded`.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("orders") as batch_op:
        batch_op.add_column(sa.Column("refund_id", sa.String(length=255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("orders") as batch_op:
        batch_op.drop_column("refund_id")
