"""Vendor plans: the plans on offer, each vendor's plan and the plan subscriptions' paid invoices

Revision ID: 0020
Revises: 0018

- `plans`: name, monthly price (USD cents), agent limit (NULL: unlimited), fee percent (NULL: the platform
  commission rate setting, so the Free plan and that setting are one number), display order; seeded with the
  spec's Free, Pro and Enterprise.
- `vendor_plans`: a vendor's plan (no row: Free), its Stripe subscription, period end, the plan chosen for the
  period end (a downgrade or cancellation) and when a renewal first failed.
- `plan_payments`: one row per paid invoice of a plan subscription (the admin's plan revenue).
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0020"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SEED = (
    {"id": "free", "name": "Free", "monthly_price_cents": 0, "agent_limit": 3, "fee_percent": None, "sort_order": 0},
    {"id": "pro", "name": "Pro", "monthly_price_cents": 2900, "agent_limit": None, "fee_percent": 10,
     "sort_order": 1},
    {"id": "enterprise", "name": "Enterprise", "monthly_price_cents": 9900, "agent_limit": None, "fee_percent": 5,
     "sort_order": 2},
)


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    plans = op.create_table(
        "plans",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("name", _s(60), nullable=False),
        sa.Column("monthly_price_cents", sa.Integer(), nullable=False),
        sa.Column("agent_limit", sa.Integer(), nullable=True),
        sa.Column("fee_percent", sa.Numeric(5, 2), nullable=True),
        sa.Column("sort_order", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    now = datetime.now(UTC).replace(tzinfo=None)
    op.bulk_insert(plans, [{**row, "updated_at": now} for row in SEED])
    op.create_table(
        "vendor_plans",
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("plan_id", _s(32), sa.ForeignKey("plans.id"), nullable=False),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("stripe_subscription_id", sa.String(255), nullable=True, unique=True),
        sa.Column("current_period_end", sa.DateTime(), nullable=True),
        sa.Column("pending_plan_id", _s(32), sa.ForeignKey("plans.id"), nullable=True),
        sa.Column("past_due_since", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "plan_payments",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("invoice_id", sa.String(255), nullable=False, unique=True),
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("plan_id", _s(32), sa.ForeignKey("plans.id"), nullable=False),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("currency", _s(3), nullable=False),
        sa.Column("billing_reason", _s(32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_plan_payments_user_id", "plan_payments", ["user_id"])
    op.create_index("ix_plan_payments_created_at", "plan_payments", ["created_at"])


def downgrade() -> None:
    op.drop_table("plan_payments")
    op.drop_table("vendor_plans")
    op.drop_table("plans")
