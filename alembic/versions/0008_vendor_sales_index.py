"""A covering index over completed sales, for the vendor dashboard's sums, counts and pages

Revision ID: 0008
Revises: 0007

Analytics, the earnings chart, the sales count and the sales pages read only completed orders of one
vendor, and only these columns: with all of them in one partial index the database answers from the index
alone (an index-only scan on PostgreSQL, a covering index on SQLite) instead of visiting a heap page per
order, which keeps a vendor with 10,000 sales well inside the 50 ms budget.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMPLETED = sa.text("status = 'completed'")
COLUMNS = ["vendor_id", "created_at", "id", "currency", "exchange_rate", "vendor_amount_cents",
           "total_amount_cents", "platform_fee_cents"]


def upgrade() -> None:
    op.create_index("ix_orders_vendor_sales", "orders", COLUMNS, postgresql_where=COMPLETED, sqlite_where=COMPLETED)


def downgrade() -> None:
    op.drop_index("ix_orders_vendor_sales", table_name="orders")
