"""catalog: full-text search index, live-agent counts and partial indexes for the public listing

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
- PostgreSQL: `agent_search` holds one weighted tsvector per agent and whether the agent is live
  (GIN index over live agents), refreshed by
  statement-level triggers (transition tables make bulk loads set-based) and a row-level trigger
  for edits of the searchable agent columns or a vendor's username.

Listing totals: `agent_listing_counts` holds the number of live agents per (category, price band,
rating band, featured), kept exact by triggers on agents (statement-level with transition tables for
bulk inserts/deletes on PostgreSQL, row-level elsewhere). Band edges must match
`services.catalog.PRICE_BAND_EDGES` / `RATING_BAND_FLOORS` (a test checks that they do).

Listing cache: `catalog_version` holds one number that changes, at commit, whenever anything a
public listing shows or sorts by changes (agents, tags, files, vendor usernames, categories). The
app caches listing pages per version (`services.catalog`). On PostgreSQL, statement triggers mark the
transaction in `catalog_touches`, and a deferred constraint trigger bumps the version at commit, so
writers take that single row lock only while committing (no lock-order deadlocks, no long waits).
SQLite serialises writers anyway and bumps directly.

Note for later SQLite migrations: batch ("move and copy") operations on agents, agent_tags or users
drop their triggers; re-create them with `create_sqlite_triggers()` of this module's text.
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
# They replace 0001's full indexes on (status, deleted_at, <key>): same purpose, a tenth of the
# size, and SQLite's planner otherwise picks those and sorts instead of walking the right order.
REPLACED_INDEXES: dict[str, list[str]] = {
    "ix_agents_live_created": ["status", "deleted_at", "created_at"],
    "ix_agents_live_price": ["status", "deleted_at", "price_cents"],
    "ix_agents_live_rating": ["status", "deleted_at", "avg_rating"],
    "ix_agents_live_sales": ["status", "deleted_at", "sales_count"],
    "ix_agents_live_category": ["status", "deleted_at", "category_id", "created_at"],
    "ix_agents_live_featured": ["status", "deleted_at", "is_featured", "created_at"],
}
LISTING_INDEXES: dict[str, list[str]] = {
    "ix_agents_pub_newest": ["created_at", "id"],
    "ix_agents_pub_sales": ["sales_count", "id"],
    "ix_agents_pub_rating": ["avg_rating", "review_count", "id"],
    "ix_agents_pub_price": ["price_cents", "id"],
    "ix_agents_pub_category": ["category_id", "created_at", "id"],
    "ix_agents_pub_featured": ["is_featured", "created_at", "id"],
}

# ---- live-agent counts (both dialects) ------------------------------------------------------------

PRICE_BAND = ("CASE WHEN {p} <= 0 THEN 0 WHEN {p} <= 1000 THEN 1 WHEN {p} <= 2500 THEN 2 WHEN {p} <= 5000 THEN 3 "
              "WHEN {p} <= 10000 THEN 4 ELSE 5 END")
RATING_BAND = "CASE WHEN {r} >= 5 THEN 4 WHEN {r} >= 4 THEN 3 WHEN {r} >= 3 THEN 2 WHEN {r} >= 2 THEN 1 ELSE 0 END"
COUNT_KEY = "category_id, price_band, rating_band, is_featured"


def _key(row: str) -> str:
    prefix = f"{row}." if row else ""
    return (f"coalesce({prefix}category_id, 0), {PRICE_BAND.format(p=prefix + 'price_cents')}, "
            f"{RATING_BAND.format(r=prefix + 'avg_rating')}, {prefix}is_featured")


def _live(row: str) -> str:
    prefix = f"{row}." if row else ""
    return f"({prefix}status = 'approved' AND {prefix}deleted_at IS NULL)"


FILL_COUNTS = f"""
    INSERT INTO agent_listing_counts ({COUNT_KEY}, live_count)
    SELECT {_key('')}, count(*) FROM agents WHERE {_live('')} GROUP BY 1, 2, 3, 4
