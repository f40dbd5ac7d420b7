"""Indexes for the admin panel's reads at 100,000 users and agents and 200,000 orders

Revision ID: 0011
Revises: 0010

- users (role, created_at, id) over users not deleted: the customer and vendor tables page newest first and
  count their rows from the index;
- agents (created_at, id) and (status, created_at, id) over agents not deleted: the admin agent table, whole
  or by status (the approvals sub-tabs); (status, review_count, avg_rating) over the same rows: the agent
  quality summary's counts and mean rating without reading the table;
- agents (favorites_count, id) over live agents: Most Saved, as the other rankings already have theirs;
- orders: every completed sale with the columns the admin sums and lists (date, id, currency, rate, split,
  amounts), so the commissions page, the per-day series and the sales summary are index-only reads.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE = sa.text("status = 'approved' AND deleted_at IS NULL")
NOT_DELETED = sa.text("deleted_at IS NULL")
COMPLETED = sa.text("status = 'completed'")
ORDER_COLUMNS = ["created_at", "id", "currency", "exchange_rate", "commission_split_enabled", "total_amount_cents",
                 "platform_fee_cents", "vendor_amount_cents"]

INDEXES = [
    ("ix_users_admin_role_created", "users", ["role", "created_at", "id"], NOT_DELETED),
    ("ix_agents_admin_created", "agents", ["created_at", "id"], NOT_DELETED),
    ("ix_agents_admin_status", "agents", ["status", "created_at", "id"], NOT_DELETED),
    ("ix_agents_admin_quality", "agents", ["status", "review_count", "avg_rating"], NOT_DELETED),
    ("ix_agents_pub_favorites", "agents", ["favorites_count", "id"], LIVE),
    ("ix_orders_completed_created", "orders", ORDER_COLUMNS, COMPLETED),
]


KEY = "day, currency, exchange_rate, commission_split_enabled"
SUMS = "sales, total_amount_cents, platform_fee_cents, vendor_amount_cents"
ADD = ", ".join(f"{c} = order_day_totals.{c} + excluded.{c}" for c in SUMS.split(", "))


def _upsert(prefix: str, day: str, sign: str) -> str:
    """One order's amounts (`prefix` NEW or OLD) added with `sign` to its day's row."""
    return (f"INSERT INTO order_day_totals ({KEY}, {SUMS}) VALUES ({day}, {prefix}.currency, {prefix}.exchange_rate, "
            f"{prefix}.commission_split_enabled, {sign}1, {sign}{prefix}.total_amount_cents, "
            f"{sign}{prefix}.platform_fee_cents, {sign}{prefix}.vendor_amount_cents) "
            f"ON CONFLICT ({KEY}) DO UPDATE SET {ADD}")


PG_DAY = "CAST(timezone('UTC', {p}.created_at) AS date)"
SQLITE_DAY = "date({p}.created_at)"
PG_FUNCTION = f"""
CREATE FUNCTION orders_day_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'completed' THEN
    {_upsert("OLD", PG_DAY.format(p="OLD"), "-")};
  END IF;
  IF NEW.status = 'completed' THEN
    {_upsert("NEW", PG_DAY.format(p="NEW"), "")};
  END IF;
  RETURN NULL;
END $$
"""
PG_TRIGGER = ("CREATE TRIGGER orders_day_totals AFTER INSERT OR UPDATE OF status, created_at, currency, exchange_rate, "
              "commission_split_enabled, total_amount_cents, platform_fee_cents, vendor_amount_cents ON orders "
              "FOR EACH ROW EXECUTE FUNCTION orders_day_totals()")
WATCHED = ("status, created_at, currency, exchange_rate, commission_split_enabled, total_amount_cents, "
           "platform_fee_cents, vendor_amount_cents")
SQLITE_TRIGGERS = {
    "orders_day_totals_ai": f"CREATE TRIGGER orders_day_totals_ai AFTER INSERT ON orders "
                            f"WHEN NEW.status = 'completed' BEGIN {_upsert('NEW', SQLITE_DAY.format(p='NEW'), '')}; END",
    "orders_day_totals_au_old": f"CREATE TRIGGER orders_day_totals_au_old AFTER UPDATE OF {WATCHED} ON orders "
                                f"WHEN OLD.status = 'completed' "
                                f"BEGIN {_upsert('OLD', SQLITE_DAY.format(p='OLD'), '-')}; END",
    "orders_day_totals_au_new": f"CREATE TRIGGER orders_day_totals_au_new AFTER UPDATE OF {WATCHED} ON orders "
                                f"WHEN NEW.status = 'completed' "
                                f"BEGIN {_upsert('NEW', SQLITE_DAY.format(p='NEW'), '')}; END",
}


# A copy of `rebuild_day_totals` as it was when this revision was written (now benchmarks/day_totals.py):
# a migration must not change when a service does.
_DAY = {"postgresql": "CAST(timezone('UTC', created_at) AS date)", "sqlite": "date(created_at)"}


def _rebuild_day_totals(connection: sa.engine.Connection) -> None:
    day = _DAY["postgresql" if connection.dialect.name == "postgresql" else "sqlite"]
    connection.execute(sa.text("DELETE FROM order_day_totals"))
    connection.execute(sa.text(
        "INSERT INTO order_day_totals (day, currency, exchange_rate, commission_split_enabled, sales, "
        "total_amount_cents, platform_fee_cents, vendor_amount_cents) "
        f"SELECT {day}, currency, exchange_rate, commission_split_enabled, count(*), sum(total_amount_cents), "
        "sum(platform_fee_cents), sum(vendor_amount_cents) FROM orders WHERE status = 'completed' "
        f"GROUP BY {day}, currency, exchange_rate, commission_split_enabled"))


def upgrade() -> None:
    for name, table, columns, where in INDEXES:
        op.create_index(name, table, columns, postgresql_where=where, sqlite_where=where)
    op.create_table(
        "order_day_totals",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("exchange_rate", sa.Numeric(12, 4), nullable=False),
        sa.Column("commission_split_enabled", sa.Boolean(), nullable=False),
        sa.Column("sales", sa.Integer(), nullable=False),
        sa.Column("total_amount_cents", sa.BigInteger(), nullable=False),
        sa.Column("platform_fee_cents", sa.BigInteger(), nullable=False),
        sa.Column("vendor_amount_cents", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("day", "currency", "exchange_rate", "commission_split_enabled"),
    )
    _rebuild_day_totals(op.get_bind())
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PG_FUNCTION)
        op.execute(PG_TRIGGER)
    else:
        for ddl in SQLITE_TRIGGERS.values():
            op.execute(ddl)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS orders_day_totals ON orders")
        op.execute("DROP FUNCTION IF EXISTS orders_day_totals()")
    else:
        for name in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table("order_day_totals")
    for name, table, _, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
