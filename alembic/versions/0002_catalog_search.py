"""catalog: full-text search index and partial indexes for the public listing

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 09:00:00

Search documents are built from an agent's name, short description, description, tags and vendor
username; the last two live in other tables, so the index is kept in sync by triggers on agents,
agent_tags and users.

- SQLite: `agent_search_docs` holds the text as last indexed (one row per agent, with an INTEGER
  key that is stable across VACUUM), and `agents_fts` is an FTS5 external-content table over it.
  The FTS index is only ever changed by the triggers of `agent_search_docs`, which pass the exact old
  values to FTS5's 'delete' command, so the index cannot drift from its content table.
- PostgreSQL: `agent_search` holds one weighted tsvector per agent (GIN index), refreshed by
  statement-level triggers (transition tables make bulk loads set-based) and a row-level trigger
  for edits of the searchable agent columns or a vendor's username.

Note for later SQLite migrations: batch ("move and copy") operations on agents, agent_tags or users
drop their triggers; re-create them with `create_sqlite_triggers()` of this module's text, except those
revision 0022 replaced or added (`agent_search_docs_*`, `agents_search_ai`, `agents_search_live_au`: use 0022's).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE = "status = 'approved' AND deleted_at IS NULL"

# Partial indexes over live agents only: each serves one browse order (scanned either way) and
# the LIMIT stops after a page; ids make the order total.
LISTING_INDEXES: dict[str, list[str]] = {
    "ix_agents_pub_newest": ["created_at", "id"],
    "ix_agents_pub_sales": ["sales_count", "id"],
    "ix_agents_pub_rating": ["avg_rating", "review_count", "id"],
    "ix_agents_pub_price": ["price_cents", "id"],
    "ix_agents_pub_category": ["category_id", "created_at", "id"],
    "ix_agents_pub_featured": ["is_featured", "created_at", "id"],
}

# ---- SQLite ----------------------------------------------------------------------------------------

_SQLITE_TAGS = (
    "coalesce((SELECT group_concat(tag, ' ') FROM agent_tags WHERE agent_tags.agent_id = {aid}), '')"
)
_SQLITE_VENDOR = "coalesce((SELECT username FROM users WHERE users.id = {vid}), '')"
_FTS_COLS = "name, short_description, description, tags, vendor"

SQLITE_TABLES = [
    """
    CREATE TABLE agent_search_docs (
        search_key INTEGER PRIMARY KEY,
        agent_id VARCHAR(32) NOT NULL UNIQUE,
        name TEXT NOT NULL DEFAULT '',
        short_description TEXT NOT NULL DEFAULT '',
        description TEXT NOT NULL DEFAULT '',
        tags TEXT NOT NULL DEFAULT '',
        vendor TEXT NOT NULL DEFAULT ''
    )
    """,
    f"""
    CREATE VIRTUAL TABLE agents_fts USING fts5(
        {_FTS_COLS},
        content='agent_search_docs', content_rowid='search_key',
        tokenize='unicode61 remove_diacritics 2'
    )
    """,
]

SQLITE_TRIGGERS = {
    # The FTS index follows its content table exactly.
    "agent_search_docs_ai": f"""
        CREATE TRIGGER agent_search_docs_ai AFTER INSERT ON agent_search_docs BEGIN
            INSERT INTO agents_fts(rowid, {_FTS_COLS})
            VALUES (new.search_key, new.name, new.short_description, new.description, new.tags, new.vendor);
        END""",
    "agent_search_docs_ad": f"""
        CREATE TRIGGER agent_search_docs_ad AFTER DELETE ON agent_search_docs BEGIN
            INSERT INTO agents_fts(agents_fts, rowid, {_FTS_COLS})
            VALUES ('delete', old.search_key, old.name, old.short_description, old.description, old.tags, old.vendor);
        END""",
    "agent_search_docs_au": f"""
        CREATE TRIGGER agent_search_docs_au AFTER UPDATE ON agent_search_docs BEGIN
            INSERT INTO agents_fts(agents_fts, rowid, {_FTS_COLS})
            VALUES ('delete', old.search_key, old.name, old.short_description, old.description, old.tags, old.vendor);
            INSERT INTO agents_fts(rowid, {_FTS_COLS})
            VALUES (new.search_key, new.name, new.short_description, new.description, new.tags, new.vendor);
        END""",
    # The content table follows agents, agent_tags and users.
    "agents_search_ai": f"""
        CREATE TRIGGER agents_search_ai AFTER INSERT ON agents BEGIN
            INSERT INTO agent_search_docs(agent_id, {_FTS_COLS})
            VALUES (new.id, new.name, new.short_description, new.description,
                    {_SQLITE_TAGS.format(aid="new.id")}, {_SQLITE_VENDOR.format(vid="new.vendor_id")});
        END""",
    "agents_search_au": f"""
        CREATE TRIGGER agents_search_au AFTER UPDATE OF name, short_description, description, vendor_id ON agents
        BEGIN
            UPDATE agent_search_docs
            SET name = new.name, short_description = new.short_description, description = new.description,
                vendor = {_SQLITE_VENDOR.format(vid="new.vendor_id")}
            WHERE agent_id = new.id;
        END""",
    "agents_search_ad": """
        CREATE TRIGGER agents_search_ad AFTER DELETE ON agents BEGIN
            DELETE FROM agent_search_docs WHERE agent_id = old.id;
        END""",
    "agent_tags_search_ai": f"""
        CREATE TRIGGER agent_tags_search_ai AFTER INSERT ON agent_tags BEGIN
            UPDATE agent_search_docs SET tags = {_SQLITE_TAGS.format(aid="new.agent_id")}
            WHERE agent_id = new.agent_id;
        END""",
    "agent_tags_search_ad": f"""
        CREATE TRIGGER agent_tags_search_ad AFTER DELETE ON agent_tags BEGIN
            UPDATE agent_search_docs SET tags = {_SQLITE_TAGS.format(aid="old.agent_id")}
            WHERE agent_id = old.agent_id;
        END""",
    "agent_tags_search_au": f"""
        CREATE TRIGGER agent_tags_search_au AFTER UPDATE ON agent_tags BEGIN
            UPDATE agent_search_docs SET tags = {_SQLITE_TAGS.format(aid="old.agent_id")}
            WHERE agent_id = old.agent_id;
            UPDATE agent_search_docs SET tags = {_SQLITE_TAGS.format(aid="new.agent_id")}
            WHERE agent_id = new.agent_id;
        END""",
    "users_search_au": """
        CREATE TRIGGER users_search_au AFTER UPDATE OF username ON users BEGIN
            UPDATE agent_search_docs SET vendor = new.username
            WHERE agent_id IN (SELECT id FROM agents WHERE vendor_id = new.id);
        END""",
}

# ---- PostgreSQL ------------------------------------------------------------------------------------

POSTGRES_DDL = [
    """
    CREATE TABLE agent_search (
        agent_id VARCHAR(32) PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
        document tsvector NOT NULL
    )
    """,
    "CREATE INDEX ix_agent_search_document ON agent_search USING GIN (document)",
    # Weights: name A, short description and tags B, vendor C, description D. The 'simple' copies of
    # the short fields keep unstemmed words, so a prefix of a whole word ("automati:*") still matches.
    """
    CREATE FUNCTION agent_search_vector(p_name text, p_short text, p_description text, p_tags text, p_vendor text)
    RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT setweight(to_tsvector('english'::regconfig, coalesce(p_name, '')), 'A')
            || setweight(to_tsvector('simple'::regconfig, coalesce(p_name, '')), 'A')
            || setweight(to_tsvector('english'::regconfig, coalesce(p_short, '')), 'B')
            || setweight(to_tsvector('simple'::regconfig, coalesce(p_short, '')), 'B')
            || setweight(to_tsvector('english'::regconfig, coalesce(p_tags, '')), 'B')
            || setweight(to_tsvector('simple'::regconfig, coalesce(p_tags, '')), 'B')
            || setweight(to_tsvector('simple'::regconfig, coalesce(p_vendor, '')), 'C')
            || setweight(to_tsvector('english'::regconfig, coalesce(p_description, '')), 'D')
    $$
    """,
    """
    CREATE FUNCTION agent_search_refresh(p_ids varchar[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO agent_search (agent_id, document)
        SELECT a.id, agent_search_vector(
            a.name, a.short_description, a.description,
            (SELECT string_agg(t.tag, ' ') FROM agent_tags t WHERE t.agent_id = a.id),
            u.username)
        FROM agents a LEFT JOIN users u ON u.id = a.vendor_id
        WHERE a.id = ANY(p_ids)
        ON CONFLICT (agent_id) DO UPDATE SET document = EXCLUDED.document
    $$
    """,
    """
    CREATE FUNCTION agents_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM agent_search_refresh(ARRAY(SELECT id FROM new_rows));
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER agents_search_ins AFTER INSERT ON agents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agents_search_inserted()
    """,
    """
    CREATE FUNCTION agents_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM agent_search_refresh(ARRAY[NEW.id]);
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER agents_search_upd AFTER UPDATE OF name, short_description, description, vendor_id ON agents
    FOR EACH ROW WHEN (
        OLD.name IS DISTINCT FROM NEW.name OR OLD.short_description IS DISTINCT FROM NEW.short_description
        OR OLD.description IS DISTINCT FROM NEW.description OR OLD.vendor_id IS DISTINCT FROM NEW.vendor_id
    ) EXECUTE FUNCTION agents_search_updated()
    """,
    """
    CREATE FUNCTION agent_tags_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            PERFORM agent_search_refresh(ARRAY(SELECT DISTINCT agent_id FROM new_rows));
        ELSIF TG_OP = 'DELETE' THEN
            PERFORM agent_search_refresh(ARRAY(SELECT DISTINCT agent_id FROM old_rows));
        ELSE
            PERFORM agent_search_refresh(ARRAY(
                SELECT agent_id FROM old_rows UNION SELECT agent_id FROM new_rows));
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER agent_tags_search_ins AFTER INSERT ON agent_tags
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_tags_search_changed()
    """,
    """
    CREATE TRIGGER agent_tags_search_del AFTER DELETE ON agent_tags
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_tags_search_changed()
    """,
    """
    CREATE TRIGGER agent_tags_search_upd AFTER UPDATE ON agent_tags
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION agent_tags_search_changed()
    """,
    """
    CREATE FUNCTION users_search_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM agent_search_refresh(ARRAY(SELECT id FROM agents WHERE vendor_id = NEW.id));
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER users_search_upd AFTER UPDATE OF username ON users
    FOR EACH ROW WHEN (OLD.username IS DISTINCT FROM NEW.username) EXECUTE FUNCTION users_search_renamed()
    """,
    # Index whatever already exists.
    "SELECT agent_search_refresh(ARRAY(SELECT id FROM agents))",
]

POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS users_search_upd ON users",
    "DROP TRIGGER IF EXISTS agent_tags_search_upd ON agent_tags",
    "DROP TRIGGER IF EXISTS agent_tags_search_del ON agent_tags",
    "DROP TRIGGER IF EXISTS agent_tags_search_ins ON agent_tags",
    "DROP TRIGGER IF EXISTS agents_search_upd ON agents",
    "DROP TRIGGER IF EXISTS agents_search_ins ON agents",
    "DROP FUNCTION IF EXISTS users_search_renamed()",
    "DROP FUNCTION IF EXISTS agent_tags_search_changed()",
    "DROP FUNCTION IF EXISTS agents_search_updated()",
    "DROP FUNCTION IF EXISTS agents_search_inserted()",
    "DROP FUNCTION IF EXISTS agent_search_refresh(varchar[])",
    "DROP FUNCTION IF EXISTS agent_search_vector(text, text, text, text, text)",
    "DROP TABLE IF EXISTS agent_search",
]


def create_sqlite_triggers() -> None:
    for ddl in SQLITE_TRIGGERS.values():
        op.execute(ddl)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name, columns in LISTING_INDEXES.items():
        op.create_index(
            name, "agents", columns, postgresql_where=sa.text(LIVE), sqlite_where=sa.text(LIVE)
        )
    if dialect == "sqlite":
        for ddl in SQLITE_TABLES:
            op.execute(ddl)
        create_sqlite_triggers()
        op.execute(
            f"""
            INSERT INTO agent_search_docs(agent_id, {_FTS_COLS})
            SELECT a.id, a.name, a.short_description, a.description,
                   {_SQLITE_TAGS.format(aid="a.id")}, {_SQLITE_VENDOR.format(vid="a.vendor_id")}
            FROM agents a
            """
        )
    elif dialect == "postgresql":
        for ddl in POSTGRES_DDL:
            op.execute(ddl)
    else:
        raise NotImplementedError(f"no full-text search support for {dialect}")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in reversed(list(SQLITE_TRIGGERS)):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute("DROP TABLE IF EXISTS agents_fts")
        op.execute("DROP TABLE IF EXISTS agent_search_docs")
    elif dialect == "postgresql":
        for ddl in POSTGRES_DROP:
            op.execute(ddl)
    for name in reversed(list(LISTING_INDEXES)):
        op.drop_index(name, table_name="agents")
