"""Uploads remember the attach that claimed them (`claimed_key`), so a claim is one conditional update

Revision ID: 0016
Revises: 0015

An attach claims its upload with one `UPDATE ... WHERE claimed_key IS NULL AND attached_at IS NULL` before it
moves the object to `claimed_key`; a second attach of the same upload finds the row claimed and answers 409. A
claimed upload stays open (counted, and removed with both objects when it expires) until the attach records
the file or gives the claim up, so a crash in between leaves nothing the expiry sweep does not know.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("uploads") as batch_op:
        batch_op.add_column(sa.Column("claimed_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("uploads") as batch_op:
        batch_op.drop_column("claimed_key")
