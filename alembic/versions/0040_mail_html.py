"""Mail with an HTML part: the outbox keeps it next to the plain text

Revision ID: 0040
Revises: 0039

- `mail_outbox.html`: the message's HTML alternative (NULL: plain text only), e.g. an 'Update available' mail
  whose release notes are Markdown rendered to safe HTML.
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0040"
down_revision: str | None = "0039"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("mail_outbox") as batch:
        batch.add_column(sa.Column("html", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mail_outbox") as batch:
        batch.drop_column("html")
