"""Why a license key was disabled: the reason its vendor or an admin gave, which the buyer reads

Revision ID: 0029
Revises: 0027

`license_keys.disabled_reason`: set with `disabled_at` when a key is disabled, cleared with it when the key is
enabled again; the buyer sees it on the purchase in My Agents and in the mail that tells them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0029"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("license_keys") as batch_op:
        batch_op.add_column(sa.Column("disabled_reason", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("license_keys") as batch_op:
        batch_op.drop_column("disabled_reason")
