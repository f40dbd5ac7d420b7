"""Search indexes: one-word catalogue searches read kept per-prefix postings; admin searches use trigrams

Revision ID: 0021
Revises: 0020

Catalogue (PostgreSQL). 0014's `agent_search_terms` held one row per (lexeme, live agent) with the 32-character
agent id: 3.36 million rows, 557 MB at 100,000 agents, and a one-word search still summed every matching row
per agent (29,183 rows into 27,455 agents for `emails`) to rank and count them. It is replaced by:
- `agent_search.doc_key`: an integer key per search document (stable while the document exists);
- `agent_search_prefixes (prefix, live_count)`: every lexeme of a live document, with the number of live
  documents holding a lexeme that starts with it (kept: the `X-Total-Count` of a one-word search);
- `agent_search_postings (prefix, total, bucket, doc_keys)`: for each such prefix and live document, the sum
  of the position weights (in tenths: A 10, B 4, C 2, D 1) of the document's lexemes that start with the
  prefix, i.e. `ts_rank_cd` of the prefix query x 10; packed as integer arrays per (prefix, total, bucket of
  1,024 doc keys), so that a prefix's postings are an index range in impact order.
A one-word query matches the lexemes starting with its stem or with the word; the "minimal" prefixes among
them (none of them starts with another) partition those lexemes, so one minimal prefix's postings are the
answer as they are (the top page is its highest totals, the count is kept), and several are summed per
document. A row trigger on `agent_search` keeps both tables in the writer's transaction; a lexeme seen for
the first time gets its postings from the prefixes it extends. Writers of the index take one transaction-level
advisory lock (packed rows are shared by many documents, and this keeps their lock order simple).
The old table, its trigger and its functions are dropped.

Admin (PostgreSQL). The admin tables' search box is a case-insensitive substring match, `lower(column) LIKE '%term%'`
(services/admin/search.py), OR-ed over a few columns per table. Without an index that is a sequential scan of
100,000 users, agents or 200,000 orders. PostgreSQL: `pg_trgm` (created here; it ships with PostgreSQL's
contrib package) and one GIN trigram index per searched expression, `lower(column) gin_trgm_ops`, which the
planner combines with a BitmapOr for the OR-ed columns. Terms of one or two characters have no trigram and still
scan. SQLite has no trigram index for LIKE (its FTS5 trigram tokenizer would need a shadow table per searched
table); it keeps the scan.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, column) pairs the admin searches match; the index is ix_trgm_<table>_<column>.
TRIGRAM_COLUMNS = (
    ("users", "username"),
    ("users", "email"),
    ("users", "first_name"),
    ("users", "last_name"),
    ("agents", "name"),
    ("agents", "short_description"),
    ("orders", "agent_name"),
    ("orders", "customer_email"),
)


IMPACT = """
CREATE FUNCTION agent_search_impact(p_weights text[]) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(sum(CASE w WHEN 'A' THEN 10 WHEN 'B' THEN 4 WHEN 'C' THEN 2 ELSE 1 END), 0)::integer
    FROM unnest(p_weights) AS w
$$
"""

# The (prefix, total) entries of one document: every known prefix of each of its lexemes, with the summed
# impacts of the lexemes under it.
ENTRIES = """
CREATE FUNCTION agent_search_entries(p_document tsvector) RETURNS TABLE (prefix text, total integer)
LANGUAGE sql STABLE AS $$
    SELECT x.prefix, sum(agent_search_impact(u.weights::text[]))::integer
    FROM unnest(p_document) AS u, generate_series(1, length(u.lexeme)) AS n, agent_search_prefixes AS x
    WHERE x.prefix = left(u.lexeme, n) COLLATE "C"
    GROUP BY x.prefix
$$
"""

# A lexeme seen for the first time: its postings are the per-document sums over the minimal prefixes it is a
# prefix of (they partition the lexemes starting with it), its count their number.
ADD_PREFIX = """
CREATE FUNCTION agent_search_add_prefix(p_prefix text) RETURNS void LANGUAGE sql AS $$
    WITH under AS MATERIALIZED (
        SELECT x.prefix FROM agent_search_prefixes AS x
        WHERE x.prefix >= p_prefix COLLATE "C" AND starts_with(x.prefix, p_prefix)
    ), minimal AS (
        SELECT m.prefix FROM under AS m
        WHERE NOT EXISTS (SELECT 1 FROM under AS y WHERE y.prefix < m.prefix AND starts_with(m.prefix, y.prefix))
    ), sums AS MATERIALIZED (
        SELECT d AS doc_key, sum(p.total)::integer AS total
        FROM agent_search_postings AS p JOIN minimal USING (prefix), unnest(p.doc_keys) AS d
        GROUP BY d
    ), packed AS (
        INSERT INTO agent_search_postings (prefix, total, bucket, doc_keys)
        SELECT p_prefix, total, doc_key >> 10, array_agg(doc_key ORDER BY doc_key) FROM sums GROUP BY 2, 3
    )
    INSERT INTO agent_search_prefixes (prefix, live_count) SELECT p_prefix, count(*) FROM sums
