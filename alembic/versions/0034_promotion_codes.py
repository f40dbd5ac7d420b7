"""Promotion codes: codes, the agents they apply to, each buyer's redemption, and the code on orders

Revision ID: 0034
Revises: 0033

- `promotion_codes`: upper-case text unique among active codes (a partial unique index), percent or a USD
  amount, owner vendor, limits, months for monthly agents; `redemptions` is the counted limit (held + redeemed).
- `promotion_code_agents`: the agents a code applies to (none with `all_agents`).
- `promotion_redemptions`: held at checkout, redeemed at completion, released when the checkout is abandoned;
  once per customer (a partial unique index over rows not released).
- `orders.promotion_code`, `orders.discount_cents`: the code and what it took off, snapshotted.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    op.create_table(
        "promotion_codes",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("code", _s(32), nullable=False),
        sa.Column("percent_off", sa.Integer(), nullable=True),
        sa.Column("amount_off_cents", sa.Integer(), nullable=True),
        sa.Column("all_agents", sa.Boolean(), nullable=False),
        sa.Column("vendor_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_by_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("max_redemptions", sa.Integer(), nullable=True),
        sa.Column("redemptions", sa.Integer(), nullable=False),
        sa.Column("first_purchase_only", sa.Boolean(), nullable=False),
        sa.Column("duration", _s(16), nullable=False),
        sa.Column("duration_months", sa.Integer(), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("deactivated_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_promotion_codes_code", "promotion_codes", ["code"])
    op.create_index("ix_promotion_codes_vendor_id", "promotion_codes", ["vendor_id"])
    op.create_index(
        "ux_promotion_codes_active_code",
        "promotion_codes",
        ["code"],
        unique=True,
        postgresql_where=sa.text("active"),
        sqlite_where=sa.text("active"),
    )
    op.create_table(
        "promotion_code_agents",
        sa.Column("code_id", _s(32), sa.ForeignKey("promotion_codes.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("agent_id", _s(32), sa.ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True),
    )
    op.create_index("ix_promotion_code_agents_agent_id", "promotion_code_agents", ["agent_id"])
    op.create_table(
        "promotion_redemptions",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("code_id", _s(32), sa.ForeignKey("promotion_codes.id"), nullable=False),
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("agent_id", _s(32), sa.ForeignKey("agents.id", ondelete="SET NULL"), nullable=True),
        sa.Column("payment_intent_id", _s(255), nullable=True),
        sa.Column("order_id", _s(32), sa.ForeignKey("orders.id", ondelete="SET NULL"), nullable=True),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("discount_cents", sa.Integer(), nullable=False),
        sa.Column("currency", _s(3), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("held_until", sa.DateTime(), nullable=True),
        sa.Column("redeemed_at", sa.DateTime(), nullable=True),
        sa.Column("released_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_promotion_redemptions_code_id", "promotion_redemptions", ["code_id"])
    op.create_index("ix_promotion_redemptions_payment_intent_id", "promotion_redemptions", ["payment_intent_id"])
    op.create_index("ix_promotion_redemptions_held", "promotion_redemptions", ["status", "held_until"])
    op.create_index(
        "ux_promotion_redemptions_once",
        "promotion_redemptions",
        ["code_id", "user_id"],
        unique=True,
        postgresql_where=sa.text("status <> 'released'"),
        sqlite_where=sa.text("status <> 'released'"),
    )
    # Plain add_column (no batch mode): SQLite adds a column in place, keeping the orders triggers.
    op.add_column("orders", sa.Column("promotion_code", _s(32), nullable=True))
    op.add_column("orders", sa.Column("discount_cents", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    # Not batch mode: on SQLite it would rebuild `orders` and lose its triggers. Dropped in place.
    op.drop_column("orders", "discount_cents")
    op.drop_column("orders", "promotion_code")
    op.drop_table("promotion_redemptions")
    op.drop_table("promotion_code_agents")
    op.drop_table("promotion_codes")