"""

SQLITE_COUNT_TRIGGERS = {
    "agents_counts_ai": f"""
        CREATE TRIGGER agents_counts_ai AFTER INSERT ON agents WHEN {_live('new')} BEGIN
            INSERT INTO agent_listing_counts ({COUNT_KEY}, live_count) VALUES ({_key('new')}, 1)
            ON CONFLICT ({COUNT_KEY}) DO UPDATE SET live_count = live_count + 1;
        END""",
    "agents_counts_ad": f"""
        CREATE TRIGGER agents_counts_ad AFTER DELETE ON agents WHEN {_live('old')} BEGIN
            UPDATE agent_listing_counts SET live_count = live_count - 1 WHERE ({COUNT_KEY}) = ({_key('old')});
        END""",
    "agents_counts_au": f"""
        CREATE TRIGGER agents_counts_au
        AFTER UPDATE OF status, deleted_at, category_id, price_cents, avg_rating, is_featured ON agents
        WHEN {_live('old')} != {_live('new')} OR ({_key('old')}) != ({_key('new')}) BEGIN
            UPDATE agent_listing_counts SET live_count = live_count - 1
            WHERE {_live('old')} AND ({COUNT_KEY}) = ({_key('old')});
            INSERT INTO agent_listing_counts ({COUNT_KEY}, live_count) SELECT {_key('new')}, 1 WHERE {_live('new')}
            ON CONFLICT ({COUNT_KEY}) DO UPDATE SET live_count = live_count + 1;
        END""",
}

_PG_KEY_OLD = ("coalesce(OLD.category_id, 0), agent_price_band(OLD.price_cents), agent_rating_band(OLD.avg_rating), "
               "OLD.is_featured")
_PG_KEY_NEW = _PG_KEY_OLD.replace("OLD.", "NEW.")
_PG_KEY_ROWS = "coalesce(category_id, 0), agent_price_band(price_cents), agent_rating_band(avg_rating), is_featured"

POSTGRES_COUNT_DDL = [
    f"""
    CREATE FUNCTION agent_price_band(p integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT {PRICE_BAND.format(p='p')} $$
    """,
    f"""
    CREATE FUNCTION agent_rating_band(r double precision) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT {RATING_BAND.format(r='r')} $$
    """,
    f"""
    CREATE FUNCTION agent_counts_bump(p_category integer, p_price integer, p_rating integer, p_featured boolean,
                                      p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
        IF p_delta > 0 THEN
            INSERT INTO agent_listing_counts AS c ({COUNT_KEY}, live_count)
            VALUES (p_category, p_price, p_rating, p_featured, p_delta)
            ON CONFLICT ({COUNT_KEY}) DO UPDATE SET live_count = c.live_count + EXCLUDED.live_count;
        ELSE
            UPDATE agent_listing_counts SET live_count = live_count + p_delta
            WHERE ({COUNT_KEY}) = (p_category, p_price, p_rating, p_featured);
        END IF;
    END $$
    """,
    f"""
    CREATE FUNCTION agents_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO agent_listing_counts AS c ({COUNT_KEY}, live_count)
        SELECT {_PG_KEY_ROWS}, count(*) FROM new_rows WHERE {_live('')}
        GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        ON CONFLICT ({COUNT_KEY}) DO UPDATE SET live_count = c.live_count + EXCLUDED.live_count;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER agents_counts_ins AFTER INSERT ON agents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agents_counts_inserted()
    """,
    f"""
    CREATE FUNCTION agents_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE agent_listing_counts c SET live_count = c.live_count - d.n
        FROM (SELECT coalesce(category_id, 0) AS category_id, agent_price_band(price_cents) AS price_band,
                     agent_rating_band(avg_rating) AS rating_band, is_featured, count(*) AS n
              FROM old_rows WHERE {_live('')} GROUP BY 1, 2, 3, 4) d
        WHERE (c.category_id, c.price_band, c.rating_band, c.is_featured)
            = (d.category_id, d.price_band, d.rating_band, d.is_featured);
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER agents_counts_del AFTER DELETE ON agents
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION agents_counts_deleted()
    """,
    # Row-level for edits: fires only when liveness or a cell changes; cells are locked in key order so
    # two agents moving between the same cells in opposite directions cannot deadlock.
    f"""
    CREATE FUNCTION agents_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        old_live boolean := {_live('OLD')};
        new_live boolean := {_live('NEW')};
    BEGIN
        IF old_live AND new_live AND ROW({_PG_KEY_NEW}) < ROW({_PG_KEY_OLD}) THEN
            PERFORM agent_counts_bump({_PG_KEY_NEW}, 1);
            PERFORM agent_counts_bump({_PG_KEY_OLD}, -1);
        ELSE
            IF old_live THEN PERFORM agent_counts_bump({_PG_KEY_OLD}, -1); END IF;
            IF new_live THEN PERFORM agent_counts_bump({_PG_KEY_NEW}, 1); END IF;
        END IF;
        RETURN NULL;
    END $$
    """,
    f"""
    CREATE TRIGGER agents_counts_upd
    AFTER UPDATE OF status, deleted_at, category_id, price_cents, avg_rating, is_featured ON agents
    FOR EACH ROW WHEN ({_live('OLD')} IS DISTINCT FROM {_live('NEW')}
                       OR ROW({_PG_KEY_OLD}) IS DISTINCT FROM ROW({_PG_KEY_NEW}))
    EXECUTE FUNCTION agents_counts_updated()
    """,
    """
    CREATE FUNCTION agents_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM agent_listing_counts;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER agents_counts_trunc AFTER TRUNCATE ON agents
    FOR EACH STATEMENT EXECUTE FUNCTION agents_counts_truncated()
    """,
]

POSTGRES_COUNT_DROP = [
    "DROP TRIGGER IF EXISTS agents_counts_trunc ON agents",
    "DROP TRIGGER IF EXISTS agents_counts_upd ON agents",
    "DROP TRIGGER IF EXISTS agents_counts_del ON agents",
    "DROP TRIGGER IF EXISTS agents_counts_ins ON agents",
    "DROP FUNCTION IF EXISTS agents_counts_truncated()",
    "DROP FUNCTION IF EXISTS agents_counts_updated()",
    "DROP FUNCTION IF EXISTS agents_counts_deleted()",
    "DROP FUNCTION IF EXISTS agents_counts_inserted()",
    "DROP FUNCTION IF EXISTS agent_counts_bump(integer, integer, integer, boolean, integer)",
    "DROP FUNCTION IF EXISTS agent_rating_band(double precision)",
    "DROP FUNCTION IF EXISTS agent_price_band(integer)",
]

# ---- catalog version (listing cache validation) -----------------------------------------------------

# table -> columns whose change alters a listing (None: any change, insert and delete included)
VERSIONED: dict[str, list[str] | None] = {
    "agents": ["vendor_id", "category_id", "name", "short_description", "description", "price_cents", "image_url",
               "demo_url", "status", "rejection_reason", "is_featured", "rating_sum", "review_count", "avg_rating",
               "sales_count", "created_at", "updated_at", "deleted_at", "id"],
    "agent_tags": None,
    "agent_files": None,
    "categories": None,
    "users": ["username"],
}


def _sqlite_version_triggers() -> dict[str, str]:
    bump = "UPDATE catalog_version SET version = version + 1 WHERE id = 1;"
    triggers = {}
    for table, columns in VERSIONED.items():
        events = ["UPDATE" if columns is None else f"UPDATE OF {', '.join(columns)}"]
        if columns is None or table == "agents":
            events += ["INSERT", "DELETE"]
        for event in events:
            name = f"{table}_version_{event.split()[0].lower()}"
            triggers[name] = f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {bump} END"
    return triggers


SQLITE_VERSION_TRIGGERS = _sqlite_version_triggers()

POSTGRES_VERSION_DDL = [
    "CREATE TABLE catalog_touches (txid bigint PRIMARY KEY)",
    # Once per transaction: note it; the constraint trigger below then fires at commit.
    """
    CREATE FUNCTION catalog_touch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF current_setting('catalog.touched', true) IS DISTINCT FROM txid_current()::text THEN
            PERFORM set_config('catalog.touched', txid_current()::text, true);
            INSERT INTO catalog_touches (txid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION catalog_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE catalog_version SET version = version + 1 WHERE id = 1;
        DELETE FROM catalog_touches WHERE txid = NEW.txid;
        RETURN NULL;
    END $$
    """,
    """
    CREATE CONSTRAINT TRIGGER catalog_touches_commit AFTER INSERT ON catalog_touches
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_bump()
    """,
    *(
        f"CREATE TRIGGER {table}_version AFTER INSERT OR DELETE OR UPDATE"
        f"{'' if columns is None else ' OF ' + ', '.join(columns)} ON {table}"
        f" FOR EACH STATEMENT EXECUTE FUNCTION catalog_touch()"
        for table, columns in VERSIONED.items()
        if table != "users"
    ),
    "CREATE TRIGGER users_version AFTER UPDATE OF username ON users FOR EACH STATEMENT "
    "EXECUTE FUNCTION catalog_touch()",
    *(
        f"CREATE TRIGGER {table}_version_truncate AFTER TRUNCATE ON {table} FOR EACH STATEMENT "
        "EXECUTE FUNCTION catalog_touch()"
        for table in VERSIONED
    ),
]

POSTGRES_VERSION_DROP = [
    *(f"DROP TRIGGER IF EXISTS {table}_version_truncate ON {table}" for table in VERSIONED),
    *(f"DROP TRIGGER IF EXISTS {table}_version ON {table}" for table in VERSIONED),
    "DROP TRIGGER IF EXISTS catalog_touches_commit ON catalog_touches",
    "DROP FUNCTION IF EXISTS catalog_bump()",
    "DROP FUNCTION IF EXISTS catalog_touch()",
    "DROP TABLE IF EXISTS catalog_touches",
]

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
        live boolean NOT NULL,
        document tsvector NOT NULL
    )
    """,
    # Only live agents are searched, so only they are indexed; `live` also spares the public search a
    # join with agents just to check the status.
    "CREATE INDEX ix_agent_search_document ON agent_search USING GIN (document) WHERE live",
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
        INSERT INTO agent_search (agent_id, live, document)
        SELECT a.id, a.status = 'approved' AND a.deleted_at IS NULL, agent_search_vector(
            a.name, a.short_description, a.description,
            (SELECT string_agg(t.tag, ' ') FROM agent_tags t WHERE t.agent_id = a.id),
            u.username)
        FROM agents a LEFT JOIN users u ON u.id = a.vendor_id
        WHERE a.id = ANY(p_ids)
        ON CONFLICT (agent_id) DO UPDATE SET live = EXCLUDED.live, document = EXCLUDED.document
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
    CREATE TRIGGER agents_search_upd
    AFTER UPDATE OF name, short_description, description, vendor_id, status, deleted_at ON agents
    FOR EACH ROW WHEN (
        OLD.name IS DISTINCT FROM NEW.name OR OLD.short_description IS DISTINCT FROM NEW.short_description
        OR OLD.description IS DISTINCT FROM NEW.description OR OLD.vendor_id IS DISTINCT FROM NEW.vendor_id
        OR OLD.status IS DISTINCT FROM NEW.status OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at
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
    for ddl in [*SQLITE_TRIGGERS.values(), *SQLITE_COUNT_TRIGGERS.values(), *SQLITE_VERSION_TRIGGERS.values()]:
        op.execute(ddl)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in REPLACED_INDEXES:
        op.drop_index(name, table_name="agents")
    for name, columns in LISTING_INDEXES.items():
        op.create_index(
            name, "agents", columns, postgresql_where=sa.text(LIVE), sqlite_where=sa.text(LIVE)
        )
    op.create_table(
        "agent_listing_counts",
        sa.Column("category_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("price_band", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("rating_band", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("is_featured", sa.Boolean(), nullable=False),
        sa.Column("live_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("category_id", "price_band", "rating_band", "is_featured"),
    )
    op.execute(FILL_COUNTS)
    op.create_table(
        "catalog_version",
        sa.Column("id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.CheckConstraint("id = 1", name="ck_catalog_version_single_row"),
    )
    op.execute("INSERT INTO catalog_version (id, version) VALUES (1, 1)")
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
        for ddl in [*POSTGRES_DDL, *POSTGRES_COUNT_DDL, *POSTGRES_VERSION_DDL]:
            op.execute(ddl)
    else:
        raise NotImplementedError(f"no full-text search support for {dialect}")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in reversed([*SQLITE_TRIGGERS, *SQLITE_COUNT_TRIGGERS, *SQLITE_VERSION_TRIGGERS]):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute("DROP TABLE IF EXISTS agents_fts")
        op.execute("DROP TABLE IF EXISTS agent_search_docs")
    elif dialect == "postgresql":
        for ddl in [*POSTGRES_VERSION_DROP, *POSTGRES_COUNT_DROP, *POSTGRES_DROP]:
            op.execute(ddl)
    op.drop_table("catalog_version")
    op.drop_table("agent_listing_counts")
    for name in reversed(list(LISTING_INDEXES)):
        op.drop_index(name, table_name="agents")
    for name, columns in REPLACED_INDEXES.items():
        op.create_index(name, "agents", columns)
