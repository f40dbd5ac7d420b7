"""PostgreSQL: announce every new catalog version with NOTIFY

Revision ID: 0005
Revises: 0004

The commit-time trigger of 0004 now also sends `NOTIFY catalog_version, '<new version>'` (delivered to
listeners only when the transaction commits). Each app process LISTENs and so knows the current version
without reading it on every listing request (services/catalog/version.py). SQLite: nothing changes.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BUMP_AND_NOTIFY = """
CREATE OR REPLACE FUNCTION catalog_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bumped bigint;
BEGIN
    UPDATE catalog_version SET version = version + 1 WHERE id = 1 RETURNING version INTO bumped;
    DELETE FROM catalog_touches WHERE txid = NEW.txid;
    PERFORM pg_notify('catalog_version', bumped::text);
    RETURN NULL;
END $$
"""

BUMP_ONLY = """
CREATE OR REPLACE FUNCTION catalog_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE catalog_version SET version = version + 1 WHERE id = 1;
    DELETE FROM catalog_touches WHERE txid = NEW.txid;
    RETURN NULL;
END $$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(BUMP_AND_NOTIFY)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(BUMP_ONLY)