$$
"""

SYNC = """
CREATE FUNCTION agent_search_postings_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    novel text;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.live = NEW.live AND OLD.document = NEW.document THEN
        RETURN NULL;
    END IF;
    IF NOT ((TG_OP <> 'INSERT' AND OLD.live) OR (TG_OP <> 'DELETE' AND NEW.live)) THEN
        RETURN NULL;
    END IF;
    PERFORM pg_advisory_xact_lock(2100021);
    IF TG_OP <> 'INSERT' AND OLD.live THEN
        UPDATE agent_search_postings AS p SET doc_keys = array_remove(p.doc_keys, OLD.doc_key)
        FROM agent_search_entries(OLD.document) AS e
        WHERE p.prefix = e.prefix AND p.total = e.total AND p.bucket = OLD.doc_key >> 10;
        DELETE FROM agent_search_postings AS p USING agent_search_entries(OLD.document) AS e
        WHERE p.prefix = e.prefix AND p.total = e.total AND p.bucket = OLD.doc_key >> 10 AND p.doc_keys = '{}';
        UPDATE agent_search_prefixes AS x SET live_count = x.live_count - 1
        FROM agent_search_entries(OLD.document) AS e WHERE x.prefix = e.prefix;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.live THEN
        FOR novel IN
            SELECT u.lexeme FROM unnest(NEW.document) AS u
            WHERE NOT EXISTS (SELECT 1 FROM agent_search_prefixes AS x WHERE x.prefix = u.lexeme COLLATE "C")
            ORDER BY u.lexeme COLLATE "C"
        LOOP
            PERFORM agent_search_add_prefix(novel);
        END LOOP;
        INSERT INTO agent_search_postings AS p (prefix, total, bucket, doc_keys)
        SELECT e.prefix, e.total, NEW.doc_key >> 10, ARRAY[NEW.doc_key] FROM agent_search_entries(NEW.document) AS e
        ON CONFLICT (prefix, total, bucket) DO UPDATE SET doc_keys = p.doc_keys || EXCLUDED.doc_keys;
        UPDATE agent_search_prefixes AS x SET live_count = x.live_count + 1
        FROM agent_search_entries(NEW.document) AS e WHERE x.prefix = e.prefix;
    END IF;
    RETURN NULL;
END $$
"""

# Set-based (re)build of both tables from the live documents (the migration, and `rebuild_index`).
REBUILD = """
CREATE FUNCTION agent_search_postings_rebuild() RETURNS void LANGUAGE sql AS $$
    DELETE FROM agent_search_postings;
    DELETE FROM agent_search_prefixes;
    INSERT INTO agent_search_prefixes (prefix, live_count)
    SELECT DISTINCT u.lexeme COLLATE "C", 0 FROM agent_search AS s, unnest(s.document) AS u WHERE s.live;
    INSERT INTO agent_search_postings (prefix, total, bucket, doc_keys)
    SELECT e.prefix, e.total, s.doc_key >> 10, array_agg(s.doc_key ORDER BY s.doc_key)
    FROM agent_search AS s, agent_search_entries(s.document) AS e
    WHERE s.live
    GROUP BY 1, 2, 3;
    UPDATE agent_search_prefixes AS x SET live_count = c.n
    FROM (SELECT prefix, sum(cardinality(doc_keys))::integer AS n FROM agent_search_postings GROUP BY prefix) AS c
    WHERE x.prefix = c.prefix;
$$
"""

POSTGRES_POSTINGS = [
    "DROP TRIGGER IF EXISTS agent_search_terms_truncate ON agent_search",
    "DROP FUNCTION IF EXISTS agent_search_terms_truncate()",
    "DROP TRIGGER IF EXISTS agent_search_terms_sync ON agent_search",
    "DROP FUNCTION IF EXISTS agent_search_terms_sync()",
    "DROP FUNCTION IF EXISTS agent_search_weight_sum(text[])",
    "DROP TABLE IF EXISTS agent_search_terms",
    "ALTER TABLE agent_search ADD COLUMN doc_key integer GENERATED ALWAYS AS IDENTITY",
    "CREATE UNIQUE INDEX ux_agent_search_doc_key ON agent_search (doc_key) INCLUDE (agent_id)",
    """
    CREATE TABLE agent_search_prefixes (
        prefix text COLLATE "C" PRIMARY KEY,
        live_count integer NOT NULL
    )
    """,
    """
    CREATE TABLE agent_search_postings (
        prefix text COLLATE "C" NOT NULL,
        total integer NOT NULL,
        bucket integer NOT NULL,
        doc_keys integer[] NOT NULL,
        PRIMARY KEY (prefix, total, bucket)
    )
    """,
    IMPACT,
    ENTRIES,
    ADD_PREFIX,
    SYNC,
    REBUILD,
    "CREATE TRIGGER agent_search_postings_sync AFTER INSERT OR DELETE OR UPDATE ON agent_search "
    "FOR EACH ROW EXECUTE FUNCTION agent_search_postings_sync()",
    """
    CREATE FUNCTION agent_search_postings_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        TRUNCATE agent_search_postings, agent_search_prefixes;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER agent_search_postings_truncate AFTER TRUNCATE ON agent_search "
    "FOR EACH STATEMENT EXECUTE FUNCTION agent_search_postings_truncate()",
    "SELECT agent_search_postings_rebuild()",
]

