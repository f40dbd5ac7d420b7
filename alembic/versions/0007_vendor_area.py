"""Vendor area: Stripe Connect account details, who decided an application, vendor sales and notification indexes

Revision ID: 0007
Revises: 0006

The vendor dashboard reads a connected account's requirements, country and currency as the last
`account.updated` webhook (or a refresh) left them; one pending application per user is enforced by a
partial unique index; a vendor's sales and a user's notifications are read newest first by index.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PENDING = sa.text("status = 'pending'")


def upgrade() -> None:
    # Plain ADD/DROP COLUMN (SQLite has both): a batch rebuild of `users` would trip over the catalogue
    # triggers and views that read it.
    op.add_column("users", sa.Column("stripe_details_submitted", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))
    op.add_column("users", sa.Column("stripe_requirements_due", sa.Text(), nullable=False, server_default="[]"))
    op.add_column("users", sa.Column("stripe_disabled_reason", sa.String(length=255), nullable=True))
    op.add_column("users", sa.Column("stripe_country", sa.String(length=2), nullable=True))
    op.add_column("users", sa.Column("stripe_default_currency", sa.String(length=3), nullable=True))
    with op.batch_alter_table("vendor_applications") as batch_op:
        batch_op.add_column(sa.Column("decided_by", sa.String(length=32), nullable=True))
        batch_op.create_foreign_key("fk_vendor_applications_decided_by", "users", ["decided_by"], ["id"],
                                    ondelete="SET NULL")
    # Older data may hold several pending applications of one user: keep the newest pending.
    op.execute("""
        UPDATE vendor_applications SET status = 'rejected'
        WHERE status = 'pending' AND EXISTS (
            SELECT 1 FROM vendor_applications newer
            WHERE newer.user_id = vendor_applications.user_id AND newer.status = 'pending'
              AND (newer.created_at > vendor_applications.created_at
                   OR (newer.created_at = vendor_applications.created_at AND newer.id > vendor_applications.id)))
    """)
    op.create_index("ux_vendor_applications_pending", "vendor_applications", ["user_id"], unique=True,
                    postgresql_where=PENDING, sqlite_where=PENDING)
    op.create_index("ix_notifications_user_created", "notifications", ["user_id", "created_at"])
    op.create_index("ix_orders_vendor_created", "orders", ["vendor_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_orders_vendor_created", table_name="orders")
    op.drop_index("ix_notifications_user_created", table_name="notifications")
    op.drop_index("ux_vendor_applications_pending", table_name="vendor_applications")
    with op.batch_alter_table("vendor_applications") as batch_op:
        batch_op.drop_constraint("fk_vendor_applications_decided_by", type_="foreignkey")
        batch_op.drop_column("decided_by")
    for column in ("stripe_default_currency", "stripe_country", "stripe_disabled_reason",
                   "stripe_requirements_due", "stripe_details_submitted"):
        op.drop_column("users", column)
