"""License keys

Revision ID: 0018
Revises: 0017

- `agents.activation_limit`: how many machines one key may be activated on (default 3; NULL: unlimited).
- `license_keys`: one per purchase (`purchase_id` unique), looked up by the SHA-256 of the key (`key_hash`).
- `license_activations`: the machines a key is activated on.
- `rate_limit_counters`: fixed-window counters, one row per key (the license API's limits per address and key).
- Every purchase made before this revision gets its key here, as a new purchase gets one when it is recorded.
"""

import hashlib
import secrets
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The same format as services/licenses/keys.py (a migration does not import the application, which changes).
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _s(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def _new_key() -> str:
    bits = secrets.randbits(100)
    chars = "".join(CROCKFORD[(bits >> (5 * i)) & 31] for i in range(20))
    return "-".join(chars[i:i + 5] for i in range(0, 20, 5))


def upgrade() -> None:
    with op.batch_alter_table("agents") as batch_op:
        batch_op.add_column(sa.Column("activation_limit", sa.Integer(), nullable=True, server_default="3"))
    op.create_table(
        "license_keys",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("purchase_id", _s(32), sa.ForeignKey("purchases.id", ondelete="CASCADE"), nullable=False,
                  unique=True),
        sa.Column("agent_id", _s(32), sa.ForeignKey("agents.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", _s(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key", _s(23), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("activation_usage", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("disabled_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_license_keys_agent_id", "license_keys", ["agent_id"])
    op.create_index("ix_license_keys_user_id", "license_keys", ["user_id"])
    op.create_table(
        "license_activations",
        sa.Column("id", _s(32), primary_key=True),
        sa.Column("license_key_id", _s(32), sa.ForeignKey("license_keys.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", _s(100), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_license_activations_license_key_id", "license_activations", ["license_key_id"])
    op.create_table(
        "rate_limit_counters",
        sa.Column("key", _s(255), primary_key=True),
        sa.Column("window_start", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
    )
    _backfill()


def _backfill() -> None:
    """A key for every existing purchase, in batches (a large installation has many)."""
    bind = op.get_bind()
    keys = sa.table("license_keys", *(sa.column(name) for name in
                                      ("id", "purchase_id", "agent_id", "user_id", "key", "key_hash",
                                       "activation_usage", "created_at")))
    while True:
        rows = bind.execute(sa.text(
            "SELECT p.id, p.agent_id, p.user_id FROM purchases p "
            "WHERE NOT EXISTS (SELECT 1 FROM license_keys k WHERE k.purchase_id = p.id) LIMIT 1000")).all()
        if not rows:
            return
        now = datetime.now(UTC).replace(tzinfo=None)
        values = []
        for purchase_id, agent_id, user_id in rows:
            key = _new_key()
            values.append({"id": uuid.uuid4().hex, "purchase_id": purchase_id, "agent_id": agent_id,
                           "user_id": user_id, "key": key, "key_hash": hashlib.sha256(key.encode()).hexdigest(),
                           "activation_usage": 0, "created_at": now})
        bind.execute(keys.insert(), values)


def downgrade() -> None:
    op.drop_table("rate_limit_counters")
    op.drop_index("ix_license_activations_license_key_id", table_name="license_activations")
    op.drop_table("license_activations")
    op.drop_index("ix_license_keys_user_id", table_name="license_keys")
    op.drop_index("ix_license_keys_agent_id", table_name="license_keys")
    op.drop_table("license_keys")
    # Plain ALTER on both databases (SQLite >= 3.35): a batch copy of `agents` would drop its triggers.
    op.execute("ALTER TABLE agents DROP COLUMN activation_limit")
