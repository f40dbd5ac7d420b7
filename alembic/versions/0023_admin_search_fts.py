"""Admin searches on SQLite: trigram FTS5 shadows of users, agents and orders

Revision ID: 0023
Revises: 0022

The admin tables' search box is a case-insensitive substring match (services/table_search.py) over users'
username, e-mail, first and last name, agents' name and short description, and orders' agent name and customer
e-mail. PostgreSQL answers it from 0021's trigram indexes. SQLite cannot use an index for `LIKE '%term%'`, so
every search read the whole table twice (count and page): 100 ms - 3 s at 100,000 rows.

SQLite (>= 3.34 has FTS5's `trigram` tokenizer; this revision is a no-op on PostgreSQL): per searched table
- `admin_search_<table>`: a narrow copy of the columns a search filters, orders and matches on (same names as in
  the table), keyed by an INTEGER `search_key` that is stable across VACUUM (a table's implicit rowid is not),
  with the row's id unique;
- `admin_search_<table>_fts`: an external-content FTS5 table over its searched columns with the `trigram`
  tokenizer (case folded), changed only by the copy's triggers, which pass FTS5 the exact old values.
Triggers on the table keep the copy in the writer's statement (insert, update of a copied column, delete).
A search of three or more characters takes the FTS5 phrase of the lowered term as a superset of the matches
(every trigram in order) and keeps the exact `lower(column) LIKE` test on the copy's rows, so the results are
what the scan gave; the count and the page then read the copy's narrow rows instead of the tables' wide ones.

Note for later SQLite migrations: batch ("move and copy") operations on users, agents or orders drop these
triggers; re-create them with `create_sqlite_triggers()` of this module's text.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table -> (columns a search filters and orders on, columns it matches); both copied under their own names.
SHADOWED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "users": (("id", "role", "deleted_at", "created_at"), ("username", "email", "first_name", "last_name")),
    "agents": (("id", "status", "deleted_at", "created_at"), ("name", "short_description")),
    "orders": (("id", "status", "created_at"), ("agent_name", "customer_email")),
}


def _names(table: str) -> tuple[str, str]:
    return f"admin_search_{table}", f"admin_search_{table}_fts"


def _ddl(table: str) -> list[str]:
    shadow, fts = _names(table)
    kept, searched = SHADOWED[table]
    columns = ", ".join(f"{c} {'VARCHAR(32) NOT NULL UNIQUE' if c == 'id' else ''}".strip() for c in kept + searched)
    return [
        f"CREATE TABLE {shadow} (search_key INTEGER PRIMARY KEY, {columns})",
        f"CREATE VIRTUAL TABLE {fts} USING fts5({', '.join(searched)}, content='{shadow}', "
        f"content_rowid='search_key', tokenize='trigram')",
    ]


def _triggers(table: str) -> dict[str, str]:
    shadow, fts = _names(table)
    kept, searched = SHADOWED[table]
    copied = kept + searched
    cols = ", ".join(searched)
    old = ", ".join(f"old.{c}" for c in searched)
    new = ", ".join(f"new.{c}" for c in searched)
    return {
        # The FTS index follows its content table exactly (only when a searched column changes).
        f"{shadow}_ai": f"""
            CREATE TRIGGER {shadow}_ai AFTER INSERT ON {shadow} BEGIN
                INSERT INTO {fts}(rowid, {cols}) VALUES (new.search_key, {new});
            END""",
        f"{shadow}_ad": f"""
            CREATE TRIGGER {shadow}_ad AFTER DELETE ON {shadow} BEGIN
                INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.search_key, {old});
            END""",
        f"{shadow}_au": f"""
            CREATE TRIGGER {shadow}_au AFTER UPDATE OF {cols} ON {shadow} BEGIN
                INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.search_key, {old});
                INSERT INTO {fts}(rowid, {cols}) VALUES (new.search_key, {new});
            END""",
        # The content table follows the table.
        f"{table}_admin_search_ai": f"""
            CREATE TRIGGER {table}_admin_search_ai AFTER INSERT ON {table} BEGIN
                INSERT INTO {shadow}({', '.join(copied)}) VALUES ({', '.join(f'new.{c}' for c in copied)});
            END""",
        f"{table}_admin_search_au": f"""
            CREATE TRIGGER {table}_admin_search_au AFTER UPDATE OF {', '.join(copied)} ON {table} BEGIN
                UPDATE {shadow} SET {', '.join(f'{c} = new.{c}' for c in copied)} WHERE id = old.id;
            END""",
        f"{table}_admin_search_ad": f"""
            CREATE TRIGGER {table}_admin_search_ad AFTER DELETE ON {table} BEGIN
                DELETE FROM {shadow} WHERE id = old.id;
            END""",
    }


def create_sqlite_triggers() -> None:
    for table in SHADOWED:
        for name, ddl in _triggers(table).items():
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
            op.execute(ddl)


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table, (kept, searched) in SHADOWED.items():
        shadow, fts = _names(table)
        for ddl in _ddl(table):
            op.execute(ddl)
        copied = ", ".join(kept + searched)
        # Existing rows in one pass each, then the index in one build (the triggers come after).
        op.execute(f"INSERT INTO {shadow} ({copied}) SELECT {copied} FROM {table}")
        op.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
    create_sqlite_triggers()


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in reversed(list(SHADOWED)):
        for name in _triggers(table):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        shadow, fts = _names(table)
        op.execute(f"DROP TABLE IF EXISTS {fts}")
        op.execute(f"DROP TABLE IF EXISTS {shadow}")
