"""The mail outbox: outgoing e-mail written in the transaction of the change that causes it

Revision ID: 0015
Revises: 0014

Mail used to be handed to the task queue on a thread after the commit, so a crash right after a commit lost
that commit's mail. Each message is now a row of `mail_outbox`, committed with the change; the app's senders
(services/mail_outbox.py) claim due rows with a lease, send them over SMTP and mark them sent. A row with a
`composer` is written by that function when it is first sent (mail whose writing must stay off the request).
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mail_outbox",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("recipient", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("composer", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_mail_outbox_due_at", "mail_outbox", ["due_at"])


def downgrade() -> None:
    op.drop_index("ix_mail_outbox_due_at", table_name="mail_outbox")
    op.drop_table("mail_outbox")
