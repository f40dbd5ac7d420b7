"""Money over time: pricing models, subscriptions, refunds and access that ends

Revision ID: 0017
Revises: 0016

- `agents.pricing_model`: `monthly` (a subscription, the default: the spec's 'Price (Monthly)') or `one_time`.
- `billing_customers`: the one Stripe Customer of a user.
- `subscriptions`: a monthly agent's subscription, mirrored from Stripe's webhooks.
- `orders`: what the charge was for (`kind`), the subscription and invoice it paid (one order per invoice:
  `invoice_id` is unique), when it was refunded or disputed.
- `purchases`: the subscription behind a right, until when it lasts (`access_until`, NULL for good) and
  whether a dispute suspended it.
- `refunds`: at most one open or succeeded refund per order (a partial unique index), so two requests at the
  same moment cannot both give the money back.

Each area's part is its own function below, so that work on one does not touch the others.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN_REFUND_SQL = "status IN ('requested', 'pending', 'succeeded')"


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


@contextmanager
def _sqlite_triggers_kept(*tables: str) -> Iterator[None]:
    """SQLite: a batch change that adds a foreign key or a unique constraint copies the table into a new one,
    and the copy has none of the old table's triggers (orders' day totals of 0011, purchases' catalog version of
    0014): create them again, as they were, once the batch is done. PostgreSQL alters in place."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        yield
        return
    names = ", ".join(f"'{table}'" for table in tables)
    kept = bind.execute(sa.text(f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
                                f"AND tbl_name IN ({names})")).all()
    yield
    for name, ddl in kept:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute(ddl)


# --- pricing models -------------------------------------------------------------------------------------------


# The listing JSON and the cached agent carry `pricingModel`: a change of it moves the catalog version (0004's
# triggers name the columns they watch, so this one is added beside them).
PRICING_VERSION_TRIGGER = {
    "sqlite": "CREATE TRIGGER agents_version_pricing AFTER UPDATE OF pricing_model ON agents "
              "BEGIN UPDATE catalog_version SET version = version + 1 WHERE id = 1; END",
    "postgresql": "CREATE TRIGGER agents_version_pricing AFTER UPDATE OF pricing_model ON agents "
                  "FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()",
}


def _pricing_up() -> None:
    with op.batch_alter_table("agents") as batch_op:
        batch_op.add_column(sa.Column("pricing_model", _s(16), nullable=False, server_default="monthly"))
    op.execute(PRICING_VERSION_TRIGGER[op.get_bind().dialect.name])


def _pricing_down() -> None:
    on_agents = " ON agents" if op.get_bind().dialect.name == "postgresql" else ""
    op.execute(f"DROP TRIGGER IF EXISTS agents_version_pricing{on_agents}")
    with _sqlite_triggers_kept("agents"), op.batch_alter_table("agents") as batch_op:
        batch_op.drop_column("pricing_model")


# --- subscriptions --------------------------------------------------------------------------------------------


