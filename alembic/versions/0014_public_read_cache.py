"""The catalog version also covers what the cached public reads show: reviews, purchases, user counts

Revision ID: 0014
Revises: 0013

One agent, its reviews, the categories and the stats are now cached per process under `catalog_version`,
like listing pages (services/catalog/reads.py). The version already moves with agents, tags, files,
categories and vendor usernames (0004); it now also moves, in the same commit, when
- a review is written, edited or deleted (a review page's rows),
- a purchase is added, changed or deleted (a review's "verified purchase" mark),
- a user is added or deleted, or changes first name or deletion time (the stats' user count, review authors).
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BUMP = "UPDATE catalog_version SET version = version + 1 WHERE id = 1;"
USER_COLUMNS = "username, first_name, deleted_at"

SQLITE_NEW = {
    **{f"{table}_version_{event.lower()}": f"CREATE TRIGGER {table}_version_{event.lower()} AFTER {event} ON {table} "
       f"BEGIN {BUMP} END"
       for table in ("reviews", "purchases") for event in ("INSERT", "UPDATE", "DELETE")},
    **{f"users_version_{event.lower()}": f"CREATE TRIGGER users_version_{event.lower()} AFTER {event} ON users "
       f"BEGIN {BUMP} END"
       for event in ("INSERT", "DELETE")},
}
SQLITE_USERS_UPDATE = ("CREATE TRIGGER users_version_update AFTER UPDATE OF {columns} ON users "
                       f"BEGIN {BUMP} END")

POSTGRES_NEW = {
    **{f"{table}_version": f"CREATE TRIGGER {table}_version AFTER INSERT OR DELETE OR UPDATE ON {table} "
       "FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()" for table in ("reviews", "purchases")},
    **{f"{table}_version_truncate": f"CREATE TRIGGER {table}_version_truncate AFTER TRUNCATE ON {table} "
       "FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()" for table in ("reviews", "purchases")},
}
POSTGRES_USERS = ("CREATE TRIGGER users_version AFTER {events} ON users FOR EACH STATEMENT "
                  "EXECUTE FUNCTION catalog_touch()")


def _table(name: str) -> str:
    return name.split("_version")[0]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for ddl in POSTGRES_NEW.values():
            op.execute(ddl)
        op.execute("DROP TRIGGER IF EXISTS users_version ON users")
        op.execute(POSTGRES_USERS.format(events=f"INSERT OR DELETE OR UPDATE OF {USER_COLUMNS}"))
    else:
        for ddl in SQLITE_NEW.values():
            op.execute(ddl)
        op.execute("DROP TRIGGER IF EXISTS users_version_update")
        op.execute(SQLITE_USERS_UPDATE.format(columns=USER_COLUMNS))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS users_version ON users")
        op.execute(POSTGRES_USERS.format(events="UPDATE OF username"))
        for name in reversed(POSTGRES_NEW):
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON {_table(name)}")
    else:
        op.execute("DROP TRIGGER IF EXISTS users_version_update")
        op.execute(SQLITE_USERS_UPDATE.format(columns="username"))
        for name in reversed(SQLITE_NEW):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
