"""`order_day_totals` (revision 0011): completed sales per (UTC day, currency, rate, split), kept by triggers.

`rebuild_day_totals` recomputes the table from `orders` in one statement: run after a bulk load that bypassed
the triggers (the admin benchmark's COPY); tests/unit/test_admin_sales.py checks the triggers against it. The app
itself never needs it (the triggers keep the table), so it lives here; the migration that creates the table keeps
its own copy of it.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection

_DAY = {"postgresql": "CAST(timezone('UTC', created_at) AS date)", "sqlite": "date(created_at)"}


def rebuild_day_totals(connection: Connection) -> None:
    """Empty `order_day_totals` and fill it again from the completed orders."""
    day = _DAY["postgresql" if connection.dialect.name == "postgresql" else "sqlite"]
    connection.execute(text("DELETE FROM order_day_totals"))
    connection.execute(text(
        "INSERT INTO order_day_totals (day, currency, exchange_rate, commission_split_enabled, sales, "
        "total_amount_cents, platform_fee_cents, vendor_amount_cents) "
        f"SELECT {day}, currency, exchange_rate, commission_split_enabled, count(*), sum(total_amount_cents), "
        "sum(platform_fee_cents), sum(vendor_amount_cents) FROM orders WHERE status = 'completed' "
        f"GROUP BY {day}, currency, exchange_rate, commission_split_enabled"))
