"""A claim on a customer's saved cards, and receipts of vendor plan payments

Revision ID: 0039
Revises: 0036

- `billing_customers.cards_busy_until`: while a request changes which card pays (make one the default, remove
  one), it holds this lease, taken by one conditional UPDATE; a second request at the same moment is refused
  instead of interleaving its Stripe calls with the first's.
- `receipts.plan_payment_id`: a receipt of a vendor's plan payment (the marketplace is the seller), numbered in
  the same sequence as order receipts; `order_id` becomes optional, one of the two is set.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0039"
down_revision: str | None = "0036"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("billing_customers", sa.Column("cards_busy_until", sa.DateTime(), nullable=True))
    # Batch mode: SQLite cannot make a column nullable or add a foreign key in place (nothing refers to receipts,
    # so rebuilding the table loses nothing).
    with op.batch_alter_table("receipts") as batch_op:
        batch_op.alter_column("order_id", existing_type=sa.String(32), nullable=True)
        batch_op.add_column(sa.Column("plan_payment_id", sa.String(32), nullable=True))
        batch_op.create_foreign_key("fk_receipts_plan_payment_id", "plan_payments", ["plan_payment_id"], ["id"])
        batch_op.create_unique_constraint("uq_receipts_plan_payment_id_kind", ["plan_payment_id", "kind"])


def downgrade() -> None:
    op.execute("DELETE FROM receipts WHERE order_id IS NULL")
    with op.batch_alter_table("receipts") as batch_op:
        batch_op.drop_constraint("uq_receipts_plan_payment_id_kind", type_="unique")
        batch_op.drop_constraint("fk_receipts_plan_payment_id", type_="foreignkey")
        batch_op.drop_column("plan_payment_id")
        batch_op.alter_column("order_id", existing_type=sa.String(32), nullable=False)
    op.drop_column("billing_customers", "cards_busy_until")
