"""Receipts and credit notes: gap-free numbers, a snapshot per document, and the buyer's receipt details

Revision ID: 0031
Revises: 0030

- `receipt_counters`: the last number given per sequence (`receipt`, `credit_note`); a number is taken by one
  UPDATE ... RETURNING in the transaction that writes the document, so numbers are never skipped or reused.
- `receipts`: one receipt per order and one credit note per refunded order (unique per order and kind), numbered
  per kind, with what the document says frozen when it was numbered.
- `users.business_name`, `billing_address`, `tax_id`: optional, shown on receipts numbered after they are set.
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    op.create_table(
        "receipt_counters",
        sa.Column("name", _s(32), primary_key=True),
        sa.Column("last_number", sa.Integer(), nullable=False),
    )
    op.create_table(
        "receipts",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("kind", _s(16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("order_id", _s(32), sa.ForeignKey("orders.id"), nullable=False),
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("refers_to_number", sa.Integer(), nullable=True),
        sa.Column("issued_at", sa.DateTime(), nullable=False),
        sa.Column("paid_at", sa.DateTime(), nullable=False),
        sa.Column("seller_name", _s(200), nullable=False),
        sa.Column("buyer_name", _s(200), nullable=False),
        sa.Column("buyer_email", _s(255), nullable=False),
        sa.Column("buyer_business_name", _s(200), nullable=True),
        sa.Column("buyer_billing_address", _s(500), nullable=True),
        sa.Column("buyer_tax_id", _s(32), nullable=True),
        sa.Column("line", _s(500), nullable=False),
        sa.Column("subtotal_cents", sa.Integer(), nullable=False),
        sa.Column("discount_cents", sa.Integer(), nullable=False),
        sa.Column("total_cents", sa.Integer(), nullable=False),
        sa.Column("currency", _s(3), nullable=False),
        sa.Column("card_brand", _s(32), nullable=True),
        sa.Column("card_last4", _s(4), nullable=True),
        sa.UniqueConstraint("kind", "number"),
        sa.UniqueConstraint("order_id", "kind"),
    )
    op.create_index("ix_receipts_user_id", "receipts", ["user_id"])
    op.bulk_insert(sa.table("receipt_counters", sa.column("name", sa.String()), sa.column("last_number", sa.Integer())),
                   [{"name": "receipt", "last_number": 0}, {"name": "credit_note", "last_number": 0}])
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(sa.Column("business_name", _s(200), nullable=True))
        batch_op.add_column(sa.Column("billing_address", _s(500), nullable=True))
        batch_op.add_column(sa.Column("tax_id", _s(32), nullable=True))


def downgrade() -> None:
    # Not batch mode: on SQLite it would rebuild `users`, and dropping the old table deletes the rows that
    # reference it (ON DELETE CASCADE) and its catalogue triggers. SQLite 3.35+ drops a plain column in place.
    for column in ("tax_id", "billing_address", "business_name"):
        op.drop_column("users", column)
    op.drop_table("receipts")
    op.drop_table("receipt_counters")
