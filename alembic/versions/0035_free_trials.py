"""Free trials of monthly agents

Revision ID: 0035
Revises: 0034

- `agents.trial_days`: free days before a new subscriber's first charge (0 = none, 1-30; monthly agents only).
- `subscriptions.trial_end`: when the subscription's free trial ends, set once the trial started with a card;
  NULL for a subscription without a trial. A customer's second subscription to an agent starts paid when one of
  their earlier ones had a trial.
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0035"
down_revision: str | None = "0034"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("agents", sa.Column("trial_days", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("subscriptions", sa.Column("trial_end", sa.DateTime(), nullable=True))


def downgrade() -> None:
    # In place (SQLite 3.35+), not batch mode: a batch copy of `agents` would drop its catalogue triggers.
    op.drop_column("subscriptions", "trial_end")
    op.drop_column("agents", "trial_days")
