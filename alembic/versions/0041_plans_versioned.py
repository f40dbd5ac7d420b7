"""The plans on offer move the catalog version, so they are cached with the catalogue's other public reads

Revision ID: 0041
Revises: 0040

The landing page shows the plans (name, price, agent limit, fee) to every visitor, and read them from the
database on each visit. They are now cached per process under `catalog_version` (services/plans/catalog.py), like
the other public reads of revision 0014, so the version moves, in the same commit, when
- a plan is added, changed or deleted (`plans`),
- a platform setting is added, changed or deleted (`platform_settings`): the Free plan's fee is the commission
  rate setting. Settings change rarely (an admin's edit), so every key moves it, not only that one.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0041"
down_revision: str | None = "0040"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("plans", "platform_settings")
EVENTS = ("INSERT", "UPDATE", "DELETE")
BUMP = "UPDATE catalog_version SET version = version + 1 WHERE id = 1;"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"CREATE TRIGGER {table}_version AFTER INSERT OR DELETE OR UPDATE ON {table} "
                       "FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()")
            op.execute(f"CREATE TRIGGER {table}_version_truncate AFTER TRUNCATE ON {table} "
                       "FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()")
        return
    for table in TABLES:
        for event in EVENTS:
            op.execute(f"CREATE TRIGGER {table}_version_{event.lower()} AFTER {event} ON {table} BEGIN {BUMP} END")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_version_truncate ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_version ON {table}")
        return
    for table in TABLES:
        for event in EVENTS:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_version_{event.lower()}")
