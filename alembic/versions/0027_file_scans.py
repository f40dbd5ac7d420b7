"""File scans: one security scan per stored agent object (services/scanning)

Revision ID: 0027
Revises: 0024

- `file_scans`: per storage key, the last verdict (`status`, `findings`, `engines`, `scanned_at`) and the queue
  fields of the background scanner (`due_at`, `attempts`, `last_error`, `engines_key`).
Every object stored before this revision gets a pending scan, so the scanners check it before anyone but its
vendor downloads it again. A verdict (`status`, `scanned_at`) moves the catalog version (revision 0004's
triggers), since a live agent's cached answer shows its scan date (`scannedAt`).
"""

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0027"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    scans = op.create_table(
        "file_scans",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("storage_key", _s(500), nullable=False),
        sa.Column("status", _s(16), nullable=False),
        sa.Column("findings", sa.Text(), nullable=False),
        sa.Column("engines", sa.Text(), nullable=False),
        sa.Column("engines_key", _s(200), nullable=False),
        sa.Column("scanned_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.UniqueConstraint("storage_key"),
    )
    op.create_index("ix_file_scans_due_at", "file_scans", ["due_at"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE TRIGGER file_scans_version AFTER INSERT OR DELETE OR UPDATE OF status, scanned_at "
                   "ON file_scans FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()")
    else:
        for event in ("INSERT", "DELETE", "UPDATE OF status, scanned_at"):
            name = f"file_scans_version_{event.split()[0].lower()}"
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON file_scans "
                       "BEGIN UPDATE catalog_version SET version = version + 1 WHERE id = 1; END")
    keys = op.get_bind().execute(sa.text("SELECT DISTINCT storage_key FROM agent_files")).scalars().all()
    now = datetime.now(UTC)
    op.bulk_insert(scans, [{"id": uuid.uuid4().hex, "storage_key": key, "status": "pending", "findings": "[]",
                            "engines": "{}", "engines_key": "", "created_at": now, "due_at": now, "attempts": 0}
                           for key in keys])


def downgrade() -> None:
    op.drop_table("file_scans")