POSTGRES_POSTINGS_DROP = [
    "DROP TRIGGER IF EXISTS agent_search_postings_truncate ON agent_search",
    "DROP FUNCTION IF EXISTS agent_search_postings_truncate()",
    "DROP TRIGGER IF EXISTS agent_search_postings_sync ON agent_search",
    "DROP FUNCTION IF EXISTS agent_search_postings_rebuild()",
    "DROP FUNCTION IF EXISTS agent_search_postings_sync()",
    "DROP FUNCTION IF EXISTS agent_search_add_prefix(text)",
    "DROP FUNCTION IF EXISTS agent_search_entries(tsvector)",
    "DROP FUNCTION IF EXISTS agent_search_impact(text[])",
    "DROP TABLE IF EXISTS agent_search_postings",
    "DROP TABLE IF EXISTS agent_search_prefixes",
    "DROP INDEX IF EXISTS ux_agent_search_doc_key",
    "ALTER TABLE agent_search DROP COLUMN IF EXISTS doc_key",
]

# 0014's term table, as it was (for the way down).
POSTGRES_TERMS = [
    """
    CREATE TABLE agent_search_terms (
        lexeme text COLLATE "C" NOT NULL,
        agent_id varchar(32) NOT NULL,
        score double precision NOT NULL,
        PRIMARY KEY (lexeme, agent_id) INCLUDE (score)
    )
    """,
    """
    CREATE FUNCTION agent_search_weight_sum(p_weights text[]) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(sum((CASE w WHEN 'A' THEN 1.0::float4 WHEN 'B' THEN 0.4::float4 WHEN 'C' THEN 0.2::float4
                             ELSE 0.1::float4 END)::float8), 0) FROM unnest(p_weights) AS w
    $$
    """,
    """
    CREATE FUNCTION agent_search_terms_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'UPDATE' AND OLD.live = NEW.live AND OLD.document = NEW.document THEN
            RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.live THEN
            DELETE FROM agent_search_terms
            WHERE lexeme = ANY(tsvector_to_array(OLD.document)) AND agent_id = OLD.agent_id;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.live THEN
            INSERT INTO agent_search_terms (lexeme, agent_id, score)
            SELECT u.lexeme, NEW.agent_id, agent_search_weight_sum(u.weights::text[]) FROM unnest(NEW.document) AS u;
        END IF;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER agent_search_terms_sync AFTER INSERT OR DELETE OR UPDATE ON agent_search "
    "FOR EACH ROW EXECUTE FUNCTION agent_search_terms_sync()",
    """
    CREATE FUNCTION agent_search_terms_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        TRUNCATE agent_search_terms;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER agent_search_terms_truncate AFTER TRUNCATE ON agent_search "
    "FOR EACH STATEMENT EXECUTE FUNCTION agent_search_terms_truncate()",
    """
    INSERT INTO agent_search_terms (lexeme, agent_id, score)
    SELECT u.lexeme, s.agent_id, agent_search_weight_sum(u.weights::text[])
    FROM agent_search AS s, unnest(s.document) AS u
    WHERE s.live
    """,
]


def trigram_index_name(table: str, column: str) -> str:
    return f"ix_trgm_{table}_{column}"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for ddl in POSTGRES_POSTINGS:
        op.execute(ddl)
    op.execute("ANALYZE agent_search_prefixes")
    op.execute("ANALYZE agent_search_postings")
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for table, column in TRIGRAM_COLUMNS:
        op.execute(f"CREATE INDEX {trigram_index_name(table, column)} ON {table} "
                   f"USING gin (lower({column}) gin_trgm_ops)")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in reversed(TRIGRAM_COLUMNS):
        op.execute(f"DROP INDEX IF EXISTS {trigram_index_name(table, column)}")
    # The extension stays: other objects may use it, and dropping it is the database owner's call.
    for ddl in POSTGRES_POSTINGS_DROP + POSTGRES_TERMS:
        op.execute(ddl)
