"""SQLite search: the FTS5 index holds live documents only

Revision ID: 0022
Revises: 0021

Catalogue search on SQLite (revision 0002) indexed every agent in `agents_fts` and checked liveness per match
against `agents`: a search for `emails` at 100,000 agents probed `agent_search_docs` and `agents` for each of
30,907 matches (~280 ms of the ~1 s it took) only to count 27,455 live ones. Now `agent_search_docs.live` follows
the agent's status and deletion (triggers on `agents`), the FTS index's content is the view `agent_search_live`
(the live rows), and the triggers on `agent_search_docs` add or remove a document when it becomes live or stops
being live. A search then counts its matches from the FTS index alone and reads `agent_search_docs` only for the
page's rows. `bm25`'s corpus statistics are now those of the live catalogue (was: every agent).

PostgreSQL is unchanged (`agent_search.live`, revision 0004).

Later SQLite migrations that re-create the search triggers (0002's note) must use this revision's definitions of
`agent_search_docs_*` and `agents_search_ai`, and keep `agents_search_live_au`.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLS = "name, short_description, description, tags, vendor"
_NEW = "new.search_key, new.name, new.short_description, new.description, new.tags, new.vendor"
_OLD = "old.search_key, old.name, old.short_description, old.description, old.tags, old.vendor"
_TAGS = "coalesce((SELECT group_concat(tag, ' ') FROM agent_tags WHERE agent_tags.agent_id = new.id), '')"
_VENDOR = "coalesce((SELECT username FROM users WHERE users.id = new.vendor_id), '')"
_LIVE_NEW = "(new.status = 'approved' AND new.deleted_at IS NULL)"
_LIVE_OLD = "(old.status = 'approved' AND old.deleted_at IS NULL)"

# Revision 0002's definitions, restored on the way down.
_FTS_0002 = f"""
    CREATE VIRTUAL TABLE agents_fts USING fts5(
        {_COLS}, content='agent_search_docs', content_rowid='search_key', tokenize='unicode61 remove_diacritics 2'
    )"""
_TRIGGERS_0002 = {
    "agent_search_docs_ai": f"""
        CREATE TRIGGER agent_search_docs_ai AFTER INSERT ON agent_search_docs BEGIN
            INSERT INTO agents_fts(rowid, {_COLS}) VALUES ({_NEW});
        END""",
    "agent_search_docs_ad": f"""
        CREATE TRIGGER agent_search_docs_ad AFTER DELETE ON agent_search_docs BEGIN
            INSERT INTO agents_fts(agents_fts, rowid, {_COLS}) VALUES ('delete', {_OLD});
        END""",
    "agent_search_docs_au": f"""
        CREATE TRIGGER agent_search_docs_au AFTER UPDATE ON agent_search_docs BEGIN
            INSERT INTO agents_fts(agents_fts, rowid, {_COLS}) VALUES ('delete', {_OLD});
            INSERT INTO agents_fts(rowid, {_COLS}) VALUES ({_NEW});
        END""",
    "agents_search_ai": f"""
        CREATE TRIGGER agents_search_ai AFTER INSERT ON agents BEGIN
            INSERT INTO agent_search_docs(agent_id, {_COLS})
            VALUES (new.id, new.name, new.short_description, new.description, {_TAGS}, {_VENDOR});
        END""",
}

_FTS = f"""
    CREATE VIRTUAL TABLE agents_fts USING fts5(
        {_COLS}, content='agent_search_live', content_rowid='search_key', tokenize='unicode61 remove_diacritics 2'
    )"""
_VIEW = f"CREATE VIEW agent_search_live AS SELECT search_key, {_COLS} FROM agent_search_docs WHERE live"
_TRIGGERS = {
    # The FTS index holds exactly the live rows of its content table.
    "agent_search_docs_ai": f"""
        CREATE TRIGGER agent_search_docs_ai AFTER INSERT ON agent_search_docs WHEN new.live BEGIN
            INSERT INTO agents_fts(rowid, {_COLS}) VALUES ({_NEW});
        END""",
    "agent_search_docs_ad": f"""
        CREATE TRIGGER agent_search_docs_ad AFTER DELETE ON agent_search_docs WHEN old.live BEGIN
            INSERT INTO agents_fts(agents_fts, rowid, {_COLS}) VALUES ('delete', {_OLD});
        END""",
    "agent_search_docs_au": f"""
        CREATE TRIGGER agent_search_docs_au AFTER UPDATE ON agent_search_docs BEGIN
            INSERT INTO agents_fts(agents_fts, rowid, {_COLS}) SELECT 'delete', {_OLD} WHERE old.live;
            INSERT INTO agents_fts(rowid, {_COLS}) SELECT {_NEW} WHERE new.live;
        END""",
    # `live` follows the agent.
    "agents_search_ai": f"""
        CREATE TRIGGER agents_search_ai AFTER INSERT ON agents BEGIN
            INSERT INTO agent_search_docs(agent_id, {_COLS}, live)
            VALUES (new.id, new.name, new.short_description, new.description, {_TAGS}, {_VENDOR}, {_LIVE_NEW});
        END""",
    "agents_search_live_au": f"""
        CREATE TRIGGER agents_search_live_au AFTER UPDATE OF status, deleted_at ON agents
        WHEN {_LIVE_NEW} IS NOT {_LIVE_OLD} BEGIN
            UPDATE agent_search_docs SET live = {_LIVE_NEW} WHERE agent_id = new.id;
        END""",
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name in ("agent_search_docs_ai", "agent_search_docs_ad", "agent_search_docs_au", "agents_search_ai"):
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE agents_fts")
    op.execute("ALTER TABLE agent_search_docs ADD COLUMN live BOOLEAN NOT NULL DEFAULT 0")
    op.execute("UPDATE agent_search_docs SET live = 1 WHERE agent_id IN "
               "(SELECT id FROM agents WHERE status = 'approved' AND deleted_at IS NULL)")
    op.execute(_VIEW)
    op.execute(_FTS)
    op.execute("INSERT INTO agents_fts(agents_fts) VALUES ('rebuild')")
    for ddl in _TRIGGERS.values():
        op.execute(ddl)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for name in _TRIGGERS:
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE agents_fts")
    op.execute("DROP VIEW agent_search_live")
    op.execute("ALTER TABLE agent_search_docs DROP COLUMN live")
    op.execute(_FTS_0002)
    op.execute("INSERT INTO agents_fts(agents_fts) VALUES ('rebuild')")
    for ddl in _TRIGGERS_0002.values():
        op.execute(ddl)