def _subscriptions_up() -> None:
    op.create_table(
        "billing_customers",
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("stripe_customer_id", sa.String(255), nullable=False, unique=True),
        sa.Column("test_clock_id", _s(255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "subscriptions",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("agent_id", _s(32), sa.ForeignKey("agents.id", ondelete="SET NULL"), nullable=True),
        sa.Column("vendor_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("agent_name", _s(200), nullable=False),
        sa.Column("stripe_subscription_id", sa.String(255), nullable=False, unique=True),
        sa.Column("stripe_customer_id", _s(255), nullable=False),
        sa.Column("stripe_price_id", _s(255), nullable=False),
        sa.Column("status", _s(24), nullable=False),
        sa.Column("price_cents", sa.Integer(), nullable=False),
        sa.Column("currency", _s(3), nullable=False),
        sa.Column("original_price_usd_cents", sa.Integer(), nullable=False),
        sa.Column("exchange_rate", sa.Numeric(12, 4), nullable=False),
        sa.Column("commission_rate", sa.Numeric(5, 2), nullable=False),
        sa.Column("commission_split_enabled", sa.Boolean(), nullable=False),
        sa.Column("current_period_end", sa.DateTime(), nullable=True),
        sa.Column("cancel_at_period_end", sa.Boolean(), nullable=False),
        sa.Column("past_due_since", sa.DateTime(), nullable=True),
        sa.Column("canceled_at", sa.DateTime(), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_subscriptions_agent_id", "subscriptions", ["agent_id"])
    op.create_index("ix_subscriptions_status", "subscriptions", ["status"])
    op.create_index("ix_subscriptions_user_agent", "subscriptions", ["user_id", "agent_id"])
    op.create_index("ix_subscriptions_vendor_status", "subscriptions", ["vendor_id", "status"])
    with _sqlite_triggers_kept("orders", "purchases"):
        with op.batch_alter_table("orders") as batch_op:
            batch_op.add_column(sa.Column("kind", _s(16), nullable=False, server_default="purchase"))
            batch_op.add_column(sa.Column("subscription_id", _s(32), nullable=True))
            batch_op.add_column(sa.Column("invoice_id", sa.String(255), nullable=True))
            batch_op.add_column(sa.Column("refunded_at", sa.DateTime(), nullable=True))
            batch_op.add_column(sa.Column("disputed_at", sa.DateTime(), nullable=True))
            batch_op.create_foreign_key("fk_orders_subscription_id", "subscriptions", ["subscription_id"], ["id"],
                                        ondelete="SET NULL")
            batch_op.create_unique_constraint("uq_orders_invoice_id", ["invoice_id"])
            batch_op.create_index("ix_orders_subscription_id", ["subscription_id"])
        with op.batch_alter_table("purchases") as batch_op:
            batch_op.add_column(sa.Column("subscription_id", _s(32), nullable=True))
            batch_op.add_column(sa.Column("access_until", sa.DateTime(), nullable=True))
            batch_op.add_column(sa.Column("suspended_at", sa.DateTime(), nullable=True))
            batch_op.create_foreign_key("fk_purchases_subscription_id", "subscriptions", ["subscription_id"], ["id"],
                                        ondelete="SET NULL")
            batch_op.create_index("ix_purchases_subscription_id", ["subscription_id"])


def _subscriptions_down() -> None:
    with _sqlite_triggers_kept("orders", "purchases"):
        with op.batch_alter_table("purchases") as batch_op:
            batch_op.drop_index("ix_purchases_subscription_id")
            batch_op.drop_constraint("fk_purchases_subscription_id", type_="foreignkey")
            for column in ("suspended_at", "access_until", "subscription_id"):
                batch_op.drop_column(column)
        with op.batch_alter_table("orders") as batch_op:
            batch_op.drop_index("ix_orders_subscription_id")
            batch_op.drop_constraint("uq_orders_invoice_id", type_="unique")
            batch_op.drop_constraint("fk_orders_subscription_id", type_="foreignkey")
            for column in ("disputed_at", "refunded_at", "invoice_id", "subscription_id", "kind"):
                batch_op.drop_column(column)
    op.drop_table("subscriptions")
    op.drop_table("billing_customers")


# --- refunds --------------------------------------------------------------------------------------------------


def _refunds_up() -> None:
    op.create_table(
        "refunds",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("order_id", _s(32), sa.ForeignKey("orders.id"), nullable=False),
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("requested_by_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("source", _s(16), nullable=False),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("amount_cents", sa.Integer(), nullable=False),
        sa.Column("currency", _s(3), nullable=False),
        sa.Column("stripe_refund_id", sa.String(255), nullable=True, unique=True),
        sa.Column("decided_by_id", _s(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("decision_reason", sa.Text(), nullable=True),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
        sa.Column("failure_reason", _s(500), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ux_refunds_open_order", "refunds", ["order_id"], unique=True,
                    postgresql_where=sa.text(OPEN_REFUND_SQL), sqlite_where=sa.text(OPEN_REFUND_SQL))
    op.create_index("ix_refunds_status_created", "refunds", ["status", "created_at"])
    op.create_index("ix_refunds_user_created", "refunds", ["user_id", "created_at"])


def _refunds_down() -> None:
    op.drop_table("refunds")


def upgrade() -> None:
    _pricing_up()
    _subscriptions_up()
    _refunds_up()


def downgrade() -> None:
    _refunds_down()
    _subscriptions_down()
    _pricing_down()
