"""catalog listing speed: live-agent counts, listing-cache version, searchable-only-if-live

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 09:30:00

Follows 0002 (search index, partial browse indexes); measured with benchmarks/catalog.py at 100k agents.

- `agent_listing_counts`: the number of live agents per (category, price band, rating band,
  featured), kept exact by triggers on agents (statement-level with transition tables for bulk
  inserts/deletes on PostgreSQL, row-level elsewhere). Every browse filter except text and tags is a
  union of these cells, so a listing's total is a sum over a few hundred rows, not a count over all
  agents. Band edges must match `services.catalog.PRICE_BAND_EDGES` / `RATING_BAND_FLOORS` (a test
  checks that they do).
- `catalog_version`: one number that changes, at commit, whenever anything a public listing shows or
  sorts by changes (agents, tags, files, vendor usernames, categories); the app caches listing pages
  per version. On PostgreSQL, statement triggers mark the transaction in `catalog_touches` and a
  deferred constraint trigger bumps the version at commit, so writers hold that one row lock only
  while committing (no lock-order deadlocks, no long waits). SQLite serialises writers anyway.
- PostgreSQL `agent_search.live`: only live agents are searched, so only they are indexed (partial
  GIN), and the public search needs no join with agents to check the status.
- 0001's full (status, deleted_at, <key>) browse indexes are dropped: 0002's partial indexes serve the
  same queries at a tenth of the size, and SQLite's planner otherwise picks the full ones and sorts.

Note for later SQLite migrations: batch ("move and copy") operations on agents, agent_tags, agent_files,
categories or users drop their triggers (these and 0002's); re-create them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

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


# ---- PostgreSQL: search only live agents ------------------------------------------------------------

_REFRESH = """
    CREATE OR REPLACE FUNCTION agent_search_refresh(p_ids varchar[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO agent_search (agent_id, live, document)
        SELECT a.id, a.status = 'approved' AND a.deleted_at IS NULL, agent_search_vector(
            a.name, a.short_description, a.description,
            (SELECT string_agg(t.tag, ' ') FROM agent_tags t WHERE t.agent_id = a.id),
            u.username)
        FROM agents a LEFT JOIN users u ON u.id = a.vendor_id
        WHERE a.id = ANY(p_ids)
        ON CONFLICT (agent_id) DO UPDATE SET live = EXCLUDED.live, document = EXCLUDED.document
    $$
"""
_REFRESH_0002 = """
    CREATE OR REPLACE FUNCTION agent_search_refresh(p_ids varchar[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO agent_search (agent_id, document)
        SELECT a.id, agent_search_vector(
            a.name, a.short_description, a.description,
            (SELECT string_agg(t.tag, ' ') FROM agent_tags t WHERE t.agent_id = a.id),
            u.username)
        FROM agents a LEFT JOIN users u ON u.id = a.vendor_id
        WHERE a.id = ANY(p_ids)
        ON CONFLICT (agent_id) DO UPDATE SET document = EXCLUDED.document
    $$
"""
_SEARCHED_COLUMNS = ["name", "short_description", "description", "vendor_id"]


def _search_update_trigger(columns: list[str]) -> str:
    changed = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in columns)
    return (f"CREATE TRIGGER agents_search_upd AFTER UPDATE OF {', '.join(columns)} ON agents "
            f"FOR EACH ROW WHEN ({changed}) EXECUTE FUNCTION agents_search_updated()")


POSTGRES_SEARCH_LIVE = [
    "ALTER TABLE agent_search ADD COLUMN live boolean NOT NULL DEFAULT false",
    "UPDATE agent_search s SET live = (a.status = 'approved' AND a.deleted_at IS NULL) FROM agents a "
    "WHERE a.id = s.agent_id",
    "ALTER TABLE agent_search ALTER COLUMN live DROP DEFAULT",
    "DROP INDEX ix_agent_search_document",
    "CREATE INDEX ix_agent_search_document ON agent_search USING GIN (document) WHERE live",
    _REFRESH,
    "DROP TRIGGER agents_search_upd ON agents",
    _search_update_trigger([*_SEARCHED_COLUMNS, "status", "deleted_at"]),
]

POSTGRES_SEARCH_LIVE_UNDO = [
    "DROP TRIGGER agents_search_upd ON agents",
    _search_update_trigger(_SEARCHED_COLUMNS),
    _REFRESH_0002,
    "DROP INDEX ix_agent_search_document",
    "CREATE INDEX ix_agent_search_document ON agent_search USING GIN (document)",
    "ALTER TABLE agent_search DROP COLUMN live",
]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in REPLACED_INDEXES:
        op.drop_index(name, table_name="agents")
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
        for ddl in [*SQLITE_COUNT_TRIGGERS.values(), *SQLITE_VERSION_TRIGGERS.values()]:
            op.execute(ddl)
    elif dialect == "postgresql":
        for ddl in [*POSTGRES_SEARCH_LIVE, *POSTGRES_COUNT_DDL, *POSTGRES_VERSION_DDL]:
            op.execute(ddl)
    else:
        raise NotImplementedError(f"no catalog support for {dialect}")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in reversed([*SQLITE_COUNT_TRIGGERS, *SQLITE_VERSION_TRIGGERS]):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    elif dialect == "postgresql":
        for ddl in [*POSTGRES_VERSION_DROP, *POSTGRES_COUNT_DROP, *POSTGRES_SEARCH_LIVE_UNDO]:
            op.execute(ddl)
    op.drop_table("catalog_version")
    op.drop_table("agent_listing_counts")
    for name, columns in REPLACED_INDEXES.items():
        op.create_index(name, "agents", columns)
