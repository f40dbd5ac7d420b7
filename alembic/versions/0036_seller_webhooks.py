"""Seller webhooks: a vendor's endpoints and the delivery outbox

Revision ID: 0036
Revises: 0035

- `webhook_endpoints`: a vendor's address, the events it listens to (comma-separated), the signing secret;
  deleted endpoints are disabled (`disabled_at`).
- `webhook_deliveries`: one row per event and endpoint, written in the transaction that causes the event and
  claimed by the sender with one conditional update on `next_attempt_at`; the last attempt's answer is kept.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0036"
down_revision: str | None = "0035"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("vendor_id", _s(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("url", _s(2048), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.Column("secret", _s(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("disabled_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_webhook_endpoints_vendor_id", "webhook_endpoints", ["vendor_id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("endpoint_id", _s(32), sa.ForeignKey("webhook_endpoints.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("event_id", _s(40), nullable=False),
        sa.Column("type", _s(40), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(), nullable=True),
        sa.Column("retry_until", sa.DateTime(), nullable=False),
        sa.Column("last_response_code", sa.Integer(), nullable=True),
        sa.Column("last_duration_ms", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_webhook_deliveries_next_attempt_at", "webhook_deliveries", ["next_attempt_at"])
    op.create_index("ix_webhook_deliveries_endpoint_created", "webhook_deliveries", ["endpoint_id", "created_at"])


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")
